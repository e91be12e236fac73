// Mirrors @modelcontextprotocol/sdk 1.32.2 dist/esm/examples/server/simpleStreamableHttp.js
// (stateful; express app from createMcpExpressApp; new transport only for initialize).
// usage: node server_stateful.mjs PORT [noeventstore|transportlevel]
//   transportlevel: NOT the example's routing — a fresh stateful transport is created for EVERY
//   sessionless POST (not only initialize), so the SDK transport itself answers server/discover.
import { randomUUID } from 'node:crypto';
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';

const PORT = parseInt(process.argv[2], 10);
const useEventStore = process.argv[3] !== 'noeventstore' && process.argv[3] !== 'transportlevel';
const transportLevel = process.argv[3] === 'transportlevel';

const getServer = () => {
    const server = new McpServer({ name: 'probe-ts', version: '1.0.0' }, { capabilities: { logging: {} } });
    server.registerTool('synthetic', { description: 'Synthetic tool for probing', inputSchema: { text: z.string().optional() } },
        async ({ text }) => ({ content: [{ type: 'text', text: `synthetic:${text ?? 'x'}` }] }));
    return server;
};

const app = createMcpExpressApp();
const sessions = new Map();

app.post('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    try {
        const session = sessionId ? sessions.get(sessionId) : undefined;
        let transport;
        if (session) {
            transport = session.transport;
        } else if (!sessionId && (transportLevel || isInitializeRequest(req.body))) {
            transport = new StreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                ...(useEventStore ? { eventStore: new InMemoryEventStore() } : {}),
                onsessioninitialized: sid => { sessions.set(sid, { transport }); }
            });
            transport.onclose = () => {
                const sid = transport.sessionId;
                if (sid && sessions.has(sid)) sessions.delete(sid);
            };
            const server = getServer();
            await server.connect(transport);
            await transport.handleRequest(req, res, req.body);
            return;
        } else if (sessionId) {
            res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
            return;
        } else {
            res.status(400).json({
                jsonrpc: '2.0',
                error: { code: -32000, message: 'Bad Request: No valid session ID provided' },
                id: null
            });
            return;
        }
        await transport.handleRequest(req, res, req.body);
    } catch (error) {
        console.error('Error handling MCP request:', error);
        if (!res.headersSent) {
            res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
        }
    }
});

app.get('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    if (!sessionId) { res.status(400).send('Missing session ID'); return; }
    const session = sessions.get(sessionId);
    if (!session) { res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }); return; }
    await session.transport.handleRequest(req, res);
});

app.delete('/mcp', async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    if (!sessionId) { res.status(400).send('Missing session ID'); return; }
    const session = sessions.get(sessionId);
    if (!session) { res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }); return; }
    await session.transport.handleRequest(req, res);
});

app.listen(PORT, '127.0.0.1', error => {
    if (error) { console.error(error); process.exit(1); }
    console.log(`listening 127.0.0.1:${PORT} eventStore=${useEventStore} transportLevel=${transportLevel}`);
});
