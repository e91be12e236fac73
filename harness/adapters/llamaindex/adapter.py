"""mcp-error-layers adapter for LlamaIndex's MCP client (PyPI `llama-index-tools-mcp`, pinned in
requirements.lock; it runs on the 2.x line of the official `mcp` SDK).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py.

It witnesses what an application sees through the package's documented client with its defaults:
`BasicMCPClient(url, timeout=t)`, then `await client.call_tool(name, arguments)` (and, when the
call asks, `await client.list_tools()` first). Each method opens a session of its own (mcp's
`streamable_http_client` and `ClientSession`, `initialize()`, the request, then the session's
DELETE). `timeout` is the client's one timeout: the HTTP timeout and the session's read timeout
of every request; `sse_read_timeout` keeps its default (300 s). The client returns mcp's
`CallToolResult` unchanged and lets mcp's errors through unchanged, so both are mapped as the
SDK's are.
"""

from __future__ import annotations

import pathlib
import sys
from typing import Any

import anyio
from llama_index.tools.mcp import BasicMCPClient
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
import mcp2_surface  # noqa: E402 - how mcp 2.x, which the client hands on, surfaces a call
from contract import Call  # noqa: E402

PACKAGE = "llama-index-tools-mcp"
# What mcp 2.x offers in `initialize` (its newest handshake version): BasicMCPClient always
# initializes, never `server/discover`.
HANDSHAKE_VERSION = HANDSHAKE_PROTOCOL_VERSIONS[-1]


def from_error(error: BaseException, steps: contract.Steps) -> dict[str, Any]:
    """Observation for an exception raised out of `list_tools` or `call_tool`: mcp's own, which
    the client lets through unchanged."""
    first, text = contract.unwrap(error)
    return mcp2_surface.from_error(first, steps.where + text, steps)


async def observe(call: Call) -> dict[str, Any]:
    """Makes one tool call through the client and returns an observation dict."""
    if call.protocol_version != HANDSHAKE_VERSION:
        print(f"note: {call.protocol_version} requested; {PACKAGE} cannot be told a version: it always initializes, offering {HANDSHAKE_VERSION}", file=sys.stderr)
    client = BasicMCPClient(call.endpoint, timeout=call.timeout_s)
    # Each method connects on its own: a failure to connect is reported after its method's name.
    steps = contract.Steps(connect="call_tool", list="list_tools", call="call_tool")
    try:
        returned = await steps.list_then_call(call, client.list_tools, lambda: client.call_tool(call.tool, call.arguments))
        return mcp2_surface.from_result(returned)
    except Exception as error:  # noqa: BLE001 - every error the application receives is an observation
        return from_error(error, steps)


if __name__ == "__main__":
    # The client is imported above and the adapter takes no arguments of its own: each call is one
    # `anyio.run` (in persistent mode on a thread of its own, many at once).
    contract.main(lambda _arguments: lambda call: anyio.run(observe, call), package=PACKAGE)
