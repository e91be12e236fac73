"""mcp-error-layers adapter for smolagents' MCP client (PyPI `smolagents[mcp]`, pinned in
requirements.lock; it calls MCP through `mcpadapt`, which runs on the 1.x line of the official
`mcp` SDK).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py. The calls of a case run on
one client, kept between them by ../kept.py.

It witnesses what an application sees through the framework's documented entry point:
`MCPClient({"url": ..., "transport": "streamable-http"}, adapter_kwargs={...},
structured_output=False)` (which connects in its constructor: a thread with an event loop of its
own runs the session; initialize, tools/list, and tools/list again), then the named tool called as
smolagents tools are, `tool(**arguments)`, which blocks its caller until the session's loop thread
answers. The case's timeout goes into mcpadapt's documented session timeout, through
`adapter_kwargs`: `client_session_timeout_seconds` (each request's read timeout, the only timeout
that reaches a tool call). `connect_timeout` (how long the constructor waits for the connection)
keeps its default, 30 s, as every adapter keeps its client's connect defaults: a connect slowed
by a loaded machine must not be reported as the call's outcome. The HTTP timeouts keep mcp's defaults (smolagents passes
only the URL to `streamablehttp_client`). `structured_output=False` is today's default, set to
silence the warning that it will change. Over stdio the server parameters are mcp's
`StdioServerParameters(command=..., args=[...])`, the form the framework documents for a local
server: mcpadapt starts the server with mcp's `stdio_client` and stops it at `disconnect()`.

In an authorization case (`call.auth`, docs/adapters.md, "Credentials") the server parameters
get `"auth"`: the Python SDK's `OAuthClientProvider` (an `httpx.Auth`, ../contract.py's
`oauth_provider`) over a token storage seeded with the start credentials. mcpadapt documents the
dict as the parameters of mcp's client ("parameters to an sse MCP server", its README names
`headers` among them) and passes it, less `transport`, as keyword arguments to mcp 1.x's
`streamablehttp_client`, whose `auth` is mcp's documented OAuth entry point (README.md,
"Authorization"). mcpadapt deep-copies the dict, so the client works on a copy of the provider
and of its storage.

What an application keeps between calls is the `MCPClient` it constructed (and the tools it got
from it): one session, run by the client's own loop thread, for every call of a case, and
`disconnect()` after the last. The framework's calls are synchronous: the row makes them on a
worker thread (`asyncio.to_thread`), so that a call that never returns blocks only itself.

The tool returns the first content item (its text) whether or not the result had `isError`:
nothing says it was an error, so a returned value is TOOL_SUCCESS. The errors that reach the
caller are the `mcp` SDK's, unwrapped by `concurrent.futures` (`McpError`, pydantic's
`ValidationError`), mcpadapt's connect `TimeoutError` (raised for every failure to connect: the
error in the loop thread is not passed on), and the adapter's `ValueError` for an empty content.
"""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import sys
from importlib.metadata import version as package_version
from typing import Any, AsyncIterator

from mcp import StdioServerParameters
from mcp.shared.version import LATEST_PROTOCOL_VERSION
from mcpadapt.smolagents_adapter import _sanitize_function_name
from smolagents import MCPClient

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
import kept  # noqa: E402
import mcp1_surface  # noqa: E402 - how mcp 1.x, under the framework, surfaces a call
from contract import Call, observation  # noqa: E402

PACKAGE = "smolagents"


def from_returned(returned: Any) -> dict[str, Any]:
    """Observation for what the tool returned: the first content item (text as a `str`), the same
    for an `isError` result, so it is TOOL_SUCCESS (the detail shows the value)."""
    return observation("TOOL_SUCCESS", f"the tool returned a {contract.shown(returned)}")


