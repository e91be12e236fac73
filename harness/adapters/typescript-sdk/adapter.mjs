#!/usr/bin/env node
// mcp-error-layers adapter for the official TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package.json / package-lock.json).
//
// The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
// call per process or many at once, read and answered by ../contract.mjs.
//
// The adapter drives the SDK's public client API only (Client + StreamableHTTPClientTransport,
// or StdioClientTransport({command, args}) with its defaults for a call over stdio; connect,
// callTool with the SDK's own `timeout` request option) and maps what the SDK surfaces to an
// outcome. It never sees the case, so the mapping looks at nothing but the SDK's return value,
// its error classes and fields, and what the SDK reported through `Client.onerror`.
//
//   adapter.mjs [--tasks] <endpoint-url | stdio>
//
// In an authorization case (`call.auth`, docs/adapters.md "Credentials") the transport gets the
// SDK's documented auth entry point with its defaults: an `OAuthClientProvider`
// (`@modelcontextprotocol/sdk/client/auth.js`) passed as `authProvider` to
// `StreamableHTTPClientTransport`, a token store seeded once from the start credentials
// (`contract.oauthProvider`). The SDK decides on refresh, step-up and interactive authorization itself.
//
// `--tasks` (the row typescript-sdk+tasks) runs a call that asks for a task (docs/adapters.md,
// "Tasks") through the SDK's experimental task API, `client.experimental.tasks.callToolStream`,
// with `{task: {ttl}}`; without it such a call is `unsupported`, as the SDK's default `callTool`
// has no task option.

import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { CallToolResultSchema, ErrorCode, LATEST_PROTOCOL_VERSION, McpError } from '@modelcontextprotocol/sdk/types.js';
import * as contract from '../contract.mjs';
import { observation } from '../contract.mjs';

const SDK = { name: '@modelcontextprotocol/sdk', version: contract.packageVersion('@modelcontextprotocol/sdk', import.meta.url) };

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

/** One error of a cause chain: its class, its `code` when that is no number, its message. */
function label(error) {
  const name = error.constructor?.name && error.constructor.name !== 'Error' ? error.constructor.name : (error.name ?? 'Error');
  const code = error.code !== undefined && typeof error.code !== 'number' ? ` [${error.code}]` : '';
  return `${name}${code}: ${error.message ?? String(error)}`;
}

const describe = (error) => contract.describe(error, label);

/**
 * Observation for an error the SDK threw during `steps.now`. `reported` holds the errors the SDK
 * passed to `Client.onerror` before the call ended (transport-level failures are reported there
 * first); `closed` says when `Client.onclose` fired (the transport closed: over stdio, the server
 * process ended), undefined while it has not.
 */
