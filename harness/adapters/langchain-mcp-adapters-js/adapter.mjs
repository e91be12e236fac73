#!/usr/bin/env node
// mcp-error-layers adapter for LangChain.js's MCP adapters (@langchain/mcp-adapters, pinned in
// package.json / package-lock.json; it runs on the official TypeScript SDK v1,
// @modelcontextprotocol/sdk, through the lock).
//
// The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
// call per process or many at once, read and answered by ../contract.mjs.
//
// It witnesses what an application sees through the package's documented entry point with its
// defaults: `new MultiServerMCPClient({mcpServers: {s: {transport: 'http', url,
// defaultToolTimeout}}})` and `getTools()` (which connects and lists the tools: the framework has
// no other way) once per case, the named tool's `invoke(args)` for each of its calls, then
// `close()` after the last (docs/adapters.md, "One client per case"). The first call's timeout
// goes in `defaultToolTimeout`, the documented per-tool timeout, as an application configures its
// client once; the connect has no timeout option and keeps the SDK's default.
// `automaticSSEFallback` keeps its default (true): a 4xx while connecting makes the framework try
// the old SSE transport, which is what an application gets.
//
// In an authorization case (`call.auth`, docs/adapters.md "Credentials") the http connection gets
// the framework's documented OAuth entry point (its README, "OAuth 2.0 Authentication"):
// `authProvider`, an `OAuthClientProvider` of @modelcontextprotocol/sdk (`client/auth.js`) seeded
// once from the start credentials (`contract.oauthProvider`), which the framework hands to the SDK's
// StreamableHTTPClientTransport (and, on its SSE fallback, to SSEClientTransport) unchanged. The SDK
// decides on refresh, step-up and interactive authorization itself; what it throws reaches the
// application as the framework's MCPClientError or ToolException text, mapped as every other error.
//
// Over stdio (a call whose transport is stdio) the server definition is the framework's stdio one,
// `{transport: 'stdio', command, args, defaultToolTimeout}`, with its defaults otherwise (`restart`
// off: a server process that ended is not started again; the SDK's environment subset, the
// server's stderr inherited): the framework starts it with the SDK's StdioClientTransport.
//
// The framework's surface is narrow: `invoke` returns the tool's content (a string for one text
// block) or throws a `ToolException` whose message is the only information (the SDK error it
// wraps is turned into text: `Error calling tool <name>: <String(error)>`, no `cause`), and
// `getTools` throws `MCPClientError` (a message and `serverName`). Neither class is exported; the
// README tells applications to test `error.name`. No typed attribute names a layer, so every
// error is UNCLASSIFIED_ERROR with the class and message in `detail`.
//
// `--tool-call` (the row langchain-mcp-adapters-js+toolcall) calls the tool as an agent's tool
// node does: LangGraph's prebuilt `ToolNode` (made once per case from the tools, its default
// `handleToolErrors: true`) is invoked with an AIMessage that holds one ToolCall `{name, args, id,
// type: 'tool_call'}`; it runs `tool.invoke(toolCall)` and returns a ToolMessage. Its typed
// `status` is what the agent's model gets: 'success' is TOOL_SUCCESS, 'error' (every error the
// tool threw, caught by the node) is TOOL_ERROR, the content in `detail`. A bare
// `tool.invoke(toolCall)` throws as `invoke(args)` does: only the node catches.

import { AIMessage } from '@langchain/core/messages';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import * as contract from '../contract.mjs';
import { observation } from '../contract.mjs';

const FRAMEWORK = { name: '@langchain/mcp-adapters', version: contract.packageVersion('@langchain/mcp-adapters', import.meta.url) };
const SDK_VERSION = contract.packageVersion('@modelcontextprotocol/sdk', import.meta.url);
/** What @modelcontextprotocol/sdk 1.x offers in `initialize` (its LATEST_PROTOCOL_VERSION). */
const SDK_LATEST = '2025-11-25';

/** The one server of the client config; tools keep their own names (no server prefix by default). */
const SERVER = 's';

// The module that defines each error class an application can meet here, for `detail`: the
// classes are told by `error.name`, as the framework's README does.
const MODULE_OF = {
  ToolException: '@langchain/mcp-adapters',
  MCPClientError: '@langchain/mcp-adapters',
  ToolInputParsingException: '@langchain/core/tools',
};

/** One error of a cause chain as `module.Class: message`. */
function label(error) {
  const name = error.name && error.name !== 'Error' ? error.name : (error.constructor?.name ?? 'Error');
  const module = MODULE_OF[name];
  return `${module ? `${module}.` : ''}${name}: ${error.message ?? String(error)}`;
}

const describe = (error) => contract.describe(error, label);

