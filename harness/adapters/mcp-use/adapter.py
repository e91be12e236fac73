"""mcp-error-layers adapter for mcp-use (PyPI `mcp-use`, pinned in requirements.lock; it runs on the
1.x line of the official `mcp` SDK, which it pins `<2`).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py. The calls of a case run on
one `MCPClient` and its one session, kept between them by ../kept.py.

It witnesses what an application sees through the package's documented direct tool call ("Direct
Tool Calls" in its docs), with its defaults: `MCPClient.from_dict({"mcpServers": {"s": {"url":
...}}})`, `await client.create_all_sessions()` (its HttpConnector: OAuth discovery GETs, then
streamable HTTP `initialize` and the listings, falling back to the old SSE transport when that
fails), `client.get_session("s")`, then `await session.call_tool(name, arguments,
read_timeout_seconds=...)` (the case's timeout, the one documented timeout of the call); `await
client.close_all_sessions()` after the last call. Nothing else is set. Over stdio the server
entry is `{"command": ..., "args": [...]}`, the package's documented stdio config: its
StdioConnector starts the server with mcp's `stdio_client` at `create_all_sessions()` and stops
it at `close_all_sessions()`.

What the application catches: a failure that leaves the connection up is raised as mcp 1.x (or
httpx under it) raised it, mapped as the SDK's are (../mcp1_surface.py). A failure after which
the connector finds its connection gone (the transport's task died: in mcp 1.x every HTTP error
but a 404 does that) is re-raised as a bare `RuntimeError("Tool call '<name>' failed due to
connection loss: ...")`, which no typed attribute ties to a layer: UNCLASSIFIED_ERROR, the chain
in `detail`. The connector then reconnects on its own at the next call (a new `initialize`): that is
the next call's observation, not the adapter's doing.

In an authorization case (`call.auth`, docs/adapters.md, "Credentials") the server entry gets the
package's documented bearer token, `"auth": "<access token>"` (its HttpConnector then sends
`Authorization: Bearer ...` on every request and runs no OAuth of its own); a store without an
access token leaves the entry as it is. Its OAuth (`"auth": {client_id, client_secret, scope,
...}`) cannot be handed existing tokens: it reads them only from its own `FileTokenStorage`
under the user's home, which no config key names, it never refreshes one, and a token it finds
expired sends it to `webbrowser.open` (README.md, "Authorization"). `mcp_use`'s
`OAuthAuthenticationError` "Server requires authentication (HTTP 401)", raised by the connector
`from` the `httpx.HTTPStatusError` its SSE fallback met, is HTTP_ERROR with that cause's status.

Three settings the harness needs, none a behaviour of the client under test: telemetry off
(`MCP_USE_ANONYMIZED_TELEMETRY=false`, the package's documented switch: its PostHog and Scarf
events would leave the machine), the package's log handler on stdout taken off
(`mcp_use.logging` writes INFO records to stdout, where the contract allows the observation line
only; they still reach stderr), and no browser: `webbrowser.open`, which its OAuth calls for an
interactive authorization, sends one GET to the URL instead, as the other rows' redirect
handlers do, and opens nothing (no case reaches it: README.md).
"""

from __future__ import annotations

import contextlib
import logging
import os
import pathlib
import sys
import urllib.error
import urllib.request
import webbrowser
from datetime import timedelta
from importlib.metadata import version as package_version
from typing import Any, AsyncIterator

# Before the package is imported: its Telemetry singleton reads the switch when it is created,
# at import. Off, no event is sent; nothing on the path of a call depends on it (README.md).
os.environ["MCP_USE_ANONYMIZED_TELEMETRY"] = "false"

import httpx  # noqa: E402
from mcp.shared.version import LATEST_PROTOCOL_VERSION  # noqa: E402
from mcp.shared.exceptions import McpError  # noqa: E402
from mcp.types import CallToolResult  # noqa: E402
from mcp_use import MCPClient  # noqa: E402
from mcp_use.client.exceptions import OAuthAuthenticationError  # noqa: E402

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
import kept  # noqa: E402
import mcp1_surface  # noqa: E402 - how mcp 1.x, under the framework, surfaces a call
from contract import Call, observation  # noqa: E402

PACKAGE = "mcp-use"
# The one server of the client config.
SERVER = "s"


def logs_to_stderr() -> None:
    """Takes off the handlers `mcp_use.logging` put on stdout (at import, level INFO): its records
    still reach the root logger's handler, on stderr (contract.main sets it up)."""
    package_logger = logging.getLogger("mcp_use")
    for handler in list(package_logger.handlers):
        if isinstance(handler, logging.StreamHandler) and handler.stream is sys.stdout:
            package_logger.removeHandler(handler)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def no_browser(url: str, *_args: Any, **_kwargs: Any) -> bool:
    """In place of `webbrowser.open`: one GET to the authorization URL, as a browser opened on it
    would send, following nothing; nothing is opened, and, as `webbrowser.open` on a machine
    without a browser, it returns False."""
    try:
        with urllib.request.build_opener(_NoRedirect).open(url, timeout=10) as response:
            status = int(response.status)
    except urllib.error.HTTPError as answer:
        status = int(answer.code)
    except OSError as error:
        print(f"{PACKAGE} asked for a browser on an authorization URL: GET {url} failed: {error}", file=sys.stderr)
        return False
    print(f"{PACKAGE} asked for a browser on an authorization URL: GET {url} answered {status}; none is opened", file=sys.stderr)
    return False


