"""A FastMCP `Client` kept for the calls of a case, and how what it raises maps to outcomes: the
`fastmcp` row's, imported by the `pydantic-ai` row too (its `MCPToolset` is a FastMCP `Client` underneath, and every error it
does not turn into a `ModelRetry` reaches the application as FastMCP raised it).

FastMCP 4 sits on the official `mcp` 2.x (`MCPError`, `mcp_types`, `pydantic.ValidationError`)
over `httpx2`; its own typed surface is `fastmcp.exceptions.ToolError` (a tool result with
`isError`), `MCPError`s it makes itself, and the `RuntimeError`s it wraps a failed connection in.
"""

from __future__ import annotations

import contextlib
import pathlib
import re
import sys
from typing import Any, AsyncIterator, Callable

import httpx2
import mcp_types
from fastmcp import Client
from fastmcp.client.client import CallToolResult
from fastmcp.exceptions import ToolError
from mcp import InputRequiredRoundsExceededError
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
import kept  # noqa: E402
from contract import Call, observation  # noqa: E402

# The mcp dispatcher's own deadline for a request (the session read timeout FastMCP sets from
# `timeout=`): code REQUEST_TIMEOUT (-32001) with this fixed message.
DISPATCHER_TIMEOUT = re.compile(r"Request '[^']+' timed out")
# FastMCP's own timeout: its task-group handler turns an httpx2.ConnectTimeout into an MCPError
# with the HTTP status 408 as the code and this fixed message (fastmcp/utilities/exceptions.py).
FASTMCP_CONNECT_TIMEOUT = (int(httpx2.codes.REQUEST_TIMEOUT), "Timed out while waiting for response.")
# mcp's own error for a request pending when the session's read stream ended: CONNECTION_CLOSED
# with this fixed message. Over stdio the server's stdout closed (it exited, was killed, or
# closed it).
CONNECTION_CLOSED = (mcp_types.CONNECTION_CLOSED, "Connection closed")


def from_result(result: Any) -> dict[str, Any]:
    """Observation for what `Client.call_tool` returned: FastMCP's `CallToolResult` dataclass. With
    the default `raise_on_error=True` an `isError` result raises `ToolError` instead, so a returned
    one is a success unless its flag says otherwise."""
    if isinstance(result, CallToolResult):
        if result.is_error:
            return observation("TOOL_ERROR", "call_tool returned a CallToolResult with is_error=True")
        return observation("TOOL_SUCCESS", "call_tool returned a CallToolResult")
    return observation("UNCLASSIFIED_ERROR", f"call_tool returned an unexpected {type(result).__name__}: {result!r}")


def from_error(first: BaseException, text: str, steps: contract.Steps, *, stdio: bool = False) -> dict[str, Any]:
    """Observation for `first`, the exception the application caught during `steps.now`, as it
    caught it (an exception group is none of the types below: UNCLASSIFIED_ERROR), described by
    `text`; `stdio` when the call ran over stdio."""
    if isinstance(first, ToolError):
        # FastMCP's documented error for a tool result with isError (call_tool, raise_on_error=True):
        # its text is the first text content block.
        return observation("TOOL_ERROR", text)
    if isinstance(first, MCPError):
        if first.code == mcp_types.REQUEST_TIMEOUT and DISPATCHER_TIMEOUT.fullmatch(first.message):
            return observation("TIMEOUT", text)
        if (first.code, first.message) == FASTMCP_CONNECT_TIMEOUT:
            return observation("TIMEOUT", text)
        if stdio and (first.code, first.message) == CONNECTION_CLOSED:
            # Over stdio, the server process's end (CONTRACT: CONNECTION_ERROR). Over HTTP the
            # same error stays a JSON-RPC error as FastMCP surfaces it.
            return observation("CONNECTION_ERROR", text)
        # Any other MCPError is a JSON-RPC error as FastMCP surfaces it, including the ones mcp's
        # streamable HTTP transport synthesizes for HTTP-level failures.
        return observation("JSONRPC_ERROR", text, code=first.code)
    if isinstance(first, InputRequiredRoundsExceededError):
        # FastMCP answers input_required rounds itself (mcp's run_input_required_driver) and gives
        # up after `input_required_max_rounds` (10) with this typed error: input is still required.
        return observation("INPUT_REQUIRED", text)
    if isinstance(first, ValidationError) and steps.now == "call" and re.search(r"CallToolResult|InputRequiredResult", first.title):
        # mcp's ClientSession validates the result against the negotiated version's schema.
        return observation("INVALID_TOOL_RESULT", text)
    # A RuntimeError ("Client failed to connect: ...", "Server session was closed unexpectedly")
    # is FastMCP's deliberate wrapper of every failure but HTTPStatusError and MCPError: untyped,
    # so it stays UNCLASSIFIED_ERROR with its cause in `detail`.
    return contract.from_http_layer(httpx2, first, text) or observation("UNCLASSIFIED_ERROR", text)


class Row(kept.Row):
    """A FastMCP client kept for the calls of a case (../kept.py): a row gives `open` (the object
    the application constructs once and enters with `async with`, a FastMCP `Client` or what wraps
    one; over stdio through `closed_after`) and `call`; `map_error(error, text, steps, stdio=...)` maps what the
    call site caught, and
    `call_step` is the name of the call in the words of the API the row drives.

    FastMCP keeps its session in a background task: an error that kills it is raised at the call
    in flight (`_await_with_session_monitoring`), the `async with` block itself goes on, and every
    later call on the same client meets the dead session (FastMCP re-raises the task's error, or
    mcp's "Connection closed"). The block's exit re-raises the session task's error once more: the
    last call's detail names it (`then on close: ...`; docs/adapters.md, "An error raised twice")."""

    def __init__(self, map_error: Callable[..., dict[str, Any]], call_step: str = "call_tool") -> None:
        self._map_error = map_error
        self._call_step = call_step

    def steps(self) -> contract.Steps:
        return contract.Steps(connect="connect", list="list_tools", call=self._call_step)

    def error(self, error: BaseException, call: Call, steps: contract.Steps) -> dict[str, Any]:
        return self._map_error(error, steps.where + contract.caught(error), steps, stdio=call.stdio)


@contextlib.asynccontextmanager
async def closed_after(held: Any, client: Client) -> AsyncIterator[Any]:
    """`async with held:` (a FastMCP `client` over stdio, or what wraps one), then `client.close()`:
    FastMCP's `StdioTransport` keeps the server process running after the block by default
    (`keep_alive=True`, so that a client entered again reuses it), and `close()` is its documented
    way to stop it, as an application does once it is done with the client. Within the block, what
    the server's end does to the session is FastMCP's own (it reconnects only at a new `async with`)."""
    try:
        async with held:
            yield held
    finally:
        await client.close()
