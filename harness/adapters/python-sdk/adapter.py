"""mcp-error-layers adapter for the official Python SDK (PyPI `mcp`, pinned in requirements.lock).

One-shot contract (design §6): the endpoint URL is the last argument; the call comes in
MCP_ERROR_LAYERS_TOOL, MCP_ERROR_LAYERS_ARGUMENTS, MCP_ERROR_LAYERS_PROTOCOL_VERSION and
MCP_ERROR_LAYERS_TIMEOUT_MS; with MCP_ERROR_LAYERS_LIST_TOOLS=1 it lists the tools first.
Exactly one JSON line goes to stdout; everything else to stderr.

The adapter drives the SDK's public client API only: `streamable_http_client` for the transport,
`ClientSession` on top of it, `discover()` (2026-07-28) or `initialize()` (the 2025 handshake era),
then `call_tool(..., read_timeout_seconds=..., allow_input_required=True)`. It maps what the SDK
surfaces (the returned model, or the exception class and its fields) to an outcome. It never sees
the case.

The same file drives the 1.x line of `mcp` (the `python-sdk-v1` adapter). Where the two lines'
APIs differ the adapter detects the feature, never the version: the types in `mcp_types` or
`mcp.types`, `httpx2` or `httpx`, `MCPError` or `McpError` (both keep an `ErrorData` as
`.error`), a `ClientSession` with or without `discover()` (without it every version runs over the
initialize handshake), `call_tool` with or without `allow_input_required`, its timeout in seconds
or as a `timedelta`, `is_error` or `isError`.
"""

from __future__ import annotations

import json
import logging
import os
import pathlib
import re
import sys
from importlib.metadata import version as package_version
from typing import Any

import inspect
from datetime import timedelta

import anyio
from pydantic import ValidationError

from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

# Persistent mode, many calls at once: harness/adapters/serving.py, shared with the other Python adapter.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import serving  # noqa: E402

try:
    import httpx2
except ImportError:  # mcp 1.x's HTTP stack is httpx, with the same error classes
    import httpx as httpx2
try:
    import mcp_types as types
    from mcp_types import REQUEST_TIMEOUT
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
except ImportError:  # mcp 1.x: the types are mcp.types, and there is no stateless era
    import mcp.types as types
    from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS as HANDSHAKE_PROTOCOL_VERSIONS

    MODERN_PROTOCOL_VERSIONS: list[str] = []
    # mcp 1.x's BaseSession.send_request raises its own timeout with the HTTP status 408 as the code.
    REQUEST_TIMEOUT = int(httpx2.codes.REQUEST_TIMEOUT)
try:
    from mcp.shared.exceptions import MCPError
except ImportError:  # mcp 1.x's name; both keep the ErrorData as `.error`
    from mcp.shared.exceptions import McpError as MCPError

# The typed call result for an input_required round (mcp 2.x only).
INPUT_REQUIRED_RESULT = getattr(types, "InputRequiredResult", None)
# The session's stateless-era entry (mcp 2.x only); without it every version is a handshake.
HAS_DISCOVER = hasattr(ClientSession, "discover")
CALL_TOOL_PARAMETERS = inspect.signature(ClientSession.call_tool).parameters
# mcp 1.x takes the call's timeout as a timedelta, 2.x as seconds.
TIMEOUT_AS_TIMEDELTA = "timedelta" in str(CALL_TOOL_PARAMETERS["read_timeout_seconds"].annotation)

SDK_VERSION = package_version("mcp")
MAX_DETAIL = 600
# How long the SDK's own teardown (task groups, DELETE of a session) may take once the call has
# an observation; past that the observation stands and teardown is abandoned.
TEARDOWN_SECONDS = 2.0


def observation(outcome: str, detail: str, *, status: int | None = None, code: int | None = None) -> dict[str, Any]:
    text = re.sub(r"\s+", " ", detail).strip()
    if len(text) > MAX_DETAIL:
        text = text[:MAX_DETAIL] + "…"
    return {"outcome": outcome, "status": status, "code": code, "detail": text}


def from_result(result: Any) -> dict[str, Any]:
    """Observation for the value `ClientSession.call_tool` returned."""
    if INPUT_REQUIRED_RESULT is not None and isinstance(result, INPUT_REQUIRED_RESULT):
        return observation("INPUT_REQUIRED", "call_tool returned an InputRequiredResult")
    if isinstance(result, types.CallToolResult):
        if result.is_error if hasattr(result, "is_error") else result.isError:
            return observation("TOOL_ERROR", "call_tool returned a CallToolResult with is_error=True")
        return observation("TOOL_SUCCESS", "call_tool returned a CallToolResult")
    # A result shape claimed by an extension; this adapter registers none, so it is not expected.
    return observation("UNCLASSIFIED_ERROR", f"call_tool returned an unexpected {type(result).__name__}: {result!r}")


def one_error(error: BaseException) -> str:
    name = f"{type(error).__module__}.{type(error).__qualname__}"
    if isinstance(error, ValidationError):
        issues = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc']) or '(root)'}: {issue['msg']} [{issue['type']}]"
            for issue in error.errors(include_url=False, include_input=False)
        )
        return f"{name}: {error.error_count()} validation error(s) for {error.title}: {issues}"
    text = re.sub(r"\s*For further information visit \S+", "", str(error))
    return f"{name}: {text}" if text else name


