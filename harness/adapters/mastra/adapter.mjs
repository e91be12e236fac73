#!/usr/bin/env node
// mcp-error-layers adapter for Mastra's MCP client (@mastra/mcp 2.x with @mastra/core, pinned in
// package.json / package-lock.json; it runs on the official TypeScript SDK v2,
// @modelcontextprotocol/client, which @mastra/mcp pins exactly). @mastra/mcp 2.x needs Node >=
// 22.13: this program runs on the Node 22 that node22/ installs from the npm registry.
//
// The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
// call per process or many at once, read and answered by ../contract.mjs.
//
// It witnesses what an application sees through the documented entry point with its defaults:
// `new MCPClient({id, servers: {s: {url, timeout, connectTimeout}}, timeout})` and `listTools()`
// (tools keyed `${server}_${tool}`) once per case, the tool's `execute(args)` (core 1.x:
// `execute(inputData, context)`, the context optional) for each of its calls, then `disconnect()`
// after the last (docs/adapters.md, "One client per case"). The first call's timeout goes in every
// documented timeout, as an application configures its client once: `timeout` (each request,
// tools/call included) and `connectTimeout` (the connect, default 3000 ms). The protocol version
// is left to Mastra's default ('auto': probe with server/discover, fall back to initialize). Each
// client gets an `id` of its own: a second MCPClient with the same id and another config
// disconnects the first, which would end another case's client.
//
// Over stdio (a call whose transport is stdio) the server definition is Mastra's stdio one,
// `{command, args, timeout}` (its defaults otherwise: the SDK's environment subset, the server's
// stderr inherited; `connectTimeout` is an HTTP setting, and the stdio connect takes `timeout`):
// Mastra starts the server with @modelcontextprotocol/client's StdioClientTransport. Its
// reconnect-and-retry covers the stdio messages too ("connection closed", "not connected"): a
// server process that ended is started again by Mastra itself, and the tools/call re-sent.
//
// What `execute` surfaces, and how it maps:
// - it resolves to the tool's value: the CallToolResult, or its structuredContent when there is
//   one; or to core's validation error object `{error: true, message, validationErrors}` (input,
//   output, request context alike: nothing typed says which), returned, not thrown;
// - it throws MastraError `MCP_CLIENT_TOOL_EXECUTION_FAILED` for an `isError` result (the default
//   `onToolError: 'throw'`): its `id` names the tool layer;
// - it rethrows whatever the SDK threw (ProtocolError, SdkHttpError, SdkError and its codes, the
//   transport's ZodError) as it is, after one reconnect-and-retry of the tools/call when the
//   message matches Mastra's list of transport words (`isReconnectableMCPError`): those typed
//   errors are what the application holds, and they are mapped as the typescript-sdk-v2 row maps
//   them.
// `listTools()` never throws for a server: a server that fails to connect or list is left out, so
// the application finds no tool.
//
// In an authorization case (`call.auth`, docs/adapters.md "Credentials") the HTTP server
// definition gets Mastra's documented auth entry point, `authProvider`, with the provider its
// reference names for it ("OAuth authentication"): Mastra's own `MCPOAuthClientProvider`, with its
// defaults (its in-memory `OAuthStorage`), the pre-registered client as `clientInformation`, and the
// start tokens saved into it once (`tokenStore`) as the provider saves the tokens of a sign-in:
// bound to the issuer of the authorization server (`saveTokens(tokens, {issuer})`). Its
// `onRedirectToAuthorization` is the contract's one GET (`contract.oauthProvider`). The SDK
// decides on refresh, step-up and interactive authorization itself.

import { MCPClient, MCPOAuthClientProvider } from '@mastra/mcp';
import { MastraError } from '@mastra/core/error';
import { OAuthClientFlowError, OAuthError, ProtocolError, SdkError, SdkErrorCode, SdkHttpError, UnauthorizedError } from '@modelcontextprotocol/client';
import * as contract from '../contract.mjs';
import { observation } from '../contract.mjs';

const FRAMEWORK = { name: '@mastra/mcp', version: contract.packageVersion('@mastra/mcp', import.meta.url) };

/** The one server of the client config: listTools keys its tools `${SERVER}_${tool}`. */
const SERVER = 's';

/** The MastraError id of an `isError` result (the default `onToolError: 'throw'`). */
const TOOL_EXECUTION_FAILED = 'MCP_CLIENT_TOOL_EXECUTION_FAILED';

