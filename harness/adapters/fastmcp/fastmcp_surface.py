"""A FastMCP `Client` call and how what it raises maps to outcomes: the `fastmcp` row's, imported by
the `pydantic-ai` row too (its `MCPToolset` is a FastMCP `Client` underneath, and every error it
does not turn into a `ModelRetry` reaches the application as FastMCP raised it).

FastMCP 4 sits on the official `mcp` 2.x (`MCPError`, `mcp_types`, `pydantic.ValidationError`)
over `httpx2`; its own typed surface is `fastmcp.exceptions.ToolError` (a tool result with
`isError`), `MCPError`s it makes itself, and the `RuntimeError`s it wraps a failed connection in.
"""

from __future__ import annotations

import asyncio
import pathlib
import re
import sys
from typing import Any, AsyncContextManager, Awaitable, Callable

import httpx2
import mcp_types
from fastmcp.client.client import CallToolResult
from fastmcp.exceptions import ToolError
from mcp import InputRequiredRoundsExceededError
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
from contract import Call, observation  # noqa: E402

# The mcp dispatcher's own deadline for a request (the session read timeout FastMCP sets from
# `timeout=`): code REQUEST_TIMEOUT (-32001) with this fixed message.
DISPATCHER_TIMEOUT = re.compile(r"Request '[^']+' timed out")
# FastMCP's own timeout: its task-group handler turns an httpx2.ConnectTimeout into an MCPError
# with the HTTP status 408 as the code and this fixed message (fastmcp/utilities/exceptions.py).
FASTMCP_CONNECT_TIMEOUT = (int(httpx2.codes.REQUEST_TIMEOUT), "Timed out while waiting for response.")
# How long the client's teardown (stopping its session task, the session's DELETE) may take once
# the call has an observation; past that the observation stands and teardown is abandoned.
TEARDOWN_SECONDS = 2.0


def from_result(result: Any) -> dict[str, Any]:
    """Observation for what `Client.call_tool` returned: FastMCP's `CallToolResult` dataclass. With
    the default `raise_on_error=True` an `isError` result raises `ToolError` instead, so a returned
    one is a success unless its flag says otherwise."""
    if isinstance(result, CallToolResult):
        if result.is_error:
            return observation("TOOL_ERROR", "call_tool returned a CallToolResult with is_error=True")
        return observation("TOOL_SUCCESS", "call_tool returned a CallToolResult")
    return observation("UNCLASSIFIED_ERROR", f"call_tool returned an unexpected {type(result).__name__}: {result!r}")


def from_error(first: BaseException, text: str, steps: contract.Steps) -> dict[str, Any]:
    """Observation for `first`, an exception FastMCP raised during `steps.now` (already taken out of
    its exception group), described by `text`."""
    if isinstance(first, ToolError):
        # FastMCP's documented error for a tool result with isError (call_tool, raise_on_error=True):
        # its text is the first text content block.
        return observation("TOOL_ERROR", text)
    if isinstance(first, MCPError):
        if first.code == mcp_types.REQUEST_TIMEOUT and DISPATCHER_TIMEOUT.fullmatch(first.message):
            return observation("TIMEOUT", text)
        if (first.code, first.message) == FASTMCP_CONNECT_TIMEOUT:
            return observation("TIMEOUT", text)
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


class Attempt:
    """One call's way through the client: where it is (`steps`), and the first error raised, which
    is what the application's call site receives; `map_error(first, text, steps)` maps an error,
    and `call_step` is the name of the call in the words of the API the row drives."""

    def __init__(self, map_error: Callable[[BaseException, str, contract.Steps], dict[str, Any]], call_step: str) -> None:
        self.steps = contract.Steps(connect="connect", list="list_tools", call=call_step)
        self.first_error: BaseException | None = None
        self._map_error = map_error

    def failed(self, error: BaseException) -> dict[str, Any]:
        first, text = contract.unwrap(error)
        self.first_error = first
        return self._map_error(first, self.steps.where + text, self.steps)

    def also_on_close(self, result: dict[str, Any], error: BaseException) -> dict[str, Any]:
        """`result` with the error the `async with` raised on its way out appended to its detail:
        FastMCP's exit re-raises the exception its session task ended with, so an error that
        killed the session reaches the application twice (docs/adapters.md, "An error raised
        twice": the first counts)."""
        again, text = contract.unwrap(error)
        if again is self.first_error:
            text = f"the same {type(again).__module__}.{type(again).__qualname__} again"
        print(f"on close: {contract.describe(error)}", file=sys.stderr)
        return observation(result["outcome"], f"{result['detail']}; then on close: {text}", status=result["status"], code=result["code"])


async def observe(
    call: Call,
    connection: AsyncContextManager[Any],
    *,
    list_tools: Callable[[], Awaitable[Any]],
    call_tool: Callable[[], Awaitable[Any]],
    from_result: Callable[[Any], dict[str, Any]],
    map_error: Callable[[BaseException, str, contract.Steps], dict[str, Any]],
    call_step: str = "call_tool",
) -> dict[str, Any]:
    """Enters `connection` (the connect), lists the tools when the call asks, calls the tool, and
    returns the observation: `from_result` of what the call returned, or `map_error` of the first
    error, with an error the exit raised after it in `detail`."""
    attempt = Attempt(map_error, call_step)
    result: dict[str, Any] | None = None
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(None) as bounded:
            async with connection:
                try:
                    result = from_result(await attempt.steps.list_then_call(call, list_tools, call_tool))
                except Exception as error:  # noqa: BLE001 - every error of the client is an observation
                    result = attempt.failed(error)
                # The observation stands; the client's teardown gets a bounded time.
                bounded.reschedule(loop.time() + TEARDOWN_SECONDS)
    except TimeoutError as error:
        if result is None:
            result = attempt.failed(error)
        else:
            print("teardown: abandoned after its bounded time", file=sys.stderr)
    except Exception as error:  # noqa: BLE001 - raised by the connect, or again by the exit
        result = attempt.failed(error) if result is None else attempt.also_on_close(result, error)
    if result is None:
        result = observation("UNCLASSIFIED_ERROR", "the client gave neither a result nor an error before teardown")
    return result
