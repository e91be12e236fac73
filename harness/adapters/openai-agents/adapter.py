"""mcp-error-layers adapter for the OpenAI Agents SDK (PyPI `openai-agents`, pinned in requirements.lock).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py.

    adapter.py [--max-retry-attempts N] <endpoint-url>

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
import inspect
import pathlib
import sys
from typing import Any, Callable

import httpx2
from agents.exceptions import UserError
from agents.mcp import MCPServerStreamableHttp

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
import mcp2_surface  # noqa: E402 - how mcp 2.x, under the SDK, surfaces a call
from contract import Call, observation  # noqa: E402

# How long the SDK's own teardown (`cleanup()`: task groups, the session's DELETE) may take once the
# call has an observation; past that the observation stands and teardown is abandoned.
TEARDOWN_SECONDS = 2.0


def from_error(error: BaseException, steps: contract.Steps) -> dict[str, Any]:
    """Observation for an exception the SDK raised during `steps.now`."""
    first, text = contract.unwrap(error)
    text = steps.where + text

    if isinstance(first, UserError):
        # The SDK's own wrapper of the HTTP errors it catches ("Failed to call tool ...: HTTP error
        # 503"): the status is only in its text; the httpx2 error it came from is its __cause__
        # (kept when its URLs carry no credentials). Only that typed cause is read.
        if first.__cause__ is not None:
            mapped = contract.from_http_layer(httpx2, first.__cause__, text)
            if mapped is not None:
                return mapped
        return observation("UNCLASSIFIED_ERROR", text)
    return mcp2_surface.from_error(first, text, steps)


def retry_policy(max_retry_attempts: int) -> str:
    if max_retry_attempts == 0:
        return "max_retry_attempts=0 (the default): no retries"
    return (
        f"max_retry_attempts={max_retry_attempts}: call_tool is retried on any Exception, "
        "with backoff retry_backoff_seconds_base=1.0 * 2**n"
    )


async def observe(call: Call, max_retry_attempts: int) -> dict[str, Any]:
    """Makes one tool call with the SDK and returns an observation dict."""
    # The SDK has no option to prefer a protocol version: it drives mcp's Client(mode="auto"),
    # which probes server/discover and falls back to initialize.
    print(f"protocol version {call.protocol_version!r} requested; the SDK negotiates its own (mcp Client mode='auto')", file=sys.stderr)
    result: dict[str, Any] | None = None
    steps = contract.Steps(connect="connect", list="list_tools", call="call_tool")
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(None) as bounded:
            # The case's timeout is the SDK's per-request timeout, client_session_timeout_seconds
            # (mcp's session read timeout, default 5 s; the SDK has no per-call timeout), and the
            # HTTP timeout in params (default 5 s; reads of an SSE stream keep sse_read_timeout).
            # Both apply to the connect's requests too: they are the SDK's only knobs.
            async with MCPServerStreamableHttp(
                params={"url": call.endpoint, "timeout": call.timeout_s},
                client_session_timeout_seconds=call.timeout_s,
                max_retry_attempts=max_retry_attempts,
            ) as server:
                # No deadline of the adapter's own: the SDK's per-request timeout bounds each
                # attempt, and retries (max_retry_attempts > 0) take what the SDK makes them take
                # (the variant's adapter.toml gives the runner room for them).
                try:
                    returned = await steps.list_then_call(call, server.list_tools, lambda: server.call_tool(call.tool, call.arguments))
                    result = mcp2_surface.from_result(returned)
                except Exception as error:  # noqa: BLE001 - every SDK error is an observation
                    result = from_error(error, steps)
                # The observation stands; the SDK's cleanup gets a bounded time.
                bounded.reschedule(loop.time() + TEARDOWN_SECONDS)
    except TimeoutError as error:
        if result is None:
            result = from_error(error, steps)
        else:
            print("teardown: abandoned after its bounded time", file=sys.stderr)
    except Exception as error:  # noqa: BLE001 - raised by connect() or the SDK's cleanup
        if result is None:
            result = from_error(error, steps)
        else:
            print(f"teardown: {contract.describe(error)}", file=sys.stderr)
    if result is None:
        result = observation("UNCLASSIFIED_ERROR", "the SDK gave neither a result nor an error before teardown")
    result["retry"] = retry_policy(max_retry_attempts)
    return result


def prepare(arguments: list[str]) -> Callable[[Call], dict[str, Any]]:
    """Reads `--max-retry-attempts N` and returns the call: one `asyncio.run` each. The retry count
    is the one asked for, else the SDK's own default (0), read from its signature rather than
    restated here."""
    parser = argparse.ArgumentParser(prog="adapter.py", description="mcp-error-layers adapter for openai-agents")
    parser.add_argument("--max-retry-attempts", type=int, default=None, help="MCPServerStreamableHttp(max_retry_attempts=N); default: the SDK's")
    requested = parser.parse_args(arguments).max_retry_attempts
    default = inspect.signature(MCPServerStreamableHttp).parameters["max_retry_attempts"].default
    max_retry_attempts = default if requested is None else requested
    return lambda call: asyncio.run(observe(call, max_retry_attempts))


if __name__ == "__main__":
    contract.main(prepare, package="openai-agents", options="[--max-retry-attempts N]")
