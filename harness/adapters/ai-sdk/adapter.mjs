#!/usr/bin/env node
// mcp-error-layers adapter for the Vercel AI SDK's MCP client (@ai-sdk/mcp, pinned in
// package.json / package-lock.json). It has its own Streamable HTTP transport; it does not use
// @modelcontextprotocol/*.
//
// One-shot contract (docs/adapters.md): the endpoint URL is the last argument; the call comes in
// MCP_ERROR_LAYERS_TOOL, MCP_ERROR_LAYERS_ARGUMENTS, MCP_ERROR_LAYERS_PROTOCOL_VERSION and
// MCP_ERROR_LAYERS_TIMEOUT_MS; with MCP_ERROR_LAYERS_LIST_TOOLS=1 it lists the tools first.
// Exactly one JSON line goes to stdout; everything else to stderr.
// With MCP_ERROR_LAYERS_MODE=persistent it announces persistent mode and serves request lines.
//
//   adapter.mjs [--max-retries N] <endpoint-url>
//
// `--max-retries N` sets createMCPClient's `maxRetries` (default: not passed, the SDK's 0): that
// is the variant ai-sdk+retries2. Nothing else departs from the SDK's defaults except the era
// switch the SDK documents: a case that prefers a 2025 version gets
// `protocolVersionDiscovery: false` (initialize first); 2026-07-28 keeps the default (probe with
// server/discover, fall back to initialize).
//
// The mapping reads the SDK's typed surface only: the CallToolResult, MCPClientError's `statusCode`
// (HTTP status) and `code` (JSON-RPC code), its `cause` chain, and what the SDK reported through
// `onUncaughtError`. The one exception is the SDK's own request timeout, an MCPClientError with no
// field but its message, which is recognised only as the exact text the SDK builds for the
// timeout this adapter passed (`Request timed out after <timeout>ms`).

import { MCPClientError, createMCPClient } from '@ai-sdk/mcp';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serve } from '../serving.mjs';

const SDK_VERSION = JSON.parse(
  readFileSync(new URL('./node_modules/@ai-sdk/mcp/package.json', import.meta.url)),
).version;

const MODERN = '2026-07-28';

// Cause codes of a `fetch failed` TypeError (undici) that mean no HTTP response arrived.
const CONNECTION_CAUSES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

const MAX_DETAIL = 600;

/** `--max-retries N` among the arguments before the endpoint, or undefined. */
function maxRetriesArg(argv) {
  const i = argv.indexOf('--max-retries');
  if (i < 0) return undefined;
  const n = Number.parseInt(argv[i + 1], 10);
  if (!Number.isInteger(n) || n < 0) throw new Error('--max-retries needs a non-negative integer');
  return n;
}

const MAX_RETRIES = maxRetriesArg(process.argv.slice(2));
const RETRY = MAX_RETRIES === undefined ? 'maxRetries: 0 (the default)' : `maxRetries: ${MAX_RETRIES}`;

/** Observation for a value the SDK returned from `callTool`. */
function fromResult(result) {
  if (result?.isError === true) {
    return observation('TOOL_ERROR', null, null, 'callTool returned a CallToolResult with isError: true');
  }
  return observation('TOOL_SUCCESS', null, null, 'callTool returned a CallToolResult');
}

/** A ZodError's issues in one line: `path: message [code]` each. */
function zodSummary(error) {
  const issues = error.issues.map((issue) => `${issue.path?.length ? issue.path.join('.') : '(root)'}: ${issue.message} [${issue.code}]`);
  return `ZodError: ${issues.join('; ')}`;
}

function isZod(error) {
  return error?.name === 'ZodError' || Array.isArray(error?.issues);
}

/** An error and its cause chain as text. */
function describe(error) {
  if (error === null || error === undefined) return String(error);
  const parts = [];
  let current = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    if (isZod(current)) {
      parts.push(zodSummary(current));
      break;
    }
    if (typeof current !== 'object') {
      parts.push(String(current));
      break;
    }
    const name = current.name && current.name !== 'Error' ? current.name : (current.constructor?.name ?? 'Error');
    const fields = [];
    if (current.statusCode !== undefined) fields.push(`statusCode ${current.statusCode}`);
    if (current.code !== undefined) fields.push(`code ${current.code}`);
    const tag = fields.length ? ` [${fields.join(', ')}]` : '';
    parts.push(`${name}${tag}: ${current.message ?? String(current)}`);
    // The JSON-RPC error object the SDK keeps as the cause of a peer's error adds nothing.
    if (current.cause && !(current.cause instanceof Error) && typeof current.cause === 'object' && 'code' in current.cause && 'message' in current.cause) break;
    current = current.cause;
  }
  return parts.join(' <- caused by ');
}