def describe(error: BaseException) -> str:
    """The error and its causes; a cause that repeats the text before it shows only its class."""
    parts: list[str] = []
    previous = None
    # Suppressed contexts too (an httpx2.ReadError says nothing by itself; the
    # ConnectionResetError under it does), up to the first cancellation (a timeout's machinery).
    causes = []
    for current in chain(error, suppressed=True):
        if isinstance(current, anyio.get_cancelled_exc_class()):
            break
        causes.append(current)
    for current in causes[:5]:
        text = str(current)
        if text and text == previous:
            parts.append(f"{type(current).__module__}.{type(current).__qualname__}")
        else:
            parts.append(one_error(current))
        previous = text
    return " <- caused by ".join(parts)


def chain(error: BaseException, *, suppressed: bool = False) -> list[BaseException]:
    """The error and what caused it: explicit causes, else the implicit context. A context the
    code suppressed (`raise ... from None`) is followed only when `suppressed` is true (for
    classifying; the description leaves it out)."""
    found = []
    current: BaseException | None = error
    while current is not None and len(found) < 8:
        found.append(current)
        if current.__cause__ is not None:
            current = current.__cause__
        elif suppressed or not current.__suppress_context__:
            current = current.__context__
        else:
            current = None
    return found


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, cancellations dropped."""
    if isinstance(error, BaseExceptionGroup):
        found: list[BaseException] = []
        for inner in error.exceptions:
            found.extend(leaves(inner))
        return found
    if isinstance(error, anyio.get_cancelled_exc_class()):
        return []
    return [error]


def timeout_messages(method: str, timeout_s: float | None) -> list[str]:
    """The fixed messages of the session's own request timeout for `method`: mcp 2.x's dispatcher,
    and mcp 1.x's send_request, which names the class of the request it sent (`ClientRequest` for
    every client request) and the seconds it waited (only the call has the adapter's timeout)."""
    messages = [f"Request {method!r} timed out"]
    if method == "tools/call":
        messages.append(f"Timed out while waiting for response to ClientRequest. Waited {timeout_s} seconds.")
    return messages


def from_error(error: BaseException, phase: str, method: str, timeout_s: float | None = None) -> dict[str, Any]:
    """Observation for an exception the SDK raised (phase is "connect", "list" or "call")."""
    found = leaves(error) or [error]
    first = found[0]
    where = {"connect": "connect failed: ", "list": "list_tools failed: "}.get(phase, "call_tool failed: ")
    text = where + describe(first)
    if len(found) > 1:
        text += f" (and {len(found) - 1} more: " + " | ".join(describe(e) for e in found[1:]) + ")"

    if isinstance(first, MCPError):
        # The dispatcher's own deadline: REQUEST_TIMEOUT with its fixed message. Any other MCPError
        # is a JSON-RPC error as the SDK surfaces it, including the ones the streamable HTTP
        # transport synthesizes for HTTP-level failures (see README: it hides the HTTP layer).
        if first.error.code == REQUEST_TIMEOUT and first.error.message in timeout_messages(method, timeout_s):
            return observation("TIMEOUT", text)
        return observation("JSONRPC_ERROR", text, code=first.error.code)
    if isinstance(first, ValidationError) and phase == "call" and re.search(r"CallToolResult|InputRequiredResult", first.title):
        # ClientSession.send_request validates the result against the negotiated version's schema
        # and documents pydantic.ValidationError for a non-conforming result. Only a failure of the
        # tools/call result model counts; call_tool also lists tools (to check output schemas),
        # and a ListToolsResult failure says nothing about the tool result.
        return observation("INVALID_TOOL_RESULT", text)
    if isinstance(first, httpx2.HTTPStatusError):
        return observation("HTTP_ERROR", text, status=first.response.status_code)
    if isinstance(first, httpx2.TimeoutException):
        return observation("TIMEOUT", text)
    if isinstance(first, httpx2.ConnectError):
        return observation("CONNECTION_ERROR", text)
    if isinstance(first, httpx2.RemoteProtocolError) and "without sending a response" in str(first):
        # h11/httpcore: the server closed the connection before any status line.
        return observation("CONNECTION_ERROR", text)
    if isinstance(first, httpx2.RemoteProtocolError) and "without sending complete message body" in str(first):
        # h11/httpcore: a response had started and its body was cut short.
        return observation("STREAM_INCOMPLETE", text)
    if isinstance(first, httpx2.NetworkError) and any(isinstance(e, ConnectionError) for e in chain(first, suppressed=True)):
        # httpx2.ReadError/WriteError caused by ECONNRESET/EPIPE: the connection was reset.
        return observation("CONNECTION_ERROR", text)
    if isinstance(first, json.JSONDecodeError):
        return observation("MALFORMED_JSON", text)
    return observation("UNCLASSIFIED_ERROR", text)


async def observe(
    endpoint: str, tool: str, args: dict[str, Any], version: str, timeout_ms: int, list_tools: bool = False
) -> dict[str, Any]:
    """Makes one tool call with the SDK and returns an observation dict (reusable per call)."""
    timeout_s = timeout_ms / 1000
    if HAS_DISCOVER and version not in MODERN_PROTOCOL_VERSIONS and version not in HANDSHAKE_PROTOCOL_VERSIONS:
        return {"unsupported": f"mcp {SDK_VERSION} does not speak protocol version {version!r}"}
    modern = HAS_DISCOVER and version in MODERN_PROTOCOL_VERSIONS
    if not HAS_DISCOVER and version not in HANDSHAKE_PROTOCOL_VERSIONS:
        # As the TypeScript SDK: no stateless era, so the call runs over an initialize handshake
        # (the wire server answers initialize in every era; the tools/call reply is the same).
        print(f"mcp {SDK_VERSION} has no server/discover: {version} runs over the initialize handshake", file=sys.stderr)
    call_timeout = timedelta(seconds=timeout_s) if TIMEOUT_AS_TIMEDELTA else timeout_s
    call_options: dict[str, Any] = {"read_timeout_seconds": call_timeout}
    if "allow_input_required" in CALL_TOOL_PARAMETERS:
        call_options["allow_input_required"] = True
    result: dict[str, Any] | None = None
    phase = "connect"
    method = "server/discover" if modern else "initialize"
    try:
        with anyio.CancelScope() as bounded:
            # mcp 2.x yields (read, write); 1.x adds a get_session_id callback.
            async with streamable_http_client(endpoint) as streams:
                read_stream, write_stream = streams[0], streams[1]
                # The case's timeout is for the call (read_timeout_seconds of call_tool); the
                # connect keeps the SDK's defaults, so that a slow start on a loaded machine is
                # not reported as the call's timeout.
                async with ClientSession(
                    read_stream,
                    write_stream,
                    client_info=types.Implementation(name="mcp-error-layers-adapter", version=SDK_VERSION),
                ) as session:
                    try:
                        # 2026-07-28: the SDK's stateless era, entered with a server/discover
                        # probe. 2025 versions: the initialize handshake (the SDK offers its
                        # newest handshake version; the server echoes one it supports).
                        if modern:
                            await session.discover()
                        else:
                            await session.initialize()
                        if list_tools:
                            # As an application does to learn the tool's schemas (list_tools).
                            phase, method = "list", "tools/list"
                            await session.list_tools()
                        phase, method = "call", "tools/call"
                        returned = await session.call_tool(tool, args, **call_options)
                        result = from_result(returned)
                    except Exception as error:  # noqa: BLE001 - every SDK error is an observation
                        result = from_error(error, phase, method, timeout_s)
                    # The observation stands; the SDK's teardown (the session's DELETE, its task
                    # groups) gets a bounded time and is abandoned after that.
                    bounded.deadline = anyio.current_time() + TEARDOWN_SECONDS
    except Exception as error:  # noqa: BLE001 - raised by the transport's tasks or its teardown
        if result is None:
            result = from_error(error, phase, method, timeout_s)
        else:
            print(f"teardown: {describe(error)}", file=sys.stderr)
    if result is None:
        result = observation("UNCLASSIFIED_ERROR", "the SDK gave neither a result nor an error before teardown")
    return result


def serve() -> int:
    """Persistent mode (docs/adapters.md): announce, then serve request lines, many calls at once,
    each with its own `anyio.run` on a thread of its own (serving.py), until stdin closes."""
    return serving.serve(
        lambda r: anyio.run(
            observe, r["endpoint"], r["tool"], r["arguments"], r["protocol_version"], r["timeout_ms"], r.get("list_tools") is True
        )
    )


def main() -> int:
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("MCP_ERROR_LAYERS_LOG", "WARNING"))
    if os.environ.get("MCP_ERROR_LAYERS_MODE") == "persistent":
        return serve()
    if len(sys.argv) < 2 or not re.match(r"^https?://", sys.argv[-1]):
        print("usage: adapter.py <endpoint-url> (the call comes in MCP_ERROR_LAYERS_* variables)", file=sys.stderr)
        return 2
    endpoint = sys.argv[-1]
    try:
        tool = os.environ["MCP_ERROR_LAYERS_TOOL"]
        args = json.loads(os.environ.get("MCP_ERROR_LAYERS_ARGUMENTS", "{}"))
        version = os.environ.get("MCP_ERROR_LAYERS_PROTOCOL_VERSION", "2026-07-28")
        timeout_ms = int(os.environ.get("MCP_ERROR_LAYERS_TIMEOUT_MS", "5000"))
        list_tools = os.environ.get("MCP_ERROR_LAYERS_LIST_TOOLS") == "1"
    except (KeyError, ValueError) as error:
        print(f"adapter error: bad MCP_ERROR_LAYERS_* environment: {error!r}", file=sys.stderr)
        return 2
    result = anyio.run(observe, endpoint, tool, args, version, timeout_ms, list_tools)
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    # Leave at once: nothing of the SDK may keep the process alive after the observation.
    os._exit(code)
