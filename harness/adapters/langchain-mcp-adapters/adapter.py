"""mcp-error-layers adapter for LangChain's MCP adapters (PyPI `langchain-mcp-adapters`, pinned in
requirements.lock; it runs on the 1.x line of the official `mcp` SDK, which it pins `<2`).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py. The calls of a case run on
what an application keeps, kept between them by ../kept.py.

    adapter.py [--tool-call] <endpoint-url>

It witnesses what an application sees through the package's documented entry point with its
defaults: `MultiServerMCPClient({"s": {"transport": "streamable_http", "url": ..., "timeout": ...,
"session_kwargs": {"read_timeout_seconds": ...}}})`, `await client.get_tools()` (a session of its
own: initialize, tools/list), then the named tool's `await tool.ainvoke(arguments)` (another
session: initialize, tools/call). The case's timeout goes into two of the documented timeouts;
nothing else is set. Over stdio the connection is the framework's documented `{"transport": "stdio",
"command": ..., "args": [...], "session_kwargs": {"read_timeout_seconds": ...}}`: each session starts
the server anew (mcp's `stdio_client`) and stops it when the session ends.

In an authorization case (`call.auth`, docs/adapters.md "Credentials"; the rows declare `auth =
true`) the streamable HTTP connection also gets its documented `auth` key, an `httpx.Auth`: the
`mcp` SDK's `OAuthClientProvider` over a `TokenStorage` seeded once per case from the start
credentials (../contract.py's `oauth_provider`, with the SDK's defaults). The framework hands it to
the httpx client of every session it opens (`create_mcp_http_client(..., auth=...)`), the same
provider object each time, so what the SDK refreshed or stored in one session is there in the next.
The redirect handler sends one GET to the authorization URL, as a browser opened on it would, and
the callback handler gives up: nothing completes an interactive authorization here. Refresh,
discovery and step-up are the SDK's.

What an application keeps between calls is the client it constructed once and the tools it got
once from `get_tools()`: the calls of a case are `ainvoke`s of the same tool object. The
framework keeps no session between them: each `ainvoke` opens a session of its own, by design
("A new session will be created for each tool call", `get_tools`'s docstring), so every call of a
case initializes anew on the wire.

What `ainvoke(arguments)` gives back: the tool's content as a list of LangChain content blocks,
for a success and (since 0.3.0's default `handle_tool_errors=True`) for an `isError` result
alike: a returned value is TOOL_SUCCESS. With `--tool-call` (the `langchain-mcp-adapters+toolcall`
row) the tool is invoked as an agent's tool node invokes it, with a `ToolCall` (`{"name", "args",
"id", "type": "tool_call"}`), and LangChain returns a `ToolMessage` whose `status` ("error" for an
`isError` result) is the outcome. Every other failure is raised out of `ainvoke` or `get_tools`,
either or both ways: the `mcp` SDK's (or httpx's) own exception, or, when it was raised in the
transport's task, anyio's `ExceptionGroup` of the session's task group, which the framework does
not unwrap (docs/adapters.md, "What the application catches").
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import pathlib
import sys
from datetime import timedelta
from importlib.metadata import version as package_version
from typing import Any, AsyncIterator

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langchain_mcp_adapters.client import MultiServerMCPClient
from mcp.shared.version import LATEST_PROTOCOL_VERSION

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
import kept  # noqa: E402
import mcp1_surface  # noqa: E402 - how mcp 1.x, under the framework, surfaces a call
from contract import Call, observation  # noqa: E402

PACKAGE = "langchain-mcp-adapters"
# The one server of the client config; its tools keep their own names (no prefix by default).
SERVER = "s"


def connection(call: Call, storages: contract.TokenStorages) -> dict[str, Any]:
    """The framework's documented streamable HTTP connection, the call's timeout in `timeout`
    (httpx connect/write/pool) and the ClientSession's `read_timeout_seconds` (how long each
    request waits for its answer: the call's own timeout). `sse_read_timeout` (httpx read) keeps
    its default (300 s): set to the same value it races the session's timeout, and which one the
    application gets (TIMEOUT, or the transport's ExceptionGroup) would be the machine's timing.
    Over stdio, its documented stdio connection: the server's command and arguments, and the same
    session timeout (there is no HTTP timeout). In an authorization case, `auth` (the connection's
    documented `httpx.Auth`) is the SDK's `OAuthClientProvider` over the case's seeded storage."""
    timeout = timedelta(seconds=call.timeout_s)
    if call.stdio:
        return {
            "transport": "stdio",
            "command": call.program,
            "args": call.program_args,
            "session_kwargs": {"read_timeout_seconds": timeout},
        }
    http: dict[str, Any] = {
        "transport": "streamable_http",
        "url": call.endpoint,
        "timeout": timeout,
        "session_kwargs": {"read_timeout_seconds": timeout},
    }
    if call.auth is not None:
        http["auth"] = contract.oauth_provider(call, storages.storage(call))
    return http


def blocks(content: Any) -> Any:
    """Content blocks without the random id LangChain gives each (`lc_<uuid>`), so that a detail
    is the same in every run."""
    if isinstance(content, list):
        return [{k: v for k, v in block.items() if k != "id"} if isinstance(block, dict) else block for block in content]
    return content


def from_returned(returned: Any) -> dict[str, Any]:
    """Observation for what `ainvoke(arguments)` returned. With plain arguments LangChain returns
    the content alone, the same list of content blocks whether the result had `isError` or not:
    no flag says which, so it is TOOL_SUCCESS (the detail shows the value)."""
    return observation("TOOL_SUCCESS", f"ainvoke returned a {contract.shown(blocks(returned))}")


def from_message(returned: Any) -> dict[str, Any]:
    """Observation for what `ainvoke(tool_call)` returned: a `ToolMessage`, whose `status` is
    LangChain's documented word for how the tool ended ("error" for an `isError` result the
    framework handled, "success" otherwise); its content goes into the detail."""
    if not isinstance(returned, ToolMessage):
        return observation("UNCLASSIFIED_ERROR", f"ainvoke(ToolCall) returned no ToolMessage but a {contract.shown(returned)}")
    outcome = {"error": "TOOL_ERROR", "success": "TOOL_SUCCESS"}.get(returned.status, "UNCLASSIFIED_ERROR")
    return observation(outcome, f"ainvoke(ToolCall) returned a ToolMessage with status={returned.status!r}, content {contract.shown(blocks(returned.content))}")


def from_error(error: BaseException, steps: contract.Steps, timeout_s: float, stdio: bool = False) -> dict[str, Any]:
    """Observation for an exception raised out of `get_tools` or `ainvoke`, as the application
    catches it: mcp 1.x's or httpx's own, which the framework lets through unchanged, or the
    session's ExceptionGroup (UNCLASSIFIED_ERROR)."""
    return mcp1_surface.from_error(error, steps.where + contract.caught(error), steps, timeout_s, stdio=stdio)