/** SdkError codes that name an outcome; any other code is unclassified (or its cause decides). */
const SDK_CODE_OUTCOME = {
  [SdkErrorCode.RequestTimeout]: 'TIMEOUT',
  [SdkErrorCode.ClientHttpUnexpectedContent]: 'UNEXPECTED_CONTENT_TYPE',
  [SdkErrorCode.InvalidResult]: 'INVALID_TOOL_RESULT',
  [SdkErrorCode.InputRequiredRoundsExceeded]: 'INPUT_REQUIRED',
  // The transport closed under the request (over stdio: the server process ended), or before it.
  [SdkErrorCode.ConnectionClosed]: 'CONNECTION_ERROR',
  [SdkErrorCode.NotConnected]: 'CONNECTION_ERROR',
};

/** The module that exports `error`'s class, as a prefix for `detail`. */
function modulePrefix(error) {
  if (error instanceof MastraError) return '@mastra/core/error.';
  if (error instanceof SdkError || error instanceof ProtocolError) return '@modelcontextprotocol/client.';
  return '';
}

/** One error of a cause chain as `module.Class [code or id]: message`. */
function label(error) {
  const name = error.constructor?.name && error.constructor.name !== 'Error' ? error.constructor.name : (error.name ?? 'Error');
  const module = modulePrefix(error);
  const tag = error instanceof MastraError ? error.id : error.code;
  return `${module}${name}${tag !== undefined ? ` [${tag}]` : ''}: ${error.message ?? String(error)}`;
}

const describe = (error) => contract.describe(error, label);

/** Observation for what `execute` resolved to. */
function fromValue(value) {
  if (value?.error === true && 'validationErrors' in value) {
    return observation('UNCLASSIFIED_ERROR', null, null, `execute returned @mastra/core's validation error object (not thrown): ${value.message}`);
  }
  const shape = value?.content !== undefined ? 'a CallToolResult' : 'the structuredContent';
  return observation('TOOL_SUCCESS', null, null, `execute returned ${shape}${value?.isError !== undefined ? ` (isError: ${JSON.stringify(value.isError)})` : ''}`);
}

/**
 * Outcome, status and code for an error the SDK typed (or Node's fetch, under it); undefined for
 * any other error.
 */
function sdkOutcome(error) {
  if (error instanceof ProtocolError) return ['JSONRPC_ERROR', null, error.code];
  if (error instanceof SdkHttpError) return ['HTTP_ERROR', error.status, null];
  if (error instanceof SdkError && error.code === SdkErrorCode.UnsupportedResultType) {
    // `data.resultType` names the kind: `input_required` is a call that needs input.
    return [error.data?.resultType === 'input_required' ? 'INPUT_REQUIRED' : 'INVALID_TOOL_RESULT', null, null];
  }
  if (error instanceof SdkError && SDK_CODE_OUTCOME[error.code]) return [SDK_CODE_OUTCOME[error.code], null, null];
  // ZodError: the SDK's transport checks each incoming message against its JSON-RPC message
  // schema (results are checked apart, as SdkError InvalidResult), so it names the envelope.
  if (contract.isZod(error)) return ['INVALID_ENVELOPE', null, null];
  if (error instanceof SyntaxError) return ['MALFORMED_JSON', null, null];
  const fetched = contract.fetchOutcome(error);
  return fetched ? [fetched, null, null] : undefined;
}

/** Outcome, status and code of the first error in `error`'s cause chain (itself included) that is typed. */
function typedOutcome(error) {
  let current = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    const found = sdkOutcome(current);
    if (found) return found;
    current = current.cause;
  }
  return ['UNCLASSIFIED_ERROR', null, null];
}

/**
 * What `detail` adds for the SDK's auth errors, which name no layer (UNCLASSIFIED_ERROR, as in the
 * typescript-sdk-v2 row): UnauthorizedError ("a user must authorize": `auth()` ended in an
 * interactive authorization, after a 401 or a 403 insufficient_scope) carries no status;
 * OAuthError (a token request the authorization server refused) carries the OAuth error `code`,
 * not the MCP server's status; OAuthClientFlowError (IssuerMismatchError,
 * AuthorizationServerMismatchError, ...) is the SDK's own refusal to go on.
 */
