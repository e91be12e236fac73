"""How the official Python SDK's 2.x line (PyPI `mcp`, with `mcp-types` and `httpx2`) surfaces a
tool call, for the rows whose framework hands it on (`openai-agents`; `llamaindex`, which hands
every error on inside the ExceptionGroup of the session it opens for the call): the typed
`CallToolResult` it returns, and the errors it raises. A row maps its framework's own
surface error and leaves the rest to these.

Imported from the parent folder, as contract.py is; it needs the row's venv (mcp 2.x).
"""

from __future__ import annotations

import re
from typing import Any

import httpx2
import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
from pydantic import ValidationError

import contract
from contract import observation

# The message of mcp's own deadline for a request (the session's read timeout): it comes with
# REQUEST_TIMEOUT, the code a server's timeout error carries too.
OWN_TIMEOUT = re.compile(r"Request '[^']+' timed out")
# mcp's own error for a request pending when the session's read stream ended: CONNECTION_CLOSED
# with this fixed message. Over stdio the server's stdout closed (it exited, was killed, or
# closed it).
OWN_CONNECTION_CLOSED = (CONNECTION_CLOSED, "Connection closed")


def from_result(result: Any) -> dict[str, Any]:
    """Observation for a returned `CallToolResult`, its `is_error` flag kept."""
    if isinstance(result, types.CallToolResult):
        if result.is_error:
            return observation("TOOL_ERROR", "call_tool returned a CallToolResult with is_error=True")
        return observation("TOOL_SUCCESS", "call_tool returned a CallToolResult")
    return observation("UNCLASSIFIED_ERROR", f"call_tool returned an unexpected {type(result).__name__}: {result!r}")


def from_error(error: BaseException, text: str, steps: contract.Steps, *, stdio: bool = False) -> dict[str, Any]:
    """Observation for `error`, the exception the application caught during `steps.now` (a
    group as itself: it falls through to UNCLASSIFIED_ERROR), described by `text`; `stdio` when the
    call ran over stdio."""
    if isinstance(error, MCPError):
        # mcp's own deadline: REQUEST_TIMEOUT with its fixed message. Any other MCPError is a
        # JSON-RPC error as mcp surfaces it, including the ones its streamable HTTP transport makes
        # up for HTTP-level failures.
        if error.code == REQUEST_TIMEOUT and OWN_TIMEOUT.fullmatch(error.message):
            return observation("TIMEOUT", text)
        if stdio and (error.code, error.message) == OWN_CONNECTION_CLOSED:
            # Over stdio, the server process's end (CONTRACT: CONNECTION_ERROR). Over HTTP the
            # same error stays a JSON-RPC error as mcp surfaces it.
            return observation("CONNECTION_ERROR", text)
        return observation("JSONRPC_ERROR", text, code=error.code)
    if isinstance(error, ValidationError) and steps.now == "call" and re.search(r"CallToolResult|InputRequiredResult", error.title):
        # mcp's ClientSession validates the tools/call result against its model; a failure of
        # another result's model (tools/list) says nothing about the tool result.
        return observation("INVALID_TOOL_RESULT", text)
    return contract.from_http_layer(httpx2, error, text) or observation("UNCLASSIFIED_ERROR", text)
