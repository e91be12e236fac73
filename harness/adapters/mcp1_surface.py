"""How the official Python SDK's 1.x line (PyPI `mcp` < 2, with `httpx`) surfaces a failed tool
call, for the rows whose framework runs on it and hands its errors on unchanged
(`langchain-mcp-adapters`, `smolagents`). A row maps its framework's own surface first and leaves
the rest to this. (`python-sdk-v1` drives mcp 1.x itself, through `python-sdk`'s program.)

Imported from the parent folder, as contract.py is; it needs the row's venv (mcp 1.x).
"""

from __future__ import annotations

from typing import Any

import httpx
from mcp.shared.exceptions import McpError
from pydantic import ValidationError

import contract
from contract import observation

# mcp 1.x's BaseSession.send_request raises its own timeout with the HTTP status 408 as the code.
SESSION_TIMEOUT_CODE = int(httpx.codes.REQUEST_TIMEOUT)


def from_error(first: BaseException, text: str, steps: contract.Steps, timeout_s: float) -> dict[str, Any]:
    """Observation for `first`, an exception mcp raised during `steps.now` (taken out of its
    exception group), described by `text`; `timeout_s` is the session's read timeout."""
    if isinstance(first, McpError):
        # The session's own deadline: code 408 with its fixed message naming the seconds it
        # waited. Any other McpError is a JSON-RPC error as the SDK surfaces it, including those
        # its transport makes up for HTTP failures ("Session terminated").
        own = f"Timed out while waiting for response to ClientRequest. Waited {timeout_s} seconds."
        if first.error.code == SESSION_TIMEOUT_CODE and first.error.message == own:
            return observation("TIMEOUT", text)
        return observation("JSONRPC_ERROR", text, code=first.error.code)
    if isinstance(first, ValidationError) and steps.now == "call" and first.title == "CallToolResult":
        # ClientSession.send_request validates the tools/call result against mcp's model.
        return observation("INVALID_TOOL_RESULT", text)
    return contract.from_http_layer(httpx, first, text) or observation("UNCLASSIFIED_ERROR", text)
