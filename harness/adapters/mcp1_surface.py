"""How the official Python SDK's 1.x line (PyPI `mcp` < 2, with `httpx`) surfaces a failed tool
call, for the rows whose framework runs on it and hands its errors on without a type of its own
(`langchain-mcp-adapters`, where an error of the transport's task arrives in the session's
ExceptionGroup; `smolagents`). A row maps its framework's own surface error and leaves
the rest to this. (`python-sdk-v1` drives mcp 1.x itself, through `python-sdk`'s program.)

Imported from the parent folder, as contract.py is; it needs the row's venv (mcp 1.x).
"""

from __future__ import annotations

from typing import Any

import httpx
from mcp.shared.exceptions import McpError
from mcp.types import CONNECTION_CLOSED
from pydantic import ValidationError

import contract
from contract import observation

# mcp 1.x's BaseSession.send_request raises its own timeout with the HTTP status 408 as the code.
SESSION_TIMEOUT_CODE = int(httpx.codes.REQUEST_TIMEOUT)
# mcp 1.x's own error for a request pending when the session's read stream ended: CONNECTION_CLOSED
# with this fixed message. Over stdio the server's stdout closed (it exited, was killed, or
# closed it).
OWN_CONNECTION_CLOSED = (CONNECTION_CLOSED, "Connection closed")


def from_error(error: BaseException, text: str, steps: contract.Steps, timeout_s: float, *, stdio: bool = False) -> dict[str, Any]:
    """Observation for `error`, the exception the application caught during `steps.now` (a
    group as itself: it falls through to UNCLASSIFIED_ERROR), described by `text`; `timeout_s` is
    the session's read timeout, `stdio` whether the call ran over stdio."""
    if isinstance(error, McpError):
        # The session's own deadline: code 408 with its fixed message naming the seconds it
        # waited. Any other McpError is a JSON-RPC error as the SDK surfaces it, including those
        # its transport makes up for HTTP failures ("Session terminated").
        own = f"Timed out while waiting for response to ClientRequest. Waited {timeout_s} seconds."
        if error.error.code == SESSION_TIMEOUT_CODE and error.error.message == own:
            return observation("TIMEOUT", text)
        if stdio and (error.error.code, error.error.message) == OWN_CONNECTION_CLOSED:
            # Over stdio, the server process's end (CONTRACT: CONNECTION_ERROR). Over HTTP the
            # same error stays a JSON-RPC error as mcp surfaces it.
            return observation("CONNECTION_ERROR", text)
        return observation("JSONRPC_ERROR", text, code=error.error.code)
    if isinstance(error, ValidationError) and steps.now == "call" and error.title == "CallToolResult":
        # ClientSession.send_request validates the tools/call result against mcp's model.
        return observation("INVALID_TOOL_RESULT", text)
    return contract.from_http_layer(httpx, error, text) or observation("UNCLASSIFIED_ERROR", text)
