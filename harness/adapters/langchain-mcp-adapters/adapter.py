"""mcp-error-layers adapter for LangChain's MCP adapters (PyPI `langchain-mcp-adapters`, pinned in
requirements.lock; it runs on the 1.x line of the official `mcp` SDK, which it pins `<2`).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py.

It witnesses what an application sees through the package's documented entry point with its
defaults: `MultiServerMCPClient({"s": {"transport": "streamable_http", "url": ..., "timeout": ...,
"sse_read_timeout": ..., "session_kwargs": {"read_timeout_seconds": ...}}})`, `await
client.get_tools()` (a session of its own: initialize, tools/list), then the named tool's `await
tool.ainvoke(arguments)` (another session: initialize, tools/call). The case's timeout goes into
the three documented timeouts; nothing else is set.

What `ainvoke(arguments)` gives back: the tool's content as a list of LangChain content blocks,
for a success and (since 0.3.0's default `handle_tool_errors=True`) for an `isError` result
alike. The error status is only kept on a `ToolMessage`, which LangChain builds when the input is
a `ToolCall` (as an agent's tool node passes it), never for plain arguments: a returned value is
TOOL_SUCCESS. Every other failure is raised as the `mcp` SDK (or httpx under it) raised it: the
framework neither wraps nor retypes it, so those typed errors are mapped as the SDK's are.
"""

from __future__ import annotations

import pathlib
import sys
from datetime import timedelta
from importlib.metadata import version as package_version
from typing import Any

import anyio
from langchain_mcp_adapters.client import MultiServerMCPClient
from mcp.shared.version import LATEST_PROTOCOL_VERSION

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
import mcp1_surface  # noqa: E402 - how mcp 1.x, under the framework, surfaces a call
from contract import Call, observation  # noqa: E402

PACKAGE = "langchain-mcp-adapters"
# The one server of the client config; its tools keep their own names (no prefix by default).
SERVER = "s"


def connection(call: Call) -> dict[str, Any]:
    """The framework's documented streamable HTTP connection, the call's timeout in `timeout`
    (httpx connect/write/pool) and the ClientSession's `read_timeout_seconds` (how long each
    request waits for its answer: the call's own timeout). `sse_read_timeout` (httpx read) keeps
    its default (300 s): set to the same value it races the session's timeout, and which one the
    application gets (TIMEOUT, or the transport's ExceptionGroup) would be the machine's timing."""
    timeout = timedelta(seconds=call.timeout_s)
    return {
        "transport": "streamable_http",
        "url": call.endpoint,
        "timeout": timeout,
        "session_kwargs": {"read_timeout_seconds": timeout},
    }


def from_returned(returned: Any) -> dict[str, Any]:
    """Observation for what `ainvoke` returned. With plain arguments LangChain returns the content
    alone, the same list of content blocks whether the result had `isError` or not: no flag says
    which, so it is TOOL_SUCCESS (the detail shows the value)."""
    if isinstance(returned, list):
        # LangChain gives each content block a random id (`lc_<uuid>`): left out of the detail, so
        # that it is the same in every run.
        returned = [{k: v for k, v in block.items() if k != "id"} if isinstance(block, dict) else block for block in returned]
    return observation("TOOL_SUCCESS", f"ainvoke returned a {contract.shown(returned)}")


def from_error(error: BaseException, steps: contract.Steps, timeout_s: float) -> dict[str, Any]:
    """Observation for an exception raised out of `get_tools` or `ainvoke`: the `mcp` SDK's own,
    which the framework lets through unchanged."""
    first, text = contract.unwrap(error)
    return mcp1_surface.from_error(first, steps.where + text, steps, timeout_s)


async def observe(call: Call) -> dict[str, Any]:
    """Makes one tool call through the framework and returns an observation dict."""
    if call.protocol_version != LATEST_PROTOCOL_VERSION:
        print(f"note: {call.protocol_version} requested; {PACKAGE} cannot be told a version: mcp {package_version('mcp')} offers {LATEST_PROTOCOL_VERSION} in initialize", file=sys.stderr)
    client = MultiServerMCPClient({SERVER: connection(call)})
    # get_tools is the connect and the listing at once (its own session); ainvoke is the call.
    steps = contract.Steps(connect="get_tools", list="get_tools", call="ainvoke")
    try:
        tools = await client.get_tools()
        tool = next((t for t in tools if t.name == call.tool), None)
        if tool is None:
            names = ", ".join(t.name for t in tools) or "none"
            return observation("UNCLASSIFIED_ERROR", f"get_tools returned no tool named {call.tool!r} (got {names})")
        steps.now = "call"
        return from_returned(await tool.ainvoke(call.arguments))
    except Exception as error:  # noqa: BLE001 - every error the application receives is an observation
        return from_error(error, steps, call.timeout_s)


if __name__ == "__main__":
    # The framework is imported above and the adapter takes no arguments of its own: each call is
    # one `anyio.run` (in persistent mode on a thread of its own, many at once).
    contract.main(lambda _arguments: lambda call: anyio.run(observe, call), package=PACKAGE)
