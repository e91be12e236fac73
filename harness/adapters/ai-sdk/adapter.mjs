#!/usr/bin/env node
// mcp-error-layers adapter for the Vercel AI SDK's MCP client (@ai-sdk/mcp, pinned in
// package.json / package-lock.json). It has its own Streamable HTTP transport; it does not use
// @modelcontextprotocol/*.
//
// The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
// call per process or many at once, read and answered by ../contract.mjs. The calls of a case run
// on one client (createMCPClient), made for the first and closed after the last, as an
// application keeps its client (docs/adapters.md, "One client per case").
//
//   adapter.mjs [--max-retries N] <endpoint-url | stdio>
//
// Over stdio (a call whose transport is stdio) the client is `createMCPClient({transport: new
// StdioMCPTransport({command, args})})`, the SDK's stdio transport from '@ai-sdk/mcp/mcp-stdio'
// (`Experimental_StdioMCPTransport` is its deprecated alias), with its defaults (its environment
// subset, the server's stderr inherited); everything else as over HTTP.
//
// In an authorization case (`call.auth`, docs/adapters.md "Credentials") the HTTP transport config
// gets the SDK's documented auth entry point, `transport: {type: 'http', url, authProvider}`: an
// `OAuthClientProvider` (the SDK's own interface, `@ai-sdk/mcp` oauth.ts, which keeps the
// TypeScript SDK's method names) seeded once from the start credentials (`tokenStore`: the
// contract's `oauthProvider`, with the start tokens bound to their authorization server as the SDK
// binds every token set it saves). The SDK decides on refresh and interactive authorization itself.
//
// `--max-retries N` sets createMCPClient's `maxRetries` (default: not passed, the SDK's 0): that
// is the variant ai-sdk+retries2. Nothing else departs from the SDK's defaults except the era
// switch the SDK documents, per client: a case that prefers a 2025 version gets
// `protocolVersionDiscovery: false` (initialize first); 2026-07-28 keeps the default (probe with
// server/discover, fall back to initialize).
//
// The mapping reads the SDK's typed surface only: the CallToolResult, MCPClientError's `statusCode`
// (HTTP status) and `code` (JSON-RPC code), its `cause` chain, and what the SDK reported through
// `onUncaughtError`. The one exception is the SDK's own request timeout, an MCPClientError with no
// field but its message, which is recognised only as the exact text the SDK builds for the
// timeout this adapter passed (`Request timed out after <timeout>ms`).

