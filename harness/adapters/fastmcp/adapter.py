"""mcp-error-layers adapter for FastMCP's client (PyPI `fastmcp`, pinned in requirements.lock).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py.

The adapter drives FastMCP's documented client API with its defaults: `Client(url, timeout=t)` as
an async context manager (the default `mode="auto"`: a `server/discover` probe, then the
initialize handshake when the server is not a modern one), then `client.call_tool(name, args,
timeout=t)` with the default `raise_on_error=True`. What FastMCP surfaces (the returned result, or
the exception and its fields) is mapped by fastmcp_surface.py beside this file. It never sees the
case.
"""

from __future__ import annotations

import asyncio
import pathlib
import sys
from typing import Any

from fastmcp import Client

sys.path.append(str(pathlib.Path(__file__).resolve().parent))
import fastmcp_surface  # noqa: E402  (it puts ../contract.py on the path too)
import contract  # noqa: E402
from contract import Call  # noqa: E402

PACKAGE = "fastmcp"


async def observe(call: Call) -> dict[str, Any]:
    """Makes one tool call with FastMCP and returns an observation dict."""
    # FastMCP negotiates the era itself (mode="auto", the default): the case's version is not forced.
    print(f"protocol version {call.protocol_version!r} requested; FastMCP negotiates its own (mode='auto')", file=sys.stderr)
    # `timeout` is FastMCP's per-request timeout (mcp's session read timeout): it bounds the
    # handshake's initialize too, but not mcp's server/discover probe, which has a fixed 10 s of
    # its own. `init_timeout` keeps its default (none). The call passes `timeout` again, the
    # documented per-call override.
    client = Client(call.endpoint, timeout=call.timeout_s)
    return await fastmcp_surface.observe(
        call,
        client,
        list_tools=client.list_tools,
        call_tool=lambda: client.call_tool(call.tool, call.arguments, timeout=call.timeout_s),
        from_result=fastmcp_surface.from_result,
        map_error=fastmcp_surface.from_error,
    )


if __name__ == "__main__":
    # FastMCP is imported above and the adapter takes no arguments of its own: each call is one
    # `asyncio.run` (FastMCP's client needs asyncio; in persistent mode, many at once on threads).
    contract.main(lambda _arguments: lambda call: asyncio.run(observe(call)), package=PACKAGE)