function causeCode(error) {
  let current = error?.cause;
  for (let depth = 0; current && depth < 4; depth += 1) {
    if (typeof current.code === 'string') return current.code;
    current = current.cause;
  }
  return undefined;
}

/**
 * The outcome of one error (no detail), or undefined when nothing typed classifies it. `reported`
 * holds what the SDK passed to onUncaughtError (the transport's own failures go there first).
 */
function classify(error, { phase, timeoutMs, reported }) {
  if (MCPClientError.isInstance(error)) {
    const status = Number.isInteger(error.statusCode) ? error.statusCode : null;
    const code = Number.isInteger(error.code) ? error.code : null;
    // An HTTP status outside 2xx: the transport's HTTP failure (a JSON-RPC code may come with it).
    if (status !== null && (status < 200 || status > 299)) {
      return { outcome: 'HTTP_ERROR', status, code };
    }
    // A JSON-RPC error from the peer (`code` is the error object's code).
    if (code !== null) return { outcome: 'JSONRPC_ERROR', status, code };
    // The SDK's own timer for the timeout this adapter passed.
    if (error.message === `Request timed out after ${timeoutMs}ms`) return { outcome: 'TIMEOUT', status: null, code: null };
    // Otherwise the cause, when there is one, says what failed (a retry error wraps the last
    // attempt's error; "Failed to parse server response" wraps the schema error).
    const inner = error.cause === undefined ? undefined : classify(error.cause, { phase, timeoutMs, reported });
    if (inner) return inner;
    return { outcome: 'UNCLASSIFIED_ERROR', status, code: null };
  }

  // ZodError: the transport's JSONRPCMessageSchema check of an incoming message reports it via
  // onUncaughtError first; one that was not reported is the client's result schema check, which
  // is the tool result's only during callTool (during createMCPClient it is the initialize or
  // server/discover result: unclassified).
  if (isZod(error)) {
    if (reported.includes(error)) return { outcome: 'INVALID_ENVELOPE', status: null, code: null };
    if (phase === 'call') return { outcome: 'INVALID_TOOL_RESULT', status: null, code: null };
    return undefined;
  }

  // JSON that does not parse: AI_JSONParseError (provider-utils' parseJSON, SSE data) or the
  // SyntaxError of Response.json() (a JSON body).
  if (error?.name === 'AI_JSONParseError' || error instanceof SyntaxError) {
    return { outcome: 'MALFORMED_JSON', status: null, code: null };
  }

  // undici: `fetch failed` means fetch() itself rejected, before any response; `terminated` means
  // the body of a response that had started was cut off.
  if (error instanceof TypeError && error.message === 'fetch failed') {
    if (CONNECTION_CAUSES.has(causeCode(error))) return { outcome: 'CONNECTION_ERROR', status: null, code: null };
    return undefined;
  }
  if (error instanceof TypeError && error.message === 'terminated') {
    return { outcome: 'STREAM_INCOMPLETE', status: null, code: null };
  }
  return undefined;
}

function fromError(error, { phase, timeoutMs, reported }) {
  const where = { connect: 'createMCPClient failed: ', list: 'listTools failed: ' }[phase] ?? 'callTool failed: ';
  const text = where + describe(error) + withReported(reported, error);
  const c = classify(error, { phase, timeoutMs, reported }) ?? { outcome: 'UNCLASSIFIED_ERROR', status: null, code: null };
  return observation(c.outcome, c.status, c.code, text);
}

function withReported(reported, except) {
  const others = reported.filter((e) => e !== except && e !== except?.cause);
  if (others.length === 0) return '';
  return `; the SDK reported via onUncaughtError: ${others.map(describe).join(' | ')}`;
}

function observation(outcome, status, code, detail) {
  const text = String(detail).replace(/\s+/g, ' ');
  return {
    outcome,
    status,
    code,
    detail: text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text,
    retry: RETRY,
  };
}