/**
 * Observation for what `invoke` returned: the tool's content (a string when the result had one
 * text block, an array of content blocks otherwise). An `isError` result never gets here (the
 * framework throws a ToolException for it).
 */
function fromContent(content) {
  const shape = typeof content === 'string' ? `a string of ${content.length} characters` : `${JSON.stringify(content)?.slice(0, 200)}`;
  return observation('TOOL_SUCCESS', null, null, `invoke returned the content: ${shape}`);
}

/** Observation for an error thrown `where` (`getTools failed: ` or `invoke failed: `). */
function fromError(error, where) {
  const grouped = contract.caught(error, describe, where);
  if (grouped) return grouped;
  return observation('UNCLASSIFIED_ERROR', null, null, `${where}${describe(error)}`);
}

/** Whether the tool is called with a ToolCall through LangGraph's ToolNode (`--tool-call`). */
const TOOL_CALL = contract.rowArguments().includes('--tool-call');
/** LangGraph's prebuilt ToolNode, loaded only for `--tool-call` (before the announcement). */
const { ToolNode } = TOOL_CALL ? await import('@langchain/langgraph/prebuilt') : {};

/**
 * Observation for the ToolMessage the ToolNode returned: its `status` says whether the tool call
 * failed ('error': the node caught what the tool threw and wrote its message as the content).
 */
function fromToolMessage(message) {
  const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
  const outcome = message.status === 'error' ? 'TOOL_ERROR' : 'TOOL_SUCCESS';
  return observation(outcome, null, null, `ToolNode returned a ToolMessage with status ${JSON.stringify(message.status)}: ${content}`);
}

/** Makes one call with `tool` (and, for `--tool-call`, the kept `node`). */
async function invoke({ tool, node }, call) {
  if (!TOOL_CALL) return fromContent(await tool.invoke(call.arguments));
  // Each call its own ToolCall id, as a model gives each call it makes.
  const toolCall = { name: tool.name, args: call.arguments, id: `call_${call.client ?? 'once'}_${call.index}`, type: 'tool_call' };
  const { messages } = await node.invoke({ messages: [new AIMessage({ content: '', tool_calls: [toolCall] })] });
  return fromToolMessage(messages[0]);
}

/** A `getTools()` without the case's tool. */
class NoTool extends Error {}

/**
 * The framework's client for the calls of a case (`contract.keeping`): one MultiServerMCPClient
 * and the tools of its one `getTools()` (and the ToolNode made of them, for `--tool-call`), kept
 * between the calls.
 */
const row = {
  steps: () => new contract.Steps({ connect: 'getTools', list: 'getTools', call: TOOL_CALL ? 'ToolNode.invoke' : 'invoke' }),

  async open(call) {
    if (call.protocolVersion !== SDK_LATEST) {
      console.error(`note: ${call.protocolVersion} requested; ${FRAMEWORK.name} cannot be told a version: @modelcontextprotocol/sdk ${SDK_VERSION} offers ${SDK_LATEST} in initialize`);
    }
    const server =
      call.transport === 'stdio'
        ? { transport: 'stdio', ...contract.stdioServer(call), defaultToolTimeout: call.timeoutMs }
        : { transport: 'http', url: call.endpoint, defaultToolTimeout: call.timeoutMs, ...(call.auth === null ? {} : { authProvider: contract.oauthProvider(call.auth, describe) }) };
    const client = new MultiServerMCPClient({ mcpServers: { [SERVER]: server } });
    try {
      const tools = await client.getTools();
      toolOf(tools, call);
      return { client, tools, node: TOOL_CALL ? new ToolNode(tools) : undefined };
    } catch (error) {
      client.close().catch((closing) => console.error(`close: ${describe(closing)}`));
      throw error;
    }
  },

  async call(kept, call, steps) {
    const tool = toolOf(kept.tools, call);
    steps.now = 'call';
    return invoke({ tool, node: kept.node }, call);
  },

  error: (error, _call, steps) => (error instanceof NoTool ? observation('UNCLASSIFIED_ERROR', null, null, error.message) : fromError(error, steps.where)),

  close: ({ client }) => client.close(),
};

/** The call's tool among `tools` (what `getTools()` gave), or NoTool. */
function toolOf(tools, call) {
  const tool = tools.find((t) => t.name === call.tool);
  if (tool) return tool;
  const got = tools.map((t) => t.name).join(', ') || 'none';
  throw new NoTool(`getTools returned no tool named ${JSON.stringify(call.tool)} (got ${got})`);
}

contract.run(contract.keeping(row), { sdk: FRAMEWORK, options: '[--tool-call]', describeOne: describe, stdio: true });
