"""mcp-error-layers adapter for the OpenAI Agents SDK (PyPI `openai-agents`, pinned in requirements.lock).

One-shot contract (design §6): the endpoint URL is the last argument; the call comes in
MCP_ERROR_LAYERS_TOOL, MCP_ERROR_LAYERS_ARGUMENTS, MCP_ERROR_LAYERS_PROTOCOL_VERSION and
MCP_ERROR_LAYERS_TIMEOUT_MS; with MCP_ERROR_LAYERS_LIST_TOOLS=1 it lists the tools first.
Exactly one JSON line goes to stdout; everything else to stderr.
Persistent mode (docs/adapters.md) with MCP_ERROR_LAYERS_MODE=persistent.

The adapter drives the SDK's public MCP API only: `MCPServerStreamableHttp(params={"url": ...,
"timeout": ...}, client_session_timeout_seconds=...)` as an async context manager, then
`server.call_tool(name, args)`. Everything else keeps the SDK's defaults (`max_retry_attempts=0`
unless `--max-retry-attempts N` is given: the `openai-agents+retries2` variant). The SDK sits on
the official `mcp` package (2.x through the lock), so most errors that surface are that package's
(`MCPError`, `pydantic.ValidationError`, `httpx2` errors); the SDK's own `agents.exceptions.UserError`
wraps the HTTP errors it catches, keeping the `httpx2` error as its `__cause__`. It maps what the
SDK surfaces (the returned model, or the exception class and its fields) to an outcome. It never
sees the case.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import pathlib
import re
import sys
from importlib.metadata import version as package_version
from typing import Any

# Persistent mode, many calls at once: harness/adapters/serving.py, shared with the other Python adapter.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import serving  # noqa: E402

SDK_VERSION = package_version("openai-agents")
MAX_DETAIL = 600
# How long the SDK's own teardown (`cleanup()`: task groups, the session's DELETE) may take once the
# call has an observation; past that the observation stands and teardown is abandoned.
TEARDOWN_SECONDS = 2.0


def observation(outcome: str, detail: str, *, status: int | None = None, code: int | None = None) -> dict[str, Any]:
    text = re.sub(r"\s+", " ", detail).strip()
    if len(text) > MAX_DETAIL:
        text = text[:MAX_DETAIL] + "…"
    return {"outcome": outcome, "status": status, "code": code, "detail": text}


def from_result(result: Any) -> dict[str, Any]:
    """Observation for the value `MCPServerStreamableHttp.call_tool` returned (typed `CallToolResult`)."""
    import mcp_types as types

    if isinstance(result, types.CallToolResult):
        if result.is_error:
            return observation("TOOL_ERROR", "call_tool returned a CallToolResult with is_error=True")
        return observation("TOOL_SUCCESS", "call_tool returned a CallToolResult")
    return observation("UNCLASSIFIED_ERROR", f"call_tool returned an unexpected {type(result).__name__}: {result!r}")


def one_error(error: BaseException) -> str:
    from pydantic import ValidationError

    name = f"{type(error).__module__}.{type(error).__qualname__}"
    if isinstance(error, ValidationError):
        issues = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc']) or '(root)'}: {issue['msg']} [{issue['type']}]"
            for issue in error.errors(include_url=False, include_input=False)
        )
        return f"{name}: {error.error_count()} validation error(s) for {error.title}: {issues}"
    text = re.sub(r"\s*For further information visit \S+", "", str(error))
    return f"{name}: {text}" if text else name


def chain(error: BaseException, *, suppressed: bool = False) -> list[BaseException]:
    """The error and what caused it: explicit causes, else the implicit context (a suppressed one
    only when `suppressed` is true)."""
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


def describe(error: BaseException) -> str:
    """The error and its causes; a cause that repeats the text before it shows only its class."""
    parts: list[str] = []
    previous = None
    causes = []
    for current in chain(error, suppressed=True):
        if isinstance(current, asyncio.CancelledError):
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


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, cancellations dropped."""
    if isinstance(error, BaseExceptionGroup):
        found: list[BaseException] = []
        for inner in error.exceptions:
            found.extend(leaves(inner))
        return found
    if isinstance(error, asyncio.CancelledError):
        return []
    return [error]