def from_result(result: Any) -> dict[str, Any]:
    """Observation for what `session.call_tool` returned: mcp 1.x's CallToolResult."""
    if isinstance(result, CallToolResult):
        if result.isError:
            return observation("TOOL_ERROR", "call_tool returned a CallToolResult with isError=True")
        return observation("TOOL_SUCCESS", "call_tool returned a CallToolResult")
    return observation("UNCLASSIFIED_ERROR", f"call_tool returned an unexpected {contract.shown(result)}")


class McpUse(kept.Row):
    """The application's `MCPClient` for the calls of a case: created and its session made
    (`create_all_sessions`) before the first call, closed (`close_all_sessions`) after the last."""

    def steps(self) -> contract.Steps:
        return contract.Steps(connect="create_all_sessions", list="list_tools", call="call_tool")

    @contextlib.asynccontextmanager
    async def open(self, call: Call) -> AsyncIterator[MCPClient]:
        client = MCPClient.from_dict({"mcpServers": {SERVER: server_config(call)}})
        try:
            yield client
        finally:
            await client.close_all_sessions()

    async def start(self, client: MCPClient, call: Call) -> None:
        if call.protocol_version != LATEST_PROTOCOL_VERSION:
            print(f"note: {call.protocol_version} requested; {PACKAGE} cannot be told a version: mcp {package_version('mcp')} offers {LATEST_PROTOCOL_VERSION} in initialize", file=sys.stderr)
        await client.create_all_sessions()

    async def call(self, client: MCPClient, call: Call, steps: contract.Steps) -> dict[str, Any]:
        session = client.get_session(SERVER)
        timeout = timedelta(seconds=call.timeout_s)
        returned = await steps.list_then_call(call, session.list_tools, lambda: session.call_tool(call.tool, call.arguments, read_timeout_seconds=timeout))
        return from_result(returned)

    def error(self, error: BaseException, call: Call, steps: contract.Steps) -> dict[str, Any]:
        text = steps.where + contract.caught(error)
        if isinstance(error, OAuthAuthenticationError) and isinstance(error.__cause__, httpx.HTTPStatusError):
            # The connector's "Server requires authentication (HTTP 401/403/407) but auth failed",
            # raised `from` the HTTPStatusError its SSE fallback met: that cause, set by the
            # connector itself, carries the status the application may read.
            return observation("HTTP_ERROR", text, status=error.__cause__.response.status_code)
        if call.stdio and isinstance(error, RuntimeError) and lost_connection(error.__cause__):
            # Over stdio the connector's "connection loss" RuntimeError, which it raises `from` mcp's
            # own CONNECTION_CLOSED error, is the server process's end: that cause, set by the
            # connector itself, is what the application may read (docs/adapters.md, "What the
            # application catches").
            return observation("CONNECTION_ERROR", text)
        # The RuntimeError of a lost connection (and of a failed reconnect) falls through to
        # UNCLASSIFIED_ERROR there: no typed attribute of it names a layer. Over HTTP its cause is
        # mcp's "Connection closed" for any HTTP failure, not the server's words.
        return mcp1_surface.from_error(error, text, steps, call.timeout_s, stdio=call.stdio)


def lost_connection(cause: BaseException | None) -> bool:
    """Whether `cause` is mcp 1.x's own error for a session whose read stream ended."""
    return isinstance(cause, McpError) and (cause.error.code, cause.error.message) == mcp1_surface.OWN_CONNECTION_CLOSED


def server_config(call: Call) -> dict[str, Any]:
    """The server's entry in the package's config: its URL, or over stdio its command and arguments
    (no `env`: mcp's default environment subset). In an authorization case with an access token,
    `auth` is that token: the package's documented bearer token (a string)."""
    if call.stdio:
        return {"command": call.program, "args": call.program_args}
    token = (call.auth or {}).get("access_token")
    if token is not None:
        return {"url": call.endpoint, "auth": token}
    return {"url": call.endpoint}


if __name__ == "__main__":
    # The package is imported above and the adapter takes no arguments of its own. The calls of a
    # case run on one client, on a thread and an event loop of its own (../kept.py).
    logs_to_stderr()
    webbrowser.open = no_browser
    contract.main(lambda _arguments: kept.serving(McpUse()), package=PACKAGE, transports=contract.TRANSPORTS)
