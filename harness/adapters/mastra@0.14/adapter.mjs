#!/usr/bin/env node
// mcp-error-layers adapter for Mastra's MCP client 0.14 (@mastra/mcp 0.14.x with @mastra/core
// 0.24.x, pinned in package.json / package-lock.json): what `npm install @mastra/mcp` resolves on
// Node 20, where the 1.15 and later lines (Node >= 22.13) are skipped. It runs on the official
// TypeScript SDK v1, @modelcontextprotocol/sdk, through the lock, on the machine's Node.
//
// Its own program, not ../mastra/adapter.mjs: 0.14's API differs (`getTools()`, core 0.x's
// `execute({context, runtimeContext})`, an `isError` result returned rather than thrown) and it
// rethrows the SDK v1's errors (McpError, StreamableHTTPError), not v2's; and a program resolves
// its imports from its own folder's node_modules.
//
// The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
// call per process or many at once, read and answered by ../contract.mjs.
//
// It witnesses what an application sees through the documented entry point with its defaults:
// `new MCPClient({id, servers: {s: {url, timeout, connectTimeout}}, timeout})` and `getTools()`
// (tools keyed `${server}_${tool}`) once per case, the tool's `execute({context: args,
// runtimeContext})` for each of its calls, then `disconnect()` after the last (docs/adapters.md,
// "One client per case"). The first call's timeout goes in every documented timeout, as an
// application configures its client once: `timeout` (each request, tools/call included) and
// `connectTimeout` (the connect, default 3000 ms). 0.14 knows no protocol version option: the SDK
// initializes, offering its latest (2025-11-25). Each client gets an `id` of its own: a second
// MCPClient with the same id and another config disconnects the first.
//
// What `execute` surfaces, and how it maps:
// - it resolves to the tool's value: the CallToolResult (its `isError` flag kept: TOOL_ERROR), or
//   its structuredContent alone when there is one (isError dropped); or to core's validation error
//   object `{error: true, message, validationErrors}`, returned, not thrown;
// - it rethrows whatever the SDK threw, as it is, after one reconnect-and-retry of the tools/call
//   when the lower-cased message holds one of Mastra's words (`isSessionError`: "session", "fetch
//   failed", "http 400", ...): McpError, StreamableHTTPError, ZodError, SyntaxError, Node's fetch
//   errors, mapped as the typescript-sdk row maps them. Without the SDK's `Client.onerror` (Mastra
//   keeps the Client to itself) a ZodError cannot be told to be the envelope's or the result's.
// `getTools()` throws MastraError `MCP_CLIENT_GET_TOOLS_FAILED` when a server fails to connect (after
// trying the old SSE transport) or to list.
//
// Over stdio (a call whose transport is stdio) the server definition is Mastra's stdio one,
// `{command, args, timeout}` (its defaults otherwise: the SDK's environment subset, the server's
// stderr inherited): Mastra starts the server with the SDK's StdioClientTransport. A server process
// that ends under a call surfaces as the SDK's own McpError ConnectionClosed (-32000, "Connection
// closed"); without `Client.onclose` it is told from a peer's -32000 by the exact text the SDK
// builds for it, and only over stdio (over HTTP the SDK raises it only when the client is closed).
// The next call's "Not connected" is one of Mastra's reconnect words: it starts the server again.
//
// In an authorization case (`call.auth`, docs/adapters.md "Credentials") the HTTP server
// definition gets Mastra's documented auth entry point, `authProvider` (README "OAuth Token Refresh
// with AuthProvider": the SDK's `OAuthClientProvider`, which Mastra hands to both the Streamable HTTP
// and the SSE transport), a token store seeded once from the start credentials
// (`contract.oauthProvider`). The SDK decides on refresh, step-up and interactive authorization;
// Mastra adds its own reconnect-and-retry and its SSE fallback around them.