def from_http_error(error: BaseException, text: str) -> dict[str, Any] | None:
    """Observation for an `httpx2` error (raised by the transport, or the `__cause__` the SDK's
    `UserError` keeps), or None when it is not one."""
    import httpx2

    if isinstance(error, httpx2.HTTPStatusError):
        return observation("HTTP_ERROR", text, status=error.response.status_code)
    if isinstance(error, httpx2.TimeoutException):
        return observation("TIMEOUT", text)
    if isinstance(error, httpx2.ConnectError):
        return observation("CONNECTION_ERROR", text)
    if isinstance(error, httpx2.RemoteProtocolError) and "without sending a response" in str(error):
        # h11/httpcore: the server closed the connection before any status line.
        return observation("CONNECTION_ERROR", text)
    if isinstance(error, httpx2.RemoteProtocolError) and "without sending complete message body" in str(error):
        # h11/httpcore: a response had started and its body was cut short.
        return observation("STREAM_INCOMPLETE", text)
    if isinstance(error, httpx2.NetworkError) and any(isinstance(e, ConnectionError) for e in chain(error, suppressed=True)):
        # httpx2.ReadError/WriteError caused by ECONNRESET/EPIPE: the connection was reset.
        return observation("CONNECTION_ERROR", text)
    return None


def from_error(error: BaseException, phase: str) -> dict[str, Any]:
    """Observation for an exception the SDK raised (phase is "connect", "list" or "call")."""
    from agents.exceptions import UserError
    from mcp.shared.exceptions import MCPError
    from mcp_types import REQUEST_TIMEOUT
    from pydantic import ValidationError

    found = leaves(error) or [error]
    first = found[0]
    where = {"connect": "connect failed: ", "list": "list_tools failed: "}.get(phase, "call_tool failed: ")
    text = where + describe(first)
    if len(found) > 1:
        text += f" (and {len(found) - 1} more: " + " | ".join(describe(e) for e in found[1:]) + ")"

    if isinstance(first, UserError):
        # The SDK's own wrapper of the HTTP errors it catches ("Failed to call tool ...: HTTP error
        # 503"): the status is only in its text; the httpx2 error it came from is its __cause__
        # (kept when its URLs carry no credentials). Only that typed cause is read.
        if first.__cause__ is not None:
            mapped = from_http_error(first.__cause__, text)
            if mapped is not None:
                return mapped
        return observation("UNCLASSIFIED_ERROR", text)
    if isinstance(first, MCPError):
        # The mcp dispatcher's own deadline (the session read timeout the SDK sets from
        # client_session_timeout_seconds): REQUEST_TIMEOUT with its fixed message. Any other
        # MCPError is a JSON-RPC error as the SDK surfaces it, including the ones mcp's streamable
        # HTTP transport synthesizes for HTTP-level failures.
        if first.code == REQUEST_TIMEOUT and re.fullmatch(r"Request '[^']+' timed out", first.message):
            return observation("TIMEOUT", text)
        return observation("JSONRPC_ERROR", text, code=first.code)
    if isinstance(first, ValidationError) and phase == "call" and re.search(r"CallToolResult|InputRequiredResult", first.title):
        # mcp's ClientSession validates the result against the negotiated version's schema.
        return observation("INVALID_TOOL_RESULT", text)
    mapped = from_http_error(first, text)
    if mapped is not None:
        return mapped
    if isinstance(first, json.JSONDecodeError):
        return observation("MALFORMED_JSON", text)
    return observation("UNCLASSIFIED_ERROR", text)


def retry_policy(max_retry_attempts: int) -> str:
    if max_retry_attempts == 0:
        return "max_retry_attempts=0 (the default): no retries"
    return (
        f"max_retry_attempts={max_retry_attempts}: call_tool is retried on any Exception, "
        "with backoff retry_backoff_seconds_base=1.0 * 2**n"
    )


