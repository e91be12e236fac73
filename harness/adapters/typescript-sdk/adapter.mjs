#!/usr/bin/env node
// mcp-error-layers adapter for the official TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package.json / package-lock.json).
//
// One-shot contract (design §6): the endpoint URL is the last argument; the call comes in
// MCP_ERROR_LAYERS_TOOL, MCP_ERROR_LAYERS_ARGUMENTS, MCP_ERROR_LAYERS_PROTOCOL_VERSION and
// MCP_ERROR_LAYERS_TIMEOUT_MS; with MCP_ERROR_LAYERS_LIST_TOOLS=1 it lists the tools first.
// Exactly one JSON line goes to stdout; everything else to stderr.
//
// The adapter drives the SDK's public client API only (Client + StreamableHTTPClientTransport,
// connect, callTool with the SDK's own `timeout` request option) and maps what the SDK surfaces to
// an outcome. It never sees the case, so the mapping looks at nothing but the SDK's return value,
// its error classes and fields, and what the SDK reported through `Client.onerror`.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serve } from '../serving.mjs';

// Read from the file: the package's `exports` map resolves `./package.json` to dist/cjs's stub.
const SDK_VERSION = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url)),
).version;

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

/**
 * Observation for a value the SDK returned from `callTool`. The SDK's result type
 * (`CallToolResult`) has no `resultType`: a result with `resultType: "input_required"` resolves the
 * call like any other (the schema even fills in `content: []`), so an application sees a result.
 * The outcome comes from `isError` only; a passed-through `resultType` is noted in `detail`.
 */
function fromResult(result) {
  const resultType = result?.resultType;
  const note = resultType === undefined ? '' : ` (resultType ${JSON.stringify(resultType)})`;
  if (result?.isError === true) {
    return observation('TOOL_ERROR', null, null, `callTool returned a result with isError: true${note}`);
  }
  return observation('TOOL_SUCCESS', null, null, `callTool returned a result${note}`);
}

/** A ZodError's issues in one line: `path: message [code]` each. */
function zodSummary(error) {
  const issues = error.issues.map((issue) => `${issue.path?.length ? issue.path.join('.') : '(root)'}: ${issue.message} [${issue.code}]`);
  return `ZodError: ${issues.join('; ')}`;
}

/** An error and its cause chain as text. */
function describe(error) {
  if (error === null || error === undefined) return String(error);
  if (Array.isArray(error.issues)) return zodSummary(error);
  const parts = [];
  let current = error;
  for (let depth = 0; current && depth < 4; depth += 1) {
    const name = current.constructor?.name && current.constructor.name !== 'Error' ? current.constructor.name : (current.name ?? 'Error');
    const code = current.code !== undefined && typeof current.code !== 'number' ? ` [${current.code}]` : '';
    parts.push(`${name}${code}: ${current.message ?? String(current)}`);
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
 * Observation for an error the SDK threw. `reported` holds the errors the SDK passed to
 * `Client.onerror` before the call ended (transport-level failures are reported there first).
 */
function fromError(error, { phase, timeoutMs, reported }) {
  const where = { connect: 'connect (initialize) failed: ', list: 'listTools failed: ' }[phase] ?? 'callTool failed: ';
  const text = where + describe(error);

  // McpError: the SDK's JSON-RPC error class. The SDK also raises it for its own request timeout
  // (code RequestTimeout, data { timeout }), which is told apart by the data it carries.
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout && error.data?.timeout === timeoutMs) {
      return observation('TIMEOUT', null, null, text + withReported(reported, error));
    }
    return observation('JSONRPC_ERROR', null, error.code, text);
  }

  // StreamableHTTPError: the transport's HTTP failure class; `code` is the HTTP status, or -1 for
  // "Unexpected content type". The JSON-RPC code of an error body is only inside the message text,
  // not a field, so the adapter does not report one.
  if (error instanceof StreamableHTTPError) {
    if (error.code === -1 && /Unexpected content type/.test(error.message)) {
      return observation('UNEXPECTED_CONTENT_TYPE', null, null, text);
    }
    if (Number.isInteger(error.code) && error.code >= 100 && error.code <= 599) {
      return observation('HTTP_ERROR', error.code, null, text);
    }
    return observation('UNCLASSIFIED_ERROR', null, null, text);
  }

  // ZodError: a schema check failed. When the transport reported it through onerror it is the
  // transport's JSONRPCMessageSchema check of the incoming message (the envelope); otherwise it is
  // Protocol.request's check of the result against CallToolResultSchema.
  if (error?.name === 'ZodError' || Array.isArray(error?.issues)) {
    if (reported.includes(error)) {
      return observation('INVALID_ENVELOPE', null, null, `${where}the transport rejected the message as no JSON-RPC message: ${describe(error)}`);
    }
    return observation('INVALID_TOOL_RESULT', null, null, `${where}the result failed CallToolResultSchema: ${describe(error)}`);
  }

  // SyntaxError: JSON.parse of the response body (Response.json()).
  if (error instanceof SyntaxError) {
    return observation('MALFORMED_JSON', null, null, text);
  }

  // undici: `fetch failed` means fetch() itself rejected, before any response; `terminated` means
  // the body of a response that had started was cut off.
  if (error instanceof TypeError && error.message === 'fetch failed') {
    if (CONNECTION_CAUSES.has(causeCode(error))) {
      return observation('CONNECTION_ERROR', null, null, text);
    }
    return observation('UNCLASSIFIED_ERROR', null, null, text);
  }
  if (error instanceof TypeError && error.message === 'terminated') {
    return observation('STREAM_INCOMPLETE', null, null, text);
  }

  return observation('UNCLASSIFIED_ERROR', null, null, text + withReported(reported, error));
}

