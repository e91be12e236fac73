#!/usr/bin/env node
// mcp-error-layers adapter for the official TypeScript SDK v2 (@modelcontextprotocol/client,
// pinned in package.json / package-lock.json).
//
// The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
// call per process or many at once, read and answered by ../contract.mjs.
//
// The adapter drives the SDK's public client API only (Client + StreamableHTTPClientTransport, or
// for a call over stdio StdioClientTransport({command, args}) from '@modelcontextprotocol/client/stdio';
// connect, callTool with the SDK's own `timeout` request option), with the SDK's default options,
// and maps what the SDK surfaces (its result, its typed errors SdkError / SdkHttpError /
// ProtocolError and their codes and fields) to an outcome. It never sees the case. The calls of
// a case run on one Client, connected for the first and closed after the last, as an
// application keeps its client (docs/adapters.md, "One client per case").
//
// The one choice it makes per client is the SDK's documented switch for the protocol era: a case
// that prefers 2026-07-28 gets `versionNegotiation: { mode: 'auto' }` (probe with server/discover,
// fall back to initialize); any other version gets the SDK's default ('legacy': initialize). Over
// stdio the same: in 'auto' mode the SDK probes on a disposable sibling server process of its own
// (its stdio negotiation), then starts the case's server for the session.
//
// In an authorization case (`call.auth`, docs/adapters.md "Credentials") the transport gets the
// SDK's documented auth entry point with its defaults: an `OAuthClientProvider` passed as
// `authProvider` to `StreamableHTTPClientTransport` (which adapts it itself, `adaptOAuthProvider`),
// a token store seeded once from the start credentials (`contract.oauthProvider`: v1's interface,
// whose methods v2's `OAuthClientProvider` keeps by name). The SDK decides on refresh, step-up and
// interactive authorization itself.