import { MCPClientError, MCPClientOAuthError, UnauthorizedError, createMCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import * as contract from '../contract.mjs';
import { observation } from '../contract.mjs';

const SDK = { name: '@ai-sdk/mcp', version: contract.packageVersion('@ai-sdk/mcp', import.meta.url) };

const MODERN = '2026-07-28';

/** `--max-retries N` among the row's arguments, or undefined. */
function maxRetriesArg(argv) {
  const i = argv.indexOf('--max-retries');
  if (i < 0) return undefined;
  const n = Number.parseInt(argv[i + 1], 10);
  if (!Number.isInteger(n) || n < 0) throw new Error('--max-retries needs a non-negative integer');
  return n;
}

const MAX_RETRIES = maxRetriesArg(contract.rowArguments());
const RETRY = MAX_RETRIES === undefined ? 'maxRetries: 0 (the default)' : `maxRetries: ${MAX_RETRIES}`;

/** Observation for a value the SDK returned from `callTool`. */
function fromResult(result) {
  if (result?.isError === true) {
    return observation('TOOL_ERROR', null, null, 'callTool returned a CallToolResult with isError: true');
  }
  return observation('TOOL_SUCCESS', null, null, 'callTool returned a CallToolResult');
}

/** One error of a cause chain: its name, its `statusCode` and `code`, its message. */
function label(error) {
  const name = error.name && error.name !== 'Error' ? error.name : (error.constructor?.name ?? 'Error');
  const fields = [];
  if (error.statusCode !== undefined) fields.push(`statusCode ${error.statusCode}`);
  if (error.code !== undefined) fields.push(`code ${error.code}`);
  const tag = fields.length ? ` [${fields.join(', ')}]` : '';
  return `${name}${tag}: ${error.message ?? String(error)}`;
}

/** The JSON-RPC error object the SDK keeps as the cause of a peer's error adds nothing. */
function causeIsJsonRpcError(error) {
  const cause = error.cause;
  return Boolean(cause) && !(cause instanceof Error) && typeof cause === 'object' && 'code' in cause && 'message' in cause;
}

const describe = (error) => contract.describe(error, label, { depth: 5, last: causeIsJsonRpcError });

/**
 * The outcome of one error (no detail), or undefined when nothing typed classifies it. `reported`
 * holds what the SDK passed to onUncaughtError (the transport's own failures go there first).
 */
function classify(error, { steps, timeoutMs, reported }) {
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
    const inner = error.cause === undefined ? undefined : classify(error.cause, { steps, timeoutMs, reported });
    if (inner) return inner;
    return { outcome: 'UNCLASSIFIED_ERROR', status, code: null };
  }

  // ZodError: the transport's JSONRPCMessageSchema check of an incoming message reports it via
  // onUncaughtError first; one that was not reported is the client's result schema check, which
  // is the tool result's only during callTool (during createMCPClient it is the initialize or
  // server/discover result: unclassified).
  if (contract.isZod(error)) {
    if (reported.includes(error)) return { outcome: 'INVALID_ENVELOPE', status: null, code: null };
    if (steps.now === 'call') return { outcome: 'INVALID_TOOL_RESULT', status: null, code: null };
    return undefined;
  }

  // JSON that does not parse: AI_JSONParseError (provider-utils' parseJSON, SSE data) or the
  // SyntaxError of Response.json() (a JSON body).
  if (error?.name === 'AI_JSONParseError' || error instanceof SyntaxError) {
    return { outcome: 'MALFORMED_JSON', status: null, code: null };
  }

  // Node's fetch: a connection that failed or a body that broke off; a fetch failure without a
  // known cause is left to the caller, as any other error.
  const fetched = contract.fetchOutcome(error);
  if (fetched && fetched !== 'UNCLASSIFIED_ERROR') return { outcome: fetched, status: null, code: null };
  return undefined;
}

function fromError(error, { steps, timeoutMs, reported }) {
  const grouped = contract.caught(error, describe, steps.where);
  if (grouped) return grouped;
  const text = steps.where + describe(error) + reported.besides(error, error?.cause);
  // UnauthorizedError: the SDK's "a user must authorize" (oauth.ts), thrown by the transport when
  // `auth()` after a 401 ended in an interactive authorization ('REDIRECT'). No status, no field
  // but its message.
  if (error instanceof UnauthorizedError) {
    return observation('UNCLASSIFIED_ERROR', null, null, `${text} (UnauthorizedError carries no HTTP status: the SDK asked for an interactive authorization after a 401)`);
  }
  // MCPClientOAuthError (and its subclasses InvalidGrantError, InvalidClientError, ServerError,
  // AuthorizationServerMismatchError): a failure of the OAuth flow the transport ran after a 401,
  // thrown through the call; it names the authorization server's answer (its class), not the MCP
  // server's status.
  if (MCPClientOAuthError.isInstance(error)) {
    return observation('UNCLASSIFIED_ERROR', null, null, `${text} (${error.constructor?.name ?? 'MCPClientOAuthError'}: the OAuth flow's failure; the MCP server's status is not carried)`);
  }
  const c = classify(error, { steps, timeoutMs, reported }) ?? { outcome: 'UNCLASSIFIED_ERROR', status: null, code: null };
  return observation(c.outcome, c.status, c.code, text);
}

/**
 * The SDK's client for the calls of a case (`contract.keeping`): one `createMCPClient`, made
 * before the first call, every call of the case on it, closed after the last. Each call's steps
 * carry its own `reported`: what the SDK passed to onUncaughtError while that call (or the
 * connect) ran; what it reports between calls or on close goes to stderr only.
 */