function fromError(error, { steps, timeoutMs, reported, closed }) {
  const grouped = contract.caught(error, describe, steps.where);
  if (grouped) return grouped;
  const where = steps.where;
  const text = where + describe(error);

  // McpError: the SDK's JSON-RPC error class. The SDK also raises it for its own request timeout
  // (code RequestTimeout, data { timeout }), which is told apart by the data it carries, and for a
  // transport that closed under a request in flight (code ConnectionClosed, -32000, "Connection
  // closed": over stdio, the server process ended), which is told apart from a peer's -32000 by
  // `Client.onclose` having fired (`closed`); the SDK does not say with what exit code or signal.
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout && error.data?.timeout === timeoutMs) {
      return observation('TIMEOUT', null, null, text + reported.besides(error));
    }
    if (error.code === ErrorCode.ConnectionClosed && closed) {
      return observation('CONNECTION_ERROR', null, null, `${text} (${closed}; the SDK reports no exit code or signal)${reported.besides(error)}`);
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

  // UnauthorizedError: the SDK's class for "a user must authorize" (client/auth.js). The transport
  // throws it when `auth()` ended in an interactive authorization (after a 401, or after a 403
  // insufficient_scope it tried to step up from); it carries no status, no field but its message,
  // so the application cannot tell a 401 from a 403 by it: no layer named. What went to onerror
  // beside it (the SDK's GET stream asking too) arrives before or after the call ends, so it stays
  // on stderr, not in `detail`.
  if (error instanceof UnauthorizedError) {
    return observation('UNCLASSIFIED_ERROR', null, null, `${text} (UnauthorizedError carries no HTTP status: the SDK asked for an interactive authorization after a 401 or a 403 insufficient_scope)`);
  }

  // OAuthError: an error answer of the authorization server (a token request refused), thrown
  // through the call by `auth()`; its `errorCode` is the OAuth error code, not the MCP server's
  // status, which the SDK does not pass on: no layer named.
  if (error instanceof OAuthError) {
    return observation('UNCLASSIFIED_ERROR', null, null, `${text} (OAuthError errorCode ${JSON.stringify(error.errorCode)}: the authorization server's answer; the MCP server's status is not carried)`);
  }

  // ZodError: a schema check failed. When the transport reported it through onerror it is the
  // transport's JSONRPCMessageSchema check of the incoming message (the envelope); otherwise it is
  // Protocol.request's check of the result against CallToolResultSchema.
  if (contract.isZod(error)) {
    if (reported.includes(error)) {
      return observation('INVALID_ENVELOPE', null, null, `${where}the transport rejected the message as no JSON-RPC message: ${describe(error)}`);
    }
    return observation('INVALID_TOOL_RESULT', null, null, `${where}the result failed CallToolResultSchema: ${describe(error)}`);
  }

  // SyntaxError: JSON.parse of the response body (Response.json()).
  if (error instanceof SyntaxError) {
    return observation('MALFORMED_JSON', null, null, text);
  }

  const fetched = contract.fetchOutcome(error);
  if (fetched) return observation(fetched, null, null, text);
  // A plain Error: the SDK's "Not connected" for a request on a client whose transport closed
  // (the next call after the server process ended) has no class or code of its own.
  const gone = closed === undefined ? '' : ` (${closed})`;
  return observation('UNCLASSIFIED_ERROR', null, null, text + gone + reported.besides(error));
}

/**
 * The call as a task: `callToolStream` yields `taskCreated`, `taskStatus` (one per `tasks/get`),
 * then one `result` or `error`; the statuses it yields are pushed to `seen`. The SDK applies
 * `timeout` to each request, not to the polling, and checks `signal` only between polls: the
 * adapter's own deadline (the call's timeout) ends the call as an application's would.
 */
