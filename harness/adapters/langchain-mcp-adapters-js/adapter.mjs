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
// defaultToolTimeout}}})`, `getTools()` (which connects and lists the tools: the framework has no
// other way), the named tool's `invoke(args)`, then `close()`. The case's timeout goes in
// `defaultToolTimeout`, the documented per-tool timeout; the connect has no timeout option and
// keeps the SDK's default. `automaticSSEFallback` keeps its default (true): a 4xx while connecting
// makes the framework try the old SSE transport, which is what an application gets.
//
// The framework's surface is narrow: `invoke` returns the tool's content (a string for one text
// block) or throws a `ToolException` whose message is the only information (the SDK error it
// wraps is turned into text: `Error calling tool <name>: <String(error)>`, no `cause`), and
// `getTools` throws `MCPClientError` (a message and `serverName`). Neither class is exported; the
// README tells applications to test `error.name`. No typed attribute names a layer, so every
// error is UNCLASSIFIED_ERROR with the class and message in `detail`.

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

/** Observation for an error thrown during `where` ('getTools' or 'invoke'). */
function fromError(error, where) {
  return observation('UNCLASSIFIED_ERROR', null, null, `${where} failed: ${describe(error)}`);
}

/** Makes one tool call through the framework and returns an observation object. */
async function observe(call) {
  if (call.protocolVersion !== SDK_LATEST) {
    console.error(`note: ${call.protocolVersion} requested; ${FRAMEWORK.name} cannot be told a version: @modelcontextprotocol/sdk ${SDK_VERSION} offers ${SDK_LATEST} in initialize`);
  }
  const client = new MultiServerMCPClient({
    mcpServers: { [SERVER]: { transport: 'http', url: call.endpoint, defaultToolTimeout: call.timeoutMs } },
  });
  let where = 'getTools';
  try {
    const tools = await client.getTools();
    const tool = tools.find((t) => t.name === call.tool);
    if (!tool) {
      const got = tools.map((t) => t.name).join(', ') || 'none';
      return observation('UNCLASSIFIED_ERROR', null, null, `getTools returned no tool named ${JSON.stringify(call.tool)} (got ${got})`);
    }
    where = 'invoke';
    return fromContent(await tool.invoke(call.arguments));
  } catch (error) {
    return fromError(error, where);
  } finally {
    client.close().catch((error) => console.error(`close: ${describe(error)}`));
  }
}

contract.run(observe, { sdk: FRAMEWORK, describeOne: describe });