const row = {
  steps: () =>
    Object.assign(new contract.Steps({ connect: 'createMCPClient', list: 'listTools', call: 'callTool' }), {
      reported: reportedNow(),
    }),

  async open(call, steps) {
    const kept = { client: undefined, reported: steps.reported, closing: undefined };
    const config = {
      transport:
        call.transport === 'stdio'
          ? new StdioMCPTransport(contract.stdioServer(call))
          : { type: 'http', url: call.endpoint, ...(call.auth === null ? {} : { authProvider: tokenStore(call.auth) }) },
      // To the collector of the call (or connect) running now.
      onUncaughtError: (error) => kept.reported.listener(error),
    };
    if (MAX_RETRIES !== undefined) config.maxRetries = MAX_RETRIES;
    if (call.protocolVersion !== MODERN) {
      // The SDK's switch for a legacy server: initialize without the server/discover probe. It
      // offers 2025-11-25 in initialize whatever 2025 version the case prefers.
      config.protocolVersionDiscovery = false;
      if (call.protocolVersion !== '2025-11-25') console.error(`note: ${call.protocolVersion} requested; ${SDK.name} ${SDK.version} offers 2025-11-25 in initialize`);
    }
    // The case's timeout is for the call; the connect keeps the SDK's defaults.
    kept.client = await createMCPClient(config);
    return kept;
  },

  async call(kept, call, steps) {
    kept.reported = steps.reported;
    try {
      const result = await steps.listThenCall(
        call,
        () => kept.client.listTools(),
        () => kept.client.callTool({ name: call.tool, arguments: call.arguments, options: { timeout: call.timeoutMs } }),
      );
      return { ...fromResult(result), retry: RETRY };
    } finally {
      kept.reported = reportedNow();
      // The last call awaits the close, as an application does (`await client.close()`): in a
      // 2025 session it sends the DELETE that ends the session, so that the server sees the
      // same requests on every run.
      if (call.isLast) await closeOnce(kept);
    }
  },

  error: (error, call, steps) => ({ ...fromError(error, { steps, timeoutMs: call.timeoutMs, reported: steps.reported }), retry: RETRY }),

  close: closeOnce,
};

/**
 * The `authProvider` of an authorization case: the contract's token store (`contract.oauthProvider`:
 * the TypeScript SDK's `OAuthClientProvider`, whose required methods the AI SDK's interface keeps
 * by name), with two things the AI SDK needs of a store that its own sign-in would have left:
 * - the start tokens carry the binding to the authorization server that issued them (`issuer`,
 *   `authorization_server`, `token_endpoint`), which the SDK adds to every token set it saves
 *   (oauth.ts, `addAuthorizationServerInformationToTokens`) and checks before a refresh; a refresh
 *   token without it is never used (the SDK asks the store to clear it, and throws when it stays).
 *   The issuer is the credentials' `authorization_server`, the token endpoint their
 *   `token_endpoint`;
 * - `saveAuthorizationServerInformation` (and `authorizationServerInformation` to read it back),
 *   in memory: the SDK saves the authorization server it is about to send the user to before it
 *   calls `redirectToAuthorization`, and throws instead when the store can save neither that nor
 *   client information.
 * Nothing else departs from the contract's store: no `invalidateCredentials`, no
 * `saveClientInformation` (the client is pre-registered), no `state`.
 */
function tokenStore(auth) {
  const store = contract.oauthProvider(auth, describe);
  const issuer = auth.authorization_server;
  store.saveTokens({ ...store.tokens(), issuer, authorization_server: issuer, token_endpoint: auth.token_endpoint });
  let server;
  store.authorizationServerInformation = () => server;
  store.saveAuthorizationServerInformation = (information) => {
    server = information;
  };
  return store;
}

/** A fresh collector of what the SDK passes to onUncaughtError. */
function reportedNow() {
  return new contract.Reported('onUncaughtError', describe);
}

/** Closes the kept client once (the last call and `contract.keeping` may both ask). */
function closeOnce(kept) {
  kept.closing ??= closeWithin(kept.client, CLOSE_BOUND_MS);
  return kept.closing;
}

/** Bounded so that a close that never finishes is not taken for a hang of the call. */
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

contract.run(contract.keeping(row), { sdk: SDK, options: '[--max-retries N]', describeOne: describe, stdio: true });
