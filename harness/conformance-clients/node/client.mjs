#!/usr/bin/env node
// A conformance client on the official TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package.json and package-lock.json), written to the contract of the official MCP conformance
// suite (github.com/modelcontextprotocol/conformance, SDK_INTEGRATION.md and
// src/runner/client.ts):
//
// - the server URL is the last argument;
// - MCP_CONFORMANCE_SCENARIO names the scenario; this client knows `tools_call` only, in which it
//   connects, lists the tools and calls `add_numbers` (or, when the server lists no tool of that
//   name, the first tool listed, as the suite's own example client does) with {a, b};
// - MCP_CONFORMANCE_PROTOCOL_VERSION and MCP_CONFORMANCE_CONTEXT are read by clients whose
//   scenarios need them; SDK 1.x connects over the initialize handshake in every version;
// - exit status 0 when the scenario ran, 1 with the error on stderr when it did not.
//
// mcp-error-layers runs it with `--conformance-client "node client.mjs"`
// (docs/conformance-clients.md).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

async function toolsCall(serverUrl) {
  const client = new Client({ name: 'mcp-error-layers-conformance-client', version: '0.0.0' }, { capabilities: {} });
  const transport = new StreamableHTTPClientTransport(new URL(serverUrl));
  await client.connect(transport);
  const listed = await client.listTools();
  const tool = listed.tools.find((t) => t.name === 'add_numbers') ?? listed.tools[0];
  if (!tool) {
    throw new Error('tools/list listed no tool to call');
  }
  const result = await client.callTool({ name: tool.name, arguments: { a: 2, b: 3 } });
  console.error(`called ${tool.name}: ${JSON.stringify(result)}`);
  await transport.close();
}

const scenarios = { tools_call: toolsCall };

async function main() {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  const serverUrl = process.argv.at(-1);
  const handler = scenarios[scenario];
  if (!handler || process.argv.length < 3) {
    console.error(`Usage: MCP_CONFORMANCE_SCENARIO=tools_call client.mjs <server-url> (scenario: ${scenario})`);
    process.exit(1);
  }
  try {
    await handler(serverUrl);
    process.exit(0);
  } catch (error) {
    console.error(error);
    // The last line says why on its own: the harness quotes it in the report.
    console.error(`Error: ${error?.message ?? error}`.split('\n')[0]);
    process.exit(1);
  }
}

main();
