"""mcp-error-layers adapter for Pydantic AI's MCP toolset (PyPI `pydantic-ai-slim[mcp]`, pinned in
requirements.lock).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py. The calls of a case run on
one `MCPToolset`, kept between them by ../kept.py, as an application keeps the toolset it
constructed (and its agent with it).

The adapter drives Pydantic AI's documented single-call API with its defaults:
`MCPToolset(url, read_timeout=t, init_timeout=t)` (over stdio
`MCPToolset(StdioTransport(command=..., args=[...]), read_timeout=t, init_timeout=t)`, a FastMCP
transport as the toolset documents and as its own `load_mcp_toolsets` builds for a `command`
entry; `toolset.client.close()` after the block stops the server, see
../fastmcp/fastmcp_surface.py's `closed_after`) entered once as an async context manager
(`async with toolset:`, which holds one FastMCP session open for every call inside it), then
`toolset.direct_call_tool(name, args)` for each call with the default
`tool_error_behavior='retry'`. The toolset is a FastMCP `Client` underneath (fastmcp-slim 4.x on
the official `mcp` 2.x): it turns a tool's `isError` result, FastMCP's `ToolError` and every
`MCPError` of the call into `pydantic_ai.exceptions.ModelRetry`, the "retry the model" signal,
and lets everything else through as FastMCP raised it, which ../fastmcp/fastmcp_surface.py maps.
It never sees the case.

In an authorization case (docs/adapters.md, "Credentials") the toolset is built with its documented
`auth=` argument, "an `httpx2.Auth`": the official `mcp` SDK's `OAuthClientProvider` over a token
storage seeded from the start credentials (../contract.py's `oauth_provider`), which FastMCP's
`StreamableHttpTransport` puts on its httpx2 client unchanged. Refresh, step-up and discovery are
the provider's.
"""

from __future__ import annotations

import contextlib
import pathlib
import sys
from typing import Any

from fastmcp.client.transports import StdioTransport
from pydantic_ai.exceptions import ModelRetry
from pydantic_ai.mcp import MCPToolset

# The FastMCP row's kept client and mapping (../fastmcp/fastmcp_surface.py), which puts
# ../contract.py and ../kept.py on the path too.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent / "fastmcp"))
import fastmcp_surface  # noqa: E402
import contract  # noqa: E402
import kept  # noqa: E402
from contract import Call, observation  # noqa: E402

PACKAGE = "pydantic-ai-slim"


def from_result(returned: Any) -> dict[str, Any]:
    """Observation for what `direct_call_tool` returned: the tool's result mapped for the model
    (text, a dict, a list of parts). An error result never returns with the default behaviour."""
    return observation("TOOL_SUCCESS", f"direct_call_tool returned a {type(returned).__name__}")


def from_error(first: BaseException, text: str, steps: contract.Steps, *, stdio: bool = False) -> dict[str, Any]:
    """Observation for an exception the application caught from the toolset during `steps.now`,
    as it caught it (over stdio when `stdio`)."""
    if isinstance(first, ModelRetry):
        # The one signal for a tool's isError result, FastMCP's ToolError and every MCPError of the
        # call: it carries only `message`, nothing typed that names the layer (a raised error is
        # its __cause__, an isError result has none), so the detail shows both.
        return observation("UNCLASSIFIED_ERROR", text)
    return fastmcp_surface.from_error(first, text, steps, stdio=stdio)


class PydanticAi(fastmcp_surface.Row):
    """One `MCPToolset` for the calls of a case, entered before the first call and left after the
    last: its `async with` connects its FastMCP `Client`, each call is `direct_call_tool`."""

    def __init__(self) -> None:
        super().__init__(from_error, call_step="direct_call_tool")
        # The token storage of each authorization case's toolset (../contract.py).
        self._storages = contract.TokenStorages()

    def open(self, call: Call) -> contextlib.AbstractAsyncContextManager[MCPToolset]:
        # The FastMCP Client under the toolset negotiates the era itself (mode="auto", its default).
        print(f"protocol version {call.protocol_version!r} requested; the FastMCP client negotiates its own (mode='auto')", file=sys.stderr)
        # read_timeout is the FastMCP Client's `timeout` (mcp's session read timeout, per request,
        # the call's included; default 300 s); init_timeout bounds the connect (default 5 s). mcp's
        # server/discover probe keeps its own fixed 10 s, cut short by init_timeout. Both are the
        # toolset's, set once from the case's first call: direct_call_tool takes no timeout.
        if not call.stdio:
            if call.auth is None:
                return MCPToolset(call.endpoint, read_timeout=call.timeout_s, init_timeout=call.timeout_s)
            # An authorization case: `auth=` takes "an httpx2.Auth" (MCPToolset.__init__'s
            # docstring), here the mcp SDK's OAuthClientProvider over the case's seeded storage,
            # with its defaults. (`auth='oauth'` builds FastMCP's `OAuth`, a subclass of the same
            # provider, over an in-memory store that starts empty and a browser flow: a fresh
            # sign-in, not the tokens a user left behind.)
            provider = contract.oauth_provider(call, self._storages.storage(call))
            return MCPToolset(call.endpoint, read_timeout=call.timeout_s, init_timeout=call.timeout_s, auth=provider)
        # Over stdio: FastMCP's transport starts the server with mcp's `stdio_client` (its default
        # environment subset, its stderr to ours); the toolset's timeouts mean what they mean over HTTP.
        toolset = MCPToolset(StdioTransport(command=call.program, args=call.program_args), read_timeout=call.timeout_s, init_timeout=call.timeout_s)
        return fastmcp_surface.closed_after(toolset, toolset.client)

    async def call(self, toolset: MCPToolset, call: Call, steps: contract.Steps) -> dict[str, Any]:
        self._storages.forget(call)
        returned = await steps.list_then_call(call, toolset.list_tools, lambda: toolset.direct_call_tool(call.tool, call.arguments))
        return from_result(returned)


if __name__ == "__main__":
    # Pydantic AI is imported above and the adapter takes no arguments of its own. Each toolset
    # lives on a thread and an asyncio loop of its own (../kept.py), many at once in persistent mode.
    contract.main(lambda _arguments: kept.serving(PydanticAi()), package=PACKAGE, transports=contract.TRANSPORTS)
