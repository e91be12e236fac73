"""mcp-error-layers adapter for FastMCP's client (PyPI `fastmcp`, pinned in requirements.lock).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py. The calls of a case run on
one `Client`, kept between them by ../kept.py, as an application keeps the client it constructed.

The adapter drives FastMCP's documented client API with its defaults: `Client(url, timeout=t)`
(over stdio `Client(StdioTransport(command=..., args=[...]), timeout=t)`, which starts the server
through mcp's `stdio_client`; `client.close()` after the block stops it, see
fastmcp_surface.closed_after) entered once as an async context manager (`async with client:`;
the default `mode="auto"`: a `server/discover` probe, then the initialize handshake when the
server is not a modern one), then `client.call_tool(name, args, timeout=t)` for each call with
the default `raise_on_error=True`. What FastMCP surfaces (the returned result, or the exception
and its fields) is mapped by fastmcp_surface.py beside this file. It never sees the case.
"""

from __future__ import annotations

import contextlib
import pathlib
import sys
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

sys.path.append(str(pathlib.Path(__file__).resolve().parent))
import fastmcp_surface  # noqa: E402  (it puts ../contract.py and ../kept.py on the path too)
import contract  # noqa: E402
import kept  # noqa: E402
from contract import Call  # noqa: E402

PACKAGE = "fastmcp"


class FastMcp(fastmcp_surface.Row):
    """One FastMCP `Client` for the calls of a case, entered before the first call and left after
    the last: its `async with` connects (and negotiates the era), each call is `call_tool`."""

    def __init__(self) -> None:
        super().__init__(fastmcp_surface.from_error)

    def open(self, call: Call) -> contextlib.AbstractAsyncContextManager[Client]:
        # FastMCP negotiates the era itself (mode="auto", the default): the case's version is not forced.
        print(f"protocol version {call.protocol_version!r} requested; FastMCP negotiates its own (mode='auto')", file=sys.stderr)
        # `timeout` is FastMCP's per-request timeout (mcp's session read timeout), set once from the
        # case's first call: it bounds the handshake's initialize too, but not mcp's server/discover
        # probe, which has a fixed 10 s of its own. `init_timeout` keeps its default (none). Each
        # call passes its own `timeout`, the documented per-call override.
        if not call.stdio:
            return Client(call.endpoint, timeout=call.timeout_s)
        # Over stdio: the transport starts the server with mcp's `stdio_client` (its default
        # environment subset, its stderr to ours).
        client = Client(StdioTransport(command=call.program, args=call.program_args), timeout=call.timeout_s)
        return fastmcp_surface.closed_after(client, client)

    async def call(self, client: Client, call: Call, steps: contract.Steps) -> dict[str, Any]:
        returned = await steps.list_then_call(call, client.list_tools, lambda: client.call_tool(call.tool, call.arguments, timeout=call.timeout_s))
        return fastmcp_surface.from_result(returned)


if __name__ == "__main__":
    # FastMCP is imported above and the adapter takes no arguments of its own. Each client lives on
    # a thread and an asyncio loop of its own (FastMCP's client needs asyncio; ../kept.py), many at
    # once in persistent mode.
    contract.main(lambda _arguments: kept.serving(FastMcp()), package=PACKAGE, transports=contract.TRANSPORTS)