function withReported(reported, except) {
  const others = reported.filter((e) => e !== except);
  if (others.length === 0) return '';
  return `; the SDK reported via onerror: ${others.map(describe).join(' | ')}`;
}

function observation(outcome, status, code, detail) {
  const text = String(detail).replace(/\s+/g, ' ');
  return {
    outcome,
    status,
    code,
    detail: text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text,
  };
}

/**
 * Makes one tool call with the SDK and returns an observation object. Reusable for a persistent
 * mode: it keeps no state between calls.
 *
 * @param {string} endpoint  the MCP endpoint URL
 * @param {string} tool      the tool name
 * @param {object} args      the tool arguments
 * @param {string} version   the protocol version the case prefers (see below)
 * @param {number} timeoutMs the SDK request timeout for the call
 */
export async function observe(endpoint, tool, args, version, timeoutMs, listTools = false) {
  // The SDK negotiates LATEST_PROTOCOL_VERSION in `initialize` and offers no option to prefer
  // another one, so `version` cannot be honoured beyond what the SDK speaks. The adapter runs the
  // SDK as it is (a 2026-07-28 case is run over a 2025 session): the wire server answers
  // `initialize` in every era and the tools/call reply under test is the same.
  if (version && version !== LATEST_PROTOCOL_VERSION) {
    console.error(`note: ${version} requested; @modelcontextprotocol/sdk ${SDK_VERSION} speaks ${LATEST_PROTOCOL_VERSION}`);
  }
  const reported = [];
  const client = new Client({ name: 'mcp-error-layers-adapter', version: SDK_VERSION }, { capabilities: {} });
  client.onerror = (error) => {
    reported.push(error);
    console.error(`sdk onerror: ${describe(error)}`);
  };
  const transport = new StreamableHTTPClientTransport(new URL(endpoint));
  let phase = 'connect';
  try {
    // The case's timeout is for the call; the connect (initialize) keeps the SDK's default
    // request timeout, so that a slow start on a loaded machine is not reported as the call's.
    await client.connect(transport);
    if (listTools) {
      // As an application does to learn the tool's schemas (docs/adapters.md, list_tools).
      phase = 'list';
      await client.listTools();
    }
    phase = 'call';
    const result = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: timeoutMs });
    return fromResult(result);
  } catch (error) {
    return fromError(error, { phase, timeoutMs, reported });
  } finally {
    client.close().catch((error) => console.error(`close: ${describe(error)}`));
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
    throw new Error('usage: adapter.mjs <endpoint-url> (the call comes in MCP_ERROR_LAYERS_* variables)');
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