async def observe(
    endpoint: str,
    tool: str,
    args: dict[str, Any],
    version: str,
    timeout_ms: int,
    max_retry_attempts: int,
    list_tools: bool = False,
) -> dict[str, Any]:
    """Makes one tool call with the SDK and returns an observation dict (reusable per call)."""
    from agents.mcp import MCPServerStreamableHttp

    timeout_s = timeout_ms / 1000
    # The SDK has no option to prefer a protocol version: it drives mcp's Client(mode="auto"),
    # which probes server/discover and falls back to initialize.
    print(f"protocol version {version!r} requested; the SDK negotiates its own (mcp Client mode='auto')", file=sys.stderr)
    result: dict[str, Any] | None = None
    phase = "connect"
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(None) as bounded:
            # The case's timeout is the SDK's per-request timeout, client_session_timeout_seconds
            # (mcp's session read timeout, default 5 s; the SDK has no per-call timeout), and the
            # HTTP timeout in params (default 5 s; reads of an SSE stream keep sse_read_timeout).
            # Both apply to the connect's requests too: they are the SDK's only knobs.
            async with MCPServerStreamableHttp(
                params={"url": endpoint, "timeout": timeout_s},
                client_session_timeout_seconds=timeout_s,
                max_retry_attempts=max_retry_attempts,
            ) as server:
                phase = "call"
                # No deadline of the adapter's own: the SDK's per-request timeout bounds each
                # attempt, and retries (max_retry_attempts > 0) take what the SDK makes them take
                # (the variant's adapter.toml gives the runner room for them).
                try:
                    if list_tools:
                        # As an agent does to learn the tool's schemas (list_tools).
                        phase = "list"
                        await server.list_tools()
                        phase = "call"
                    returned = await server.call_tool(tool, args)
                    result = from_result(returned)
                except Exception as error:  # noqa: BLE001 - every SDK error is an observation
                    result = from_error(error, phase)
                # The observation stands; the SDK's cleanup gets a bounded time.
                bounded.reschedule(loop.time() + TEARDOWN_SECONDS)
    except TimeoutError as error:
        if result is None:
            result = from_error(error, phase)
        else:
            print("teardown: abandoned after its bounded time", file=sys.stderr)
    except Exception as error:  # noqa: BLE001 - raised by connect() or the SDK's cleanup
        if result is None:
            result = from_error(error, phase)
        else:
            print(f"teardown: {describe(error)}", file=sys.stderr)
    if result is None:
        result = observation("UNCLASSIFIED_ERROR", "the SDK gave neither a result nor an error before teardown")
    result["retry"] = retry_policy(max_retry_attempts)
    return result


def resolve_retries(requested: int | None) -> int:
    """The retry count to construct the server with: the one asked for, else the SDK's own default
    (0), read from its signature rather than restated here."""
    if requested is not None:
        return requested
    import inspect

    from agents.mcp import MCPServerStreamableHttp

    return inspect.signature(MCPServerStreamableHttp).parameters["max_retry_attempts"].default


def serve(requested_retries: int | None) -> int:
    """Persistent mode (docs/adapters.md): announce, then serve request lines, many calls at once,
    each with its own `asyncio.run` on a thread of its own (serving.py), until stdin closes."""
    # The SDK is imported first (as python-sdk/adapter.py does): importing `agents` takes seconds
    # (it pulls in `openai`), and the runner does not count the wait for the announcement as a
    # call's time, while an import after it would be the first call's time.
    max_retry_attempts = resolve_retries(requested_retries)
    import agents.mcp  # noqa: F401

    return serving.serve(
        lambda r: asyncio.run(
            observe(
                r["endpoint"],
                r["tool"],
                r["arguments"],
                r["protocol_version"],
                r["timeout_ms"],
                max_retry_attempts,
                r.get("list_tools") is True,
            )
        )
    )


def main() -> int:
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("MCP_ERROR_LAYERS_LOG", "WARNING"))
    parser = argparse.ArgumentParser(description="mcp-error-layers adapter for openai-agents")
    parser.add_argument("--max-retry-attempts", type=int, default=None, help="MCPServerStreamableHttp(max_retry_attempts=N); default: the SDK's")
    parser.add_argument("endpoint", nargs="?")
    options = parser.parse_args()
    if os.environ.get("MCP_ERROR_LAYERS_MODE") == "persistent":
        return serve(options.max_retry_attempts)
    max_retry_attempts = resolve_retries(options.max_retry_attempts)
    if not options.endpoint or not re.match(r"^https?://", options.endpoint):
        print("usage: adapter.py [--max-retry-attempts N] <endpoint-url> (the call comes in MCP_ERROR_LAYERS_* variables)", file=sys.stderr)
        return 2
    try:
        tool = os.environ["MCP_ERROR_LAYERS_TOOL"]
        args = json.loads(os.environ.get("MCP_ERROR_LAYERS_ARGUMENTS", "{}"))
        version = os.environ.get("MCP_ERROR_LAYERS_PROTOCOL_VERSION", "2026-07-28")
        timeout_ms = int(os.environ.get("MCP_ERROR_LAYERS_TIMEOUT_MS", "5000"))
        list_tools = os.environ.get("MCP_ERROR_LAYERS_LIST_TOOLS") == "1"
    except (KeyError, ValueError) as error:
        print(f"adapter error: bad MCP_ERROR_LAYERS_* environment: {error!r}", file=sys.stderr)
        return 2
    result = asyncio.run(observe(options.endpoint, tool, args, version, timeout_ms, max_retry_attempts, list_tools))
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    # Leave at once: nothing of the SDK may keep the process alive after the observation.
    os._exit(code)
