"""mcp-error-layers adapter for smolagents' MCP client (PyPI `smolagents[mcp]`, pinned in
requirements.lock; it calls MCP through `mcpadapt`, which runs on the 1.x line of the official
`mcp` SDK).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py.

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
silence the warning that it will change.

The tool returns the first content item (its text) whether or not the result had `isError`:
nothing says it was an error, so a returned value is TOOL_SUCCESS. The errors that reach the
caller are the `mcp` SDK's, unwrapped by `concurrent.futures` (`McpError`, pydantic's
`ValidationError`), mcpadapt's connect `TimeoutError` (raised for every failure to connect: the
error in the loop thread is not passed on), and the adapter's `ValueError` for an empty content.
"""

from __future__ import annotations

import pathlib
import sys
import threading
from importlib.metadata import version as package_version
from typing import Any

from mcp.shared.version import LATEST_PROTOCOL_VERSION
from mcpadapt.smolagents_adapter import _sanitize_function_name
from smolagents import MCPClient

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
import mcp1_surface  # noqa: E402 - how mcp 1.x, under the framework, surfaces a call
from contract import Call, observation  # noqa: E402

PACKAGE = "smolagents"
# How long `disconnect()` (cancelling the session's task, joining its thread) may take once the call
# has an observation; past that the observation stands and the daemon thread is left behind.
TEARDOWN_SECONDS = 2.0


def from_returned(returned: Any) -> dict[str, Any]:
    """Observation for what the tool returned: the first content item (text as a `str`), the same
    for an `isError` result, so it is TOOL_SUCCESS (the detail shows the value)."""
    return observation("TOOL_SUCCESS", f"the tool returned a {contract.shown(returned)}")


def from_error(error: BaseException, steps: contract.Steps, timeout_s: float) -> dict[str, Any]:
    """Observation for an exception the framework raised during `steps.now`."""
    first, text = contract.unwrap(error)
    # mcpadapt's connect TimeoutError is raised for any failure to connect (a refused connection,
    # an HTTP error, a timeout alike): it names no layer, so it stays UNCLASSIFIED_ERROR.
    return mcp1_surface.from_error(first, steps.where + text, steps, timeout_s)


def find(tools: list[Any], name: str) -> Any | None:
    """The tool the call names. mcpadapt renames tools to valid Python identifiers (dashes to
    underscores, other characters dropped), so an application finds it under that name."""
    wanted = {name, _sanitize_function_name(name)}
    return next((tool for tool in tools if tool.name in wanted), None)


def disconnect(client: MCPClient) -> None:
    """Closes the client, giving up (with a note) when that takes longer than TEARDOWN_SECONDS:
    `close()` joins the session's thread without a timeout."""
    closing = threading.Thread(target=client.disconnect, daemon=True)
    closing.start()
    closing.join(TEARDOWN_SECONDS)
    if closing.is_alive():
        print(f"teardown: disconnect() still running after {TEARDOWN_SECONDS} s; abandoned", file=sys.stderr)


def observe(call: Call) -> dict[str, Any]:
    """Makes one tool call through the framework (synchronously, on the caller's thread) and
    returns an observation dict."""
    if call.protocol_version != LATEST_PROTOCOL_VERSION:
        print(f"note: {call.protocol_version} requested; {PACKAGE} cannot be told a version: mcp {package_version('mcp')} offers {LATEST_PROTOCOL_VERSION} in initialize", file=sys.stderr)
    # The constructor is the connect and the listing at once; the call is `tool(**arguments)`.
    steps = contract.Steps(connect="MCPClient", list="MCPClient", call="tool call")
    try:
        client = MCPClient(
            {"url": call.endpoint, "transport": "streamable-http"},
            # mcpadapt applies the session timeout only when it is a float or a timedelta.
            adapter_kwargs={"client_session_timeout_seconds": call.timeout_s},
            structured_output=False,
        )
    except Exception as error:  # noqa: BLE001 - every error the application receives is an observation
        return from_error(error, steps, call.timeout_s)
    try:
        tool = find(client.get_tools(), call.tool)
        if tool is None:
            names = ", ".join(t.name for t in client.get_tools()) or "none"
            return observation("UNCLASSIFIED_ERROR", f"MCPClient listed no tool named {call.tool!r} (got {names})")
        steps.now = "call"
        return from_returned(tool(**call.arguments))
    except Exception as error:  # noqa: BLE001 - every error the application receives is an observation
        return from_error(error, steps, call.timeout_s)
    finally:
        disconnect(client)


if __name__ == "__main__":
    # The framework is imported above and the adapter takes no arguments of its own: each call
    # runs on the caller's thread (in persistent mode a thread of its own, many at once).
    contract.main(lambda _arguments: observe, package=PACKAGE)
