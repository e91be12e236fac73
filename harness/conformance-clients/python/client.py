#!/usr/bin/env python3
"""A conformance client on the Python SDK (PyPI `mcp`, pinned in requirements.lock), written to
the contract of the official MCP conformance suite (github.com/modelcontextprotocol/conformance,
SDK_INTEGRATION.md and src/runner/client.ts):

- the server URL is the last argument;
- MCP_CONFORMANCE_SCENARIO names the scenario; this client knows `tools_call` only, in which it
  connects, lists the tools and calls `add_numbers` (or, when the server lists no tool of that
  name, the first tool listed, as the suite's own example client does) with {a, b};
- MCP_CONFORMANCE_PROTOCOL_VERSION picks the lifecycle: a version of the SDK's stateless era
  (2026-07-28) starts with `server/discover`, any other with the initialize handshake;
  MCP_CONFORMANCE_CONTEXT is read by clients whose scenarios need it;
- exit status 0 when the scenario ran, 1 with the error on stderr when it did not.

mcp-error-layers runs it with `--conformance-client "python client.py"`
(docs/conformance-clients.md).
"""

from __future__ import annotations

import os
import sys
import traceback

import anyio
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

# After the call, the SDK's teardown (the session's DELETE, its task groups) gets this long.
TEARDOWN_SECONDS = 2.0


async def tools_call(server_url: str) -> None:
    version = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "")
    with anyio.CancelScope() as bounded:
        async with streamable_http_client(server_url) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                if version in MODERN_PROTOCOL_VERSIONS:
                    await session.discover()
                else:
                    await session.initialize()
                listed = await session.list_tools()
                names = [tool.name for tool in listed.tools]
                if not names:
                    raise RuntimeError("tools/list listed no tool to call")
                name = "add_numbers" if "add_numbers" in names else names[0]
                result = await session.call_tool(name, {"a": 2, "b": 3})
                print(f"called {name}: {result!r}", file=sys.stderr)
                bounded.deadline = anyio.current_time() + TEARDOWN_SECONDS


SCENARIOS = {"tools_call": tools_call}


def main() -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    handler = SCENARIOS.get(scenario)
    if handler is None or len(sys.argv) < 2:
        print(f"Usage: MCP_CONFORMANCE_SCENARIO=tools_call client.py <server-url> (scenario: {scenario!r})", file=sys.stderr)
        return 1
    try:
        anyio.run(handler, sys.argv[-1])
    except BaseException as error:  # noqa: BLE001 - every failure is the scenario's
        traceback.print_exception(error, file=sys.stderr)
        print(f"Error: {error!r}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