async function callAsTask(client, call, seen) {
  const ttl = call.task.ttl_ms;
  const options = { task: ttl === undefined ? {} : { ttl }, timeout: call.timeoutMs, signal: AbortSignal.timeout(call.timeoutMs) };
  const stream = client.experimental.tasks.callToolStream({ name: call.tool, arguments: call.arguments }, CallToolResultSchema, options);
  const polled = (async () => {
    for await (const message of stream) {
      if (message.type === 'taskCreated') seen.push(`created ${message.task.status}`);
      if (message.type === 'taskStatus') seen.push(message.task.status);
      if (message.type === 'result') return { result: message.result };
      if (message.type === 'error') throw message.error;
    }
    throw new Error('callToolStream ended without a result or an error');
  })();
  // A failure after the deadline won is the SDK's business: it must not surface as unhandled.
  polled.catch(() => {});
  let timer;
  const deadline = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ timedOut: true }), call.timeoutMs);
  });
  try {
    return await Promise.race([polled, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** `obs` with the task statuses the stream yielded added to its detail. */
function withStatuses(obs, seen) {
  return seen.length ? { ...obs, detail: `${obs.detail} (task statuses: ${seen.join(', ')})` } : obs;
}

/**
 * The SDK's client for the calls of a case (`contract.keeping`): one `Client` over one
 * `StreamableHTTPClientTransport`, or over stdio one `StdioClientTransport({command, args})` (the
 * SDK's defaults: its environment subset, the server's stderr inherited), connected (initialize)
 * before the first call, closed after the last. `reported` holds what the SDK passed to
 * `Client.onerror` during the current call; `closed` says when `Client.onclose` fired.
 */
const row = {
  steps: (call) => new contract.Steps({ connect: 'connect (initialize)', list: 'listTools', call: call.task === null ? 'callTool' : 'callToolStream' }),

  async open(call) {
    // The SDK negotiates LATEST_PROTOCOL_VERSION in `initialize` and offers no option to prefer
    // another one, so the case's version cannot be honoured beyond what the SDK speaks. The
    // adapter runs the SDK as it is (a 2026-07-28 case is run over a 2025 session): the wire
    // server answers `initialize` in every era and the tools/call reply under test is the same.
    if (call.protocolVersion !== LATEST_PROTOCOL_VERSION) {
      console.error(`note: ${call.protocolVersion} requested; ${SDK.name} ${SDK.version} speaks ${LATEST_PROTOCOL_VERSION}`);
    }
    const reported = new contract.Reported('onerror', describe);
    const client = new Client({ name: 'mcp-error-layers-adapter', version: SDK.version }, { capabilities: {} });
    client.onerror = reported.listener;
    const kept = { client, reported, seen: [], closed: undefined, calls: 0, closing: false };
    client.onclose = () => {
      if (kept.closing) return; // the adapter's own close after the case's last call
      kept.closed = `Client.onclose fired during ${kept.calls === 0 ? 'the connect' : `call ${kept.calls - 1} of the case`}`;
      console.error(`sdk onclose: ${kept.closed}`);
    };
    try {
      // The case's timeout is for the call; the connect (initialize) keeps the SDK's default
      // request timeout, so that a slow start on a loaded machine is not reported as the call's.
      const transport =
        call.transport === 'stdio'
          ? new StdioClientTransport(contract.stdioServer(call))
          : new StreamableHTTPClientTransport(new URL(call.endpoint), call.auth === null ? undefined : { authProvider: contract.oauthProvider(call.auth, describe) });
      await client.connect(transport);
      return kept;
    } catch (error) {
      kept.closing = true;
      client.close().catch((closing) => console.error(`close: ${describe(closing)}`));
      throw Object.assign(new ConnectFailed(), { error, kept });
    }
  },

  async call(kept, call, steps) {
    const { client, reported, seen } = kept;
    reported.errors.length = 0;
    seen.length = 0;
    kept.calls += 1;
    if (call.task !== null) {
      // The SDK decides on `params.task` by the tool's execution.taskSupport, which it learns
      // from tools/list: list first, as its task API expects.
      steps.now = 'list';
      await client.listTools();
      steps.now = 'call';
      const ended = await callAsTask(client, call, seen);
      if (ended.timedOut) {
        const text = `callToolStream had no result within the call's timeout of ${call.timeoutMs} ms (the adapter's deadline around it)`;
        return withStatuses(observation('TIMEOUT', null, null, text), seen);
      }
      return withStatuses(fromResult(ended.result), seen);
    }
    const result = await steps.listThenCall(
      call,
      () => client.listTools(),
      () => client.callTool({ name: call.tool, arguments: call.arguments }, undefined, { timeout: call.timeoutMs }),
    );
    return fromResult(result);
  },

  error(error, call, steps, client) {
    // A failed connect carries what it had made: its reports.
    const [thrown, kept] = error instanceof ConnectFailed ? [error.error, error.kept] : [error, client];
    return withStatuses(fromError(thrown, { steps, timeoutMs: call.timeoutMs, reported: kept.reported, closed: kept.closed }), kept.seen);
  },

  close(kept) {
    kept.closing = true;
    return kept.client.close();
  },
};

/** A connect that failed, with what it had made (the row's `error` reads its reports). */
class ConnectFailed extends Error {}

const TASKS = process.argv.slice(2).includes('--tasks');
contract.run(contract.keeping(row), { sdk: SDK, options: '[--tasks]', describeOne: describe, tasks: TASKS, stdio: true });
