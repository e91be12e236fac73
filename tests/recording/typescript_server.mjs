// A real MCP server for `record`'s tests (tests/record_import.rs): the official TypeScript SDK
// (@modelcontextprotocol/sdk 1.x, the typescript-sdk row's node_modules) on Streamable HTTP,
// stateless, bound to 127.0.0.1 on a free port, which it prints first (`port N`).
// Its SSE uses LF line ends, so a recording of it is written as SSE event tables.
// Tools: add_numbers(a, b) logs a notification, waits 40 ms, returns a + b (two SSE events);
// fail(reason) returns a result with isError true.
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';

const makeServer = () => {
    const server = new McpServer({ name: 'record-test', version: '1.0.0' }, { capabilities: { logging: {} } });
    server.registerTool('add_numbers', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
        async ({ a, b }, extra) => {
            await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'adding' } });
            await new Promise(resolve => setTimeout(resolve, 40));
            return { content: [{ type: 'text', text: String(a + b) }] };
        });
    server.registerTool('fail', { description: 'Always fails', inputSchema: { reason: z.string() } },
        async ({ reason }) => ({ content: [{ type: 'text', text: reason }], isError: true }));
    return server;
};

const app = createMcpExpressApp();
app.post('/mcp', async (req, res) => {
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => { transport.close(); server.close(); });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
});
app.get('/mcp', (req, res) => res.status(405).end());
const listener = app.listen(0, '127.0.0.1', () => console.log(`port ${listener.address().port}`));