import { MCPClient } from '@mastra/mcp';
import { MastraError } from '@mastra/core/error';
import { RuntimeContext } from '@mastra/core/runtime-context';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import * as contract from '../contract.mjs';
import { observation } from '../contract.mjs';

const FRAMEWORK = { name: '@mastra/mcp', version: contract.packageVersion('@mastra/mcp', import.meta.url) };
const SDK_VERSION = contract.packageVersion('@modelcontextprotocol/sdk', import.meta.url);

/** The text of the McpError the SDK raises itself when the transport closes under a request. */
const CONNECTION_CLOSED = `MCP error ${ErrorCode.ConnectionClosed}: Connection closed`;

/** The one server of the client config: getTools keys its tools `${SERVER}_${tool}`. */
const SERVER = 's';

/** The module that exports `error`'s class, as a prefix for `detail`. */
function modulePrefix(error) {
  if (error instanceof MastraError) return '@mastra/core/error.';
  if (error instanceof McpError || error instanceof StreamableHTTPError) return '@modelcontextprotocol/sdk.';
  return '';
}

/**
 * One error of a cause chain as `module.Class [code or id]: message`. Mastra writes the stack of
 * the error it wraps into its MastraError's message (`Failed to connect ...: ${e.stack}`): its
 * frames (lines `    at ...`, with this machine's paths) are left out.
 */
function label(error) {
  const name = error.constructor?.name && error.constructor.name !== 'Error' ? error.constructor.name : (error.name ?? 'Error');
  const tag = error instanceof MastraError ? error.id : error.code;
  const message = (error.message ?? String(error)).replace(/\n\s+at .*/g, '');
  return `${modulePrefix(error)}${name}${tag !== undefined ? ` [${tag}]` : ''}: ${message}`;
}

const describe = (error) => contract.describe(error, label);

/** Observation for what `execute` resolved to. */
function fromValue(value) {
  if (value?.error === true && 'validationErrors' in value) {
    return observation('UNCLASSIFIED_ERROR', null, null, `execute returned @mastra/core's validation error object (not thrown): ${value.message}`);
  }
  if (value?.content === undefined) {
    return observation('TOOL_SUCCESS', null, null, 'execute returned the structuredContent alone (a result\'s isError is not in it)');
  }
  const resultType = value.resultType === undefined ? '' : ` (resultType ${JSON.stringify(value.resultType)})`;
  const outcome = value.isError === true ? 'TOOL_ERROR' : 'TOOL_SUCCESS';
  return observation(outcome, null, null, `execute returned a CallToolResult with isError: ${JSON.stringify(value.isError)}${resultType}`);
}

/**
 * Outcome, status and code for an error `execute` or `getTools` threw; `timeoutMs` is the timeout
 * the client was made with (the SDK's own timer says it in `data.timeout`).
 */
function outcomeOf(error, timeoutMs, stdio) {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout && error.data?.timeout === timeoutMs) return ['TIMEOUT', null, null];
    if (stdio && error.code === ErrorCode.ConnectionClosed && error.data === undefined && error.message === CONNECTION_CLOSED) return ['CONNECTION_ERROR', null, null];
    return ['JSONRPC_ERROR', null, error.code];
  }
  if (error instanceof StreamableHTTPError) {
    // `code` is the HTTP status, or -1 for "Unexpected content type".
    if (error.code === -1 && /Unexpected content type/.test(error.message)) return ['UNEXPECTED_CONTENT_TYPE', null, null];
    if (Number.isInteger(error.code) && error.code >= 100 && error.code <= 599) return ['HTTP_ERROR', error.code, null];
    return ['UNCLASSIFIED_ERROR', null, null];
  }
  if (error instanceof SyntaxError) return ['MALFORMED_JSON', null, null];
  const fetched = contract.fetchOutcome(error);
  return [fetched ?? 'UNCLASSIFIED_ERROR', null, null];
}