@dataclasses.dataclass
class Kept:
    """What an application keeps: the client it constructed once, and the tools its one
    `get_tools()` gave (None until it did)."""

    client: MultiServerMCPClient
    tools: list[BaseTool] | None = None


class LangChain(kept.Row):
    """The framework for the calls of a case: one `MultiServerMCPClient`, one `get_tools()` before
    the first call, then each call an `ainvoke` of the tool it gave (a session of its own each)."""

    def __init__(self, tool_call: bool) -> None:
        self._tool_call = tool_call
        # The token storage of each authorization case, kept with the case (../contract.py).
        self._storages = contract.TokenStorages()

    def steps(self) -> contract.Steps:
        # get_tools is the connect and the listing at once (its own session); ainvoke is the call.
        return contract.Steps(connect="get_tools", list="get_tools", call="ainvoke")

    @contextlib.asynccontextmanager
    async def open(self, call: Call) -> AsyncIterator[Kept]:
        if call.protocol_version != LATEST_PROTOCOL_VERSION:
            print(f"note: {call.protocol_version} requested; {PACKAGE} cannot be told a version: mcp {package_version('mcp')} offers {LATEST_PROTOCOL_VERSION} in initialize", file=sys.stderr)
        # The client holds only its config: nothing to close (it has no close, and refuses
        # `async with` since 0.1.0).
        yield Kept(MultiServerMCPClient({SERVER: connection(call, self._storages)}))

    async def start(self, held: Kept, call: Call) -> None:
        held.tools = await held.client.get_tools()

    async def call(self, held: Kept, call: Call, steps: contract.Steps) -> dict[str, Any]:
        self._storages.forget(call)
        tools = held.tools or []
        tool = next((t for t in tools if t.name == call.tool), None)
        if tool is None:
            names = ", ".join(t.name for t in tools) or "none"
            return observation("UNCLASSIFIED_ERROR", f"get_tools returned no tool named {call.tool!r} (got {names})")
        if self._tool_call:
            # As an agent's tool node invokes it (langgraph's ToolNode passes the model's ToolCall).
            tool_call = {"name": tool.name, "args": call.arguments, "id": f"call_{call.index}", "type": "tool_call"}
            return from_message(await tool.ainvoke(tool_call))
        return from_returned(await tool.ainvoke(call.arguments))

    def error(self, error: BaseException, call: Call, steps: contract.Steps) -> dict[str, Any]:
        # A last call whose get_tools failed never reached `call`: its storage goes here.
        self._storages.forget(call)
        return from_error(error, steps, call.timeout_s, call.stdio)


def prepare(arguments: list[str]) -> Any:
    """Reads `--tool-call` and returns the function of one call: the calls of a case on one kept
    client, on a thread and an event loop of its own (../kept.py)."""
    parser = argparse.ArgumentParser(prog="adapter.py", description="mcp-error-layers adapter for langchain-mcp-adapters")
    parser.add_argument("--tool-call", action="store_true", help="invoke the tool with a ToolCall, as an agent's tool node does")
    return kept.serving(LangChain(parser.parse_args(arguments).tool_call))


if __name__ == "__main__":
    # The framework is imported above; the one argument of its own is `--tool-call`.
    contract.main(prepare, package=PACKAGE, options="[--tool-call]", transports=contract.TRANSPORTS)