function authNote(error) {
  if (error instanceof UnauthorizedError) return ' (UnauthorizedError carries no HTTP status: the SDK asked for an interactive authorization after a 401 or a 403 insufficient_scope)';
  if (error instanceof OAuthError) return ` (OAuthError code ${JSON.stringify(error.code)}: the authorization server's answer; the MCP server's status is not carried)`;
  if (error instanceof OAuthClientFlowError) return ` (${error.name ?? 'OAuthClientFlowError'}, an OAuthClientFlowError: the SDK stopped its OAuth flow; the MCP server's status is not carried)`;
  return '';
}

/** Observation for an error thrown `where` (`execute failed: `, say). */
function fromError(error, where) {
  const grouped = contract.caught(error, describe, where);
  if (grouped) return grouped;
  const text = `${where}${describe(error)}${authNote(error)}`;
  if (error instanceof MastraError) {
    const outcome = error.id === TOOL_EXECUTION_FAILED ? 'TOOL_ERROR' : 'UNCLASSIFIED_ERROR';
    return observation(outcome, null, null, text);
  }
  const [outcome, status, code] = typedOutcome(error);
  return observation(outcome, status, code, text);
}

/** A `listTools()` without the case's tool: the application never got a tool to call. */
class NoTool extends Error {}

/** The call's tool among `tools` (what `listTools()` gave), or NoTool. */
function toolOf(tools, call) {
  const key = `${SERVER}_${call.tool}`;
  if (tools[key]) return tools[key];
  const got = Object.keys(tools).join(', ') || 'none';
  throw new NoTool(`listTools returned no tool ${key} (got ${got}): it leaves out a server that failed, without an error`);
}

let clients = 0;

/**
 * The `authProvider` of an authorization case: Mastra's `MCPOAuthClientProvider` with its defaults
 * (an `InMemoryOAuthStorage`), the pre-registered client (`clientInformation`: the id, and the
 * secret of a confidential client) and the contract's redirect URI and client metadata, holding
 * the start tokens as it holds those of a sign-in: saved with the authorization server's issuer
 * (the credentials' `authorization_server`), under that issuer and as the latest set. The SDK
 * reads them by issuer before a refresh. `onRedirectToAuthorization` sends the contract's one GET.
 */
async function tokenStore(auth) {
  const store = contract.oauthProvider(auth, describe);
  const provider = new MCPOAuthClientProvider({
    redirectUrl: store.redirectUrl,
    clientMetadata: store.clientMetadata,
    clientInformation: store.clientInformation(),
    onRedirectToAuthorization: (url) => store.redirectToAuthorization(url),
  });
  const issuer = auth.authorization_server;
  await provider.saveTokens({ ...store.tokens(), issuer }, { issuer });
  return provider;
}

/**
 * Mastra's client for the calls of a case (`contract.keeping`): one `MCPClient` and the tools its
 * `listTools()` gave, kept between the calls; the tool's `execute` for each call.
 */
const row = {
  steps: () => new contract.Steps({ connect: 'listTools', list: 'listTools', call: 'execute' }),

  async open(call) {
    console.error(`note: ${call.protocolVersion} requested; ${FRAMEWORK.name} is left at its default protocolVersion (auto: server/discover first)`);
    clients += 1;
    const server =
      call.transport === 'stdio'
        ? { ...contract.stdioServer(call), timeout: call.timeoutMs }
        : {
            url: new URL(call.endpoint),
            timeout: call.timeoutMs,
            connectTimeout: call.timeoutMs,
            ...(call.auth === null ? {} : { authProvider: await tokenStore(call.auth) }),
          };
    const mcp = new MCPClient({
      id: `mcp-error-layers-${process.pid}-${clients}`,
      servers: { [SERVER]: server },
      timeout: call.timeoutMs,
    });
    try {
      const tools = await mcp.listTools();
      // A server that failed is left out without an error: with no tool, the application has
      // nothing to keep, and its next call starts again.
      toolOf(tools, call);
      return { mcp, tools };
    } catch (error) {
      mcp.disconnect().catch((closing) => console.error(`disconnect: ${describe(closing)}`));
      throw error;
    }
  },

  async call({ tools }, call, steps) {
    const tool = toolOf(tools, call);
    steps.now = 'call';
    return fromValue(await tool.execute(call.arguments));
  },

  error: (error, _call, steps) => (error instanceof NoTool ? observation('UNCLASSIFIED_ERROR', null, null, error.message) : fromError(error, steps.where)),

  close: ({ mcp }) => mcp.disconnect(),
};

contract.run(contract.keeping(row), { sdk: FRAMEWORK, describeOne: describe, stdio: true });