import {
  Client,
  LATEST_PROTOCOL_VERSION,
  OAuthClientFlowError,
  OAuthError,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import * as contract from '../contract.mjs';
import { observation } from '../contract.mjs';

const SDK = { name: '@modelcontextprotocol/client', version: contract.packageVersion('@modelcontextprotocol/client', import.meta.url) };

const MODERN = '2026-07-28';

/** Observation for a value the SDK returned from `callTool` (a `CallToolResult`). */
function fromResult(result) {
  if (result?.isError === true) {
    return observation('TOOL_ERROR', null, null, 'callTool returned a CallToolResult with isError: true');
  }
  return observation('TOOL_SUCCESS', null, null, 'callTool returned a CallToolResult');
}

/** One error of a cause chain: its class, its `code`, its message, an SdkError's `data`. */
function label(error) {
  const name = error.constructor?.name && error.constructor.name !== 'Error' ? error.constructor.name : (error.name ?? 'Error');
  const code = error.code !== undefined ? ` [${error.code}]` : '';
  const data = error instanceof SdkError && error.data !== undefined ? ` data=${safeJson(error.data)}` : '';
  return `${name}${code}: ${error.message ?? String(error)}${data}`;
}

const describe = (error) => contract.describe(error, label);

function safeJson(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
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
 * Observation for an error the SDK threw during `steps.now`. `reported` holds the errors the SDK
 * passed to `Client.onerror` before the call ended (transport-level failures are reported there
 * first).
 */
function fromError(error, { steps, reported }) {
  const grouped = contract.caught(error, describe, steps.where);
  if (grouped) return grouped;
  const where = steps.where;
  const text = where + describe(error) + reported.besides(error);

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
      // The transport closed under the request (over stdio: the server process ended; the SDK
      // says nothing of its exit code or signal), or was closed before it (the next call after).
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
        return observation('CONNECTION_ERROR', null, null, text);
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
    const inner = fromError(typedCause, { steps, reported });
    return observation(inner.outcome, inner.status, inner.code, text);
  }

  // UnauthorizedError: the SDK's "a user must authorize" (client/auth), thrown by the transport
  // when `auth()` ended in an interactive authorization (after a 401, or after a 403
  // insufficient_scope it tried to step up from). It carries no status, no field but its
  // message, so the application cannot tell a 401 from a 403 by it: no layer named. (A 401 that
  // survives a re-authorization, or a 403 past the step-up retry limit, is an SdkHttpError above.)
  if (error instanceof UnauthorizedError) {
    return observation('UNCLASSIFIED_ERROR', null, null, `${text} (UnauthorizedError carries no HTTP status: the SDK asked for an interactive authorization after a 401 or a 403 insufficient_scope)`);
  }

  // OAuthError: an error answer of the authorization server (a token request refused), thrown
  // through the call by `auth()`; its `code` is the OAuth error code, not the MCP server's status,
  // which the SDK does not pass on: no layer named.
  if (error instanceof OAuthError) {
    return observation('UNCLASSIFIED_ERROR', null, null, `${text} (OAuthError code ${JSON.stringify(error.code)}: the authorization server's answer; the MCP server's status is not carried)`);
  }

  // OAuthClientFlowError: the SDK's own refusal to go on with the OAuth flow (IssuerMismatchError:
  // metadata naming another issuer; AuthorizationServerMismatchError, InsecureTokenEndpointError,
  // RegistrationRejectedError, InsufficientScopeError). A local decision, no layer named.
  if (error instanceof OAuthClientFlowError) {
    return observation('UNCLASSIFIED_ERROR', null, null, `${text} (${error.name ?? 'OAuthClientFlowError'}, an OAuthClientFlowError: the SDK stopped its OAuth flow; the MCP server's status is not carried)`);
  }

  // ZodError: the transport's JSONRPCMessageSchema check of an incoming message (it reports it
  // through onerror too); the SDK validates results itself and raises SdkError InvalidResult.
  if (contract.isZod(error)) {
    return observation('INVALID_ENVELOPE', null, null, `${where}the transport rejected the message as no JSON-RPC message: ${describe(error)}`);
  }

  // SyntaxError: JSON.parse of the response body (Response.json()).
  if (error instanceof SyntaxError) {
    return observation('MALFORMED_JSON', null, null, text);
  }

  return observation(contract.fetchOutcome(error) ?? 'UNCLASSIFIED_ERROR', null, null, text);
}

/**
 * The SDK's client for the calls of a case (`contract.keeping`): one `Client` over one
 * `StreamableHTTPClientTransport`, or over stdio one `StdioClientTransport({command, args})` (the
 * SDK's defaults: its environment subset, the server's stderr inherited), connected before the
 * first call, closed after the last.
 * `reported` holds what the SDK passed to `Client.onerror` during the current call.
 */
const row = {
  steps: () => new contract.Steps({ connect: 'connect', list: 'listTools', call: 'callTool' }),

  async open(call) {
    const options = { capabilities: {} };
    if (call.protocolVersion === MODERN) {
      options.versionNegotiation = { mode: 'auto' };
    } else if (call.protocolVersion !== LATEST_PROTOCOL_VERSION) {
      console.error(`note: ${call.protocolVersion} requested; ${SDK.name} ${SDK.version} offers ${LATEST_PROTOCOL_VERSION} in initialize`);
    }
    const reported = new contract.Reported('onerror', describe);
    const client = new Client({ name: 'mcp-error-layers-adapter', version: SDK.version }, options);
    client.onerror = reported.listener;
    const kept = { client, reported };
    try {
      // The case's timeout is for the call; the connect keeps the SDK's default request timeout.
      const transport =
        call.transport === 'stdio'
          ? new StdioClientTransport(contract.stdioServer(call))
          : new StreamableHTTPClientTransport(new URL(call.endpoint), call.auth === null ? undefined : { authProvider: contract.oauthProvider(call.auth, describe) });
      await client.connect(transport);
      return kept;
    } catch (error) {
      client.close().catch((closing) => console.error(`close: ${describe(closing)}`));
      throw Object.assign(new ConnectFailed(), { error, kept });
    }
  },

  async call({ client, reported }, call, steps) {
    // What onerror got during an earlier call of the case is that call's, not this one's.
    reported.errors.length = 0;
    const result = await steps.listThenCall(
      call,
      () => client.listTools(),
      () => client.callTool({ name: call.tool, arguments: call.arguments }, { timeout: call.timeoutMs }),
    );
    return fromResult(result);
  },

  error(error, call, steps, client) {
    // A failed connect carries what it had made: its reports.
    const [thrown, kept] = error instanceof ConnectFailed ? [error.error, error.kept] : [error, client];
    return fromError(thrown, { steps, reported: kept.reported });
  },

  close: ({ client }) => client.close(),
};

/** A connect that failed, with what it had made (the row's `error` reads its reports). */
class ConnectFailed extends Error {}

contract.run(contract.keeping(row), { sdk: SDK, describeOne: describe, stdio: true });
