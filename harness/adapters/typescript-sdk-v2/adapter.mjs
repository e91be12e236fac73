#!/usr/bin/env node
// mcp-error-layers adapter for the official TypeScript SDK v2 (@modelcontextprotocol/client,
// pinned in package.json / package-lock.json).
//
// One-shot contract (docs/adapters.md): the endpoint URL is the last argument; the call comes in
// MCP_ERROR_LAYERS_TOOL, MCP_ERROR_LAYERS_ARGUMENTS, MCP_ERROR_LAYERS_PROTOCOL_VERSION and
// MCP_ERROR_LAYERS_TIMEOUT_MS; with MCP_ERROR_LAYERS_LIST_TOOLS=1 it lists the tools first.
// Exactly one JSON line goes to stdout; everything else to stderr.
// With MCP_ERROR_LAYERS_MODE=persistent it announces persistent mode and serves request lines.
//
// The adapter drives the SDK's public client API only (Client + StreamableHTTPClientTransport,
// connect, callTool with the SDK's own `timeout` request option), with the SDK's default options,
// and maps what the SDK surfaces (its result, its typed errors SdkError / SdkHttpError /
// ProtocolError and their codes and fields) to an outcome. It never sees the case.
//
// The one choice it makes per call is the SDK's documented switch for the protocol era: a case
// that prefers 2026-07-28 gets `versionNegotiation: { mode: 'auto' }` (probe with server/discover,
// fall back to initialize); any other version gets the SDK's default ('legacy': initialize).

import {
  Client,
  LATEST_PROTOCOL_VERSION,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serve } from '../serving.mjs';

const SDK_VERSION = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/client/package.json', import.meta.url)),
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

/** Observation for a value the SDK returned from `callTool` (a `CallToolResult`). */
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

/** An error and its cause chain as text. */
function describe(error) {
  if (error === null || error === undefined) return String(error);
  if (Array.isArray(error.issues)) return zodSummary(error);
  const parts = [];
  let current = error;
  for (let depth = 0; current && depth < 4; depth += 1) {
    const name = current.constructor?.name && current.constructor.name !== 'Error' ? current.constructor.name : (current.name ?? 'Error');
    const code = current.code !== undefined ? ` [${current.code}]` : '';
    const data = current instanceof SdkError && current.data !== undefined ? ` data=${safeJson(current.data)}` : '';
    parts.push(`${name}${code}: ${current.message ?? String(current)}${data}`);
    current = current.cause;
  }
  return parts.join(' <- caused by ');
}

function safeJson(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function causeCode(error) {
  let current = error?.cause;
  for (let depth = 0; current && depth < 4; depth += 1) {
    if (typeof current.code === 'string') return current.code;
    current = current.cause;
  }
  return undefined;
}

/** The first error in `error`'s cause chain (itself included) that satisfies `test`. */
function inChain(error, test) {
  let current = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    if (test(current)) return current;
    current = current.cause;
  }
  return undefined;
}

/**
 * Observation for an error the SDK threw. `reported` holds the errors the SDK passed to
 * `Client.onerror` before the call ended (transport-level failures are reported there first).
 */
function fromError(error, { phase, reported }) {
  const where = { connect: 'connect failed: ', list: 'listTools failed: ' }[phase] ?? 'callTool failed: ';
  const text = where + describe(error) + withReported(reported, error);

  // ProtocolError: a JSON-RPC error response from the peer (and its subclasses).
  if (error instanceof ProtocolError) {
    return observation('JSONRPC_ERROR', null, error.code, text);
  }

  // SdkHttpError: the transport's HTTP failure, with the status as a field. The JSON-RPC code of
  // an error body is only in `data.text`, the raw body, so `code` stays null.
  if (error instanceof SdkHttpError) {
    return observation('HTTP_ERROR', error.status, null, text);
  }

  // SdkError: a local error with a documented string code.
  if (error instanceof SdkError) {
    switch (error.code) {
      case SdkErrorCode.RequestTimeout:
        return observation('TIMEOUT', null, null, text);
      case SdkErrorCode.ClientHttpUnexpectedContent:
        return observation('UNEXPECTED_CONTENT_TYPE', null, null, text);
      case SdkErrorCode.InvalidResult:
        return observation('INVALID_TOOL_RESULT', null, null, text);
      case SdkErrorCode.UnsupportedResultType:
        // `data.resultType` names the kind: `input_required` is a call that needs input;
        // any other kind is a result the client cannot consume.
        if (error.data?.resultType === 'input_required') {
          return observation('INPUT_REQUIRED', null, null, text);
        }
        return observation('INVALID_TOOL_RESULT', null, null, text);
      case SdkErrorCode.InputRequiredRoundsExceeded:
        return observation('INPUT_REQUIRED', null, null, text);
      default:
        break;
    }
    // An SdkError that wraps a typed cause (EraNegotiationFailed over a fetch failure, say) is
    // classified by the cause below; otherwise it is unclassified.
    const typedCause = inChain(error.cause, (e) => e instanceof ProtocolError || e instanceof SdkError || e instanceof TypeError || e instanceof SyntaxError);
    if (!typedCause) return observation('UNCLASSIFIED_ERROR', null, null, text);
    const inner = fromError(typedCause, { phase, reported: [] });
    return observation(inner.outcome, inner.status, inner.code, text);
  }

  // ZodError: the transport's JSONRPCMessageSchema check of an incoming message (it reports it
  // through onerror too); the SDK validates results itself and raises SdkError InvalidResult.
  if (error?.name === 'ZodError' || Array.isArray(error?.issues)) {
    return observation('INVALID_ENVELOPE', null, null, `${where}the transport rejected the message as no JSON-RPC message: ${describe(error)}`);
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

  return observation('UNCLASSIFIED_ERROR', null, null, text);
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
 * Makes one tool call with the SDK and returns an observation object. Keeps no state between
 * calls (persistent mode calls it once per request line).
 */
export async function observe(endpoint, tool, args, version, timeoutMs, listTools = false) {
  const options = { capabilities: {} };
  if (version === MODERN) {
    options.versionNegotiation = { mode: 'auto' };
  } else if (version && version !== LATEST_PROTOCOL_VERSION) {
    console.error(`note: ${version} requested; @modelcontextprotocol/client ${SDK_VERSION} offers ${LATEST_PROTOCOL_VERSION} in initialize`);
  }
  const reported = [];
  const client = new Client({ name: 'mcp-error-layers-adapter', version: SDK_VERSION }, options);
  client.onerror = (error) => {
    reported.push(error);
    console.error(`sdk onerror: ${describe(error)}`);
  };
  const transport = new StreamableHTTPClientTransport(new URL(endpoint));
  let phase = 'connect';
  try {
    // The case's timeout is for the call; the connect keeps the SDK's default request timeout.
    await client.connect(transport);
    if (listTools) {
      // As an application does to learn the tool's schemas (docs/adapters.md, list_tools).
      phase = 'list';
      await client.listTools();
    }
    phase = 'call';
    const result = await client.callTool({ name: tool, arguments: args }, { timeout: timeoutMs });
    return fromResult(result);
  } catch (error) {
    return fromError(error, { phase, reported });
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