/**
 * What `detail` adds for the SDK's two auth errors, which name no layer (UNCLASSIFIED_ERROR, as in
 * the typescript-sdk row): UnauthorizedError (client/auth.js, "a user must authorize": `auth()`
 * ended in an interactive authorization, after a 401 or a 403 insufficient_scope) carries no
 * status; OAuthError (a token request the authorization server refused, thrown through the call)
 * carries the OAuth `errorCode`, not the MCP server's status.
 */
function authNote(error) {
  if (error instanceof UnauthorizedError) return ' (UnauthorizedError carries no HTTP status: the SDK asked for an interactive authorization after a 401 or a 403 insufficient_scope)';
  if (error instanceof OAuthError) return ` (OAuthError errorCode ${JSON.stringify(error.errorCode)}: the authorization server's answer; the MCP server's status is not carried)`;
  return '';
}

/** Observation for an error thrown `where` (`execute failed: `, say). */
function fromError(error, where, timeoutMs, stdio) {
  const grouped = contract.caught(error, describe, where);
  if (grouped) return grouped;
  const [outcome, status, code] = outcomeOf(error, timeoutMs, stdio);
  return observation(outcome, status, code, `${where}${describe(error)}${authNote(error)}`);
}

/** A `getTools()` without the case's tool. */
class NoTool extends Error {}

/** The call's tool among `tools` (what `getTools()` gave), or NoTool. */
function toolOf(tools, call) {
  const key = `${SERVER}_${call.tool}`;
  if (tools[key]) return tools[key];
  throw new NoTool(`getTools returned no tool ${key} (got ${Object.keys(tools).join(', ') || 'none'})`);
}

let clients = 0;

/**
 * Mastra's client for the calls of a case (`contract.keeping`): one `MCPClient` and the tools its
 * `getTools()` gave, kept between the calls, with the timeout it was made with.
 */
const row = {
  steps: () => new contract.Steps({ connect: 'getTools', list: 'getTools', call: 'execute' }),

  async open(call) {
    if (call.protocolVersion !== '2025-11-25') {
      console.error(`note: ${call.protocolVersion} requested; ${FRAMEWORK.name} ${FRAMEWORK.version} has no version option: @modelcontextprotocol/sdk ${SDK_VERSION} offers 2025-11-25 in initialize`);
    }
    clients += 1;
    const server =
      call.transport === 'stdio'
        ? { ...contract.stdioServer(call), timeout: call.timeoutMs }
        : {
            url: new URL(call.endpoint),
            timeout: call.timeoutMs,
            connectTimeout: call.timeoutMs,
            ...(call.auth === null ? {} : { authProvider: contract.oauthProvider(call.auth, describe) }),
          };
    const mcp = new MCPClient({
      id: `mcp-error-layers-${process.pid}-${clients}`,
      servers: { [SERVER]: server },
      timeout: call.timeoutMs,
    });
    try {
      const tools = await mcp.getTools();
      toolOf(tools, call);
      return { mcp, tools, timeoutMs: call.timeoutMs };
    } catch (error) {
      mcp.disconnect().catch((closing) => console.error(`disconnect: ${describe(closing)}`));
      throw error;
    }
  },

  async call({ tools }, call, steps) {
    const tool = toolOf(tools, call);
    steps.now = 'call';
    // core 0.x's documented call: the input as `context`, with a request context of its own.
    return fromValue(await tool.execute({ context: call.arguments, runtimeContext: new RuntimeContext() }));
  },

  // A failed connect has no kept client: the timeout it was to be made with is the call's.
  error(error, call, steps, kept) {
    if (error instanceof NoTool) return observation('UNCLASSIFIED_ERROR', null, null, error.message);
    return fromError(error, steps.where, kept?.timeoutMs ?? call.timeoutMs, call.transport === 'stdio');
  },

  close: ({ mcp }) => mcp.disconnect(),
};

contract.run(contract.keeping(row), { sdk: FRAMEWORK, describeOne: describe, stdio: true });