def from_error(error: BaseException, steps: contract.Steps, timeout_s: float, stdio: bool = False) -> dict[str, Any]:
    """Observation for an exception the framework raised during `steps.now` (over stdio when
    `stdio`)."""
    # mcpadapt's connect TimeoutError is raised for any failure to connect (a refused connection,
    # an HTTP error, a timeout alike): it names no layer, so it stays UNCLASSIFIED_ERROR.
    return mcp1_surface.from_error(error, steps.where + contract.caught(error), steps, timeout_s, stdio=stdio)


def find(tools: list[Any], name: str) -> Any | None:
    """The tool the call names. mcpadapt renames tools to valid Python identifiers (dashes to
    underscores, other characters dropped), so an application finds it under that name."""
    wanted = {name, _sanitize_function_name(name)}
    return next((tool for tool in tools if tool.name in wanted), None)


class Smolagents(kept.Row):
    """The framework for the calls of a case: one `MCPClient` (its session on its own loop thread),
    constructed before the first call, each call a tool of it, `disconnect()` after the last."""

    def __init__(self) -> None:
        self._storages = contract.TokenStorages()

    def steps(self) -> contract.Steps:
        # The constructor is the connect and the listing at once; the call is `tool(**arguments)`.
        return contract.Steps(connect="MCPClient", list="MCPClient", call="tool call")

    @contextlib.asynccontextmanager
    async def open(self, call: Call) -> AsyncIterator[MCPClient]:
        if call.protocol_version != LATEST_PROTOCOL_VERSION:
            print(f"note: {call.protocol_version} requested; {PACKAGE} cannot be told a version: mcp {package_version('mcp')} offers {LATEST_PROTOCOL_VERSION} in initialize", file=sys.stderr)
        auth = None if call.auth is None else contract.oauth_provider(call, self._storages.storage(call))
        client = await asyncio.to_thread(connect, call, auth)
        try:
            yield client
        finally:
            # `disconnect()` joins the loop thread without a timeout: ../kept.py bounds the wait.
            await asyncio.to_thread(client.disconnect)

    async def call(self, client: MCPClient, call: Call, steps: contract.Steps) -> dict[str, Any]:
        self._storages.forget(call)
        tools = client.get_tools()
        tool = find(tools, call.tool)
        if tool is None:
            names = ", ".join(t.name for t in tools) or "none"
            return observation("UNCLASSIFIED_ERROR", f"MCPClient listed no tool named {call.tool!r} (got {names})")
        return from_returned(await asyncio.to_thread(lambda: tool(**call.arguments)))

    def error(self, error: BaseException, call: Call, steps: contract.Steps) -> dict[str, Any]:
        self._storages.forget(call)
        return from_error(error, steps, call.timeout_s, call.stdio)


def connect(call: Call, auth: Any | None = None) -> MCPClient:
    """The framework's client, connected (its constructor blocks until the session is ready);
    `auth`, an `httpx.Auth`, goes into its server parameters."""
    return MCPClient(
        server_parameters(call, auth),
        # mcpadapt applies the session timeout only when it is a float or a timedelta.
        adapter_kwargs={"client_session_timeout_seconds": call.timeout_s},
        structured_output=False,
    )


def server_parameters(call: Call, auth: Any | None = None) -> Any:
    """The framework's server parameters for the call: its streamable HTTP dict (with `auth` when
    given: mcp's `streamablehttp_client` parameter), or over stdio mcp's `StdioServerParameters`
    (its default environment subset, the server's stderr to ours)."""
    if call.stdio:
        return StdioServerParameters(command=call.program, args=call.program_args)
    if auth is not None:
        return {"url": call.endpoint, "transport": "streamable-http", "auth": auth}
    return {"url": call.endpoint, "transport": "streamable-http"}


if __name__ == "__main__":
    # The framework is imported above and the adapter takes no arguments of its own. The calls of
    # a case run on one client (../kept.py); the framework's blocking calls on worker threads.
    contract.main(lambda _arguments: kept.serving(Smolagents()), package=PACKAGE, transports=contract.TRANSPORTS)