/**
 * Makes one tool call with the SDK and returns an observation object. Keeps no state between
 * calls (persistent mode calls it once per request line).
 */
export async function observe(endpoint, tool, args, version, timeoutMs, listTools = false) {
  const reported = [];
  const config = {
    transport: { type: 'http', url: endpoint },
    onUncaughtError: (error) => {
      reported.push(error);
      console.error(`sdk onUncaughtError: ${describe(error)}`);
    },
  };
  if (MAX_RETRIES !== undefined) config.maxRetries = MAX_RETRIES;
  if (version && version !== MODERN) {
    // The SDK's switch for a legacy server: initialize without the server/discover probe. It
    // offers 2025-11-25 in initialize whatever 2025 version the case prefers.
    config.protocolVersionDiscovery = false;
    if (version !== '2025-11-25') console.error(`note: ${version} requested; @ai-sdk/mcp ${SDK_VERSION} offers 2025-11-25 in initialize`);
  }
  let client;
  let phase = 'connect';
  let obs;
  try {
    // The case's timeout is for the call; the connect keeps the SDK's defaults.
    client = await createMCPClient(config);
    if (listTools) {
      // As an application does to learn the tool's schemas (docs/adapters.md, list_tools).
      phase = 'list';
      await client.listTools();
    }
    phase = 'call';
    const result = await client.callTool({ name: tool, arguments: args, options: { timeout: timeoutMs } });
    obs = fromResult(result);
  } catch (error) {
    obs = fromError(error, { phase, timeoutMs, reported });
  }
  // `await client.close()` as an application does: in a 2025 session it sends the DELETE that
  // ends the session. Awaited so that the server sees the same requests on every run, bounded
  // so that a close that never finishes is not taken for a hang of the call.
  if (client) await closeWithin(client, CLOSE_BOUND_MS);
  return obs;
}

const CLOSE_BOUND_MS = 1000;

async function closeWithin(client, ms) {
  let timer;
  const bound = new Promise((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    const how = await Promise.race([client.close().then(() => 'closed'), bound]);
    if (how === 'timeout') console.error(`close: not finished after ${ms} ms; reporting anyway`);
  } catch (error) {
    console.error(`close: ${describe(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

function requiredEnv(name) {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
}

async function main() {
  const endpoint = process.argv[process.argv.length - 1];
  if (process.argv.length < 3 || !/^https?:\/\//.test(endpoint)) {
    throw new Error('usage: adapter.mjs [--max-retries N] <endpoint-url> (the call comes in MCP_ERROR_LAYERS_* variables)');
  }
  const tool = requiredEnv('MCP_ERROR_LAYERS_TOOL');
  const args = JSON.parse(process.env.MCP_ERROR_LAYERS_ARGUMENTS ?? '{}');
  const version = process.env.MCP_ERROR_LAYERS_PROTOCOL_VERSION ?? '';
  const timeoutMs = Number.parseInt(process.env.MCP_ERROR_LAYERS_TIMEOUT_MS ?? '5000', 10);
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new Error('MCP_ERROR_LAYERS_TIMEOUT_MS must be a positive integer');
  }
  const listTools = process.env.MCP_ERROR_LAYERS_LIST_TOOLS === '1';
  return observe(endpoint, tool, args, version, timeoutMs, listTools);
}

// An unhandled rejection inside the SDK must not turn into a crash before the call is reported.
process.on('unhandledRejection', (reason) => console.error(`unhandled rejection: ${describe(reason)}`));

function isMain() {
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain() && process.env.MCP_ERROR_LAYERS_MODE === 'persistent') {
  // Persistent mode (docs/adapters.md): many calls at once, each answer with its request's id.
  serve((r) => observe(r.endpoint, r.tool, r.arguments, r.protocol_version, r.timeout_ms, r.list_tools === true)).then(
    () => process.exit(0),
    (error) => {
      console.error(`adapter error: ${describe(error)}`);
      process.exit(2);
    },
  );
} else if (isMain()) {
  main().then(
    (obs) => process.stdout.write(`${JSON.stringify(obs)}\n`, () => process.exit(0)),
    (error) => {
      console.error(`adapter error: ${describe(error)}`);
      process.exit(2);
    },
  );
}
