"""mcp-error-layers adapter for the OpenAI Agents SDK (PyPI `openai-agents`, pinned in requirements.lock).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py. The calls of a case run on
one connected server object, kept between them by ../kept.py.

    adapter.py [--max-retry-attempts N] <endpoint-url>

The adapter drives the SDK's public MCP API only: `MCPServerStreamableHttp(params={"url": ...,
"timeout": ...}, client_session_timeout_seconds=...)` (over stdio `MCPServerStdio(params={"command":
..., "args": [...]}, client_session_timeout_seconds=...)`, which starts the server through mcp's
`stdio_client`) as an async context manager, then
`server.call_tool(name, args)`: the server object connected once (`connect()`, its `async with`)
before a case's first call, every call of the case made on it, and `cleanup()` after the last, as
an application keeps it. Everything else keeps the SDK's defaults (`max_retry_attempts=0`
unless `--max-retry-attempts N` is given: the `openai-agents+retries2` variant). The SDK sits on
the official `mcp` package (2.x through the lock), so most errors that surface are that package's
(`MCPError`, `pydantic.ValidationError`, `httpx2` errors); the SDK's own `agents.exceptions.UserError`
wraps the HTTP errors it catches, keeping the `httpx2` error as its `__cause__`. It maps what the
SDK surfaces (the returned model, or the exception class and its fields) to an outcome. It never
sees the case.

In an authorization case (docs/adapters.md, "Credentials") the params take their documented `auth`
("an `httpx2.Auth` with MCP v2"): the official `mcp` SDK's `OAuthClientProvider` over a token
storage seeded from the start credentials (../contract.py's `oauth_provider`), which the SDK puts on
the httpx2 client it builds for each session. Refresh, step-up and discovery are the provider's.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import pathlib
import sys
from typing import Any, AsyncIterator, Callable

import httpx2
from agents.exceptions import UserError
from agents.mcp import MCPServer, MCPServerStdio, MCPServerStreamableHttp, MCPServerStreamableHttpParams

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
import kept  # noqa: E402
import mcp2_surface  # noqa: E402 - how mcp 2.x, under the SDK, surfaces a call
from contract import Call, observation  # noqa: E402


def from_error(error: BaseException, steps: contract.Steps, stdio: bool = False) -> dict[str, Any]:
    """Observation for an exception the SDK raised during `steps.now` (over stdio when `stdio`)."""
    text = steps.where + contract.caught(error)

    if isinstance(error, UserError):
        # The SDK's own wrapper of the HTTP errors it catches ("Failed to call tool ...: HTTP error
        # 503"): the status is only in its text; the httpx2 error it came from is its __cause__
        # (kept when its URLs carry no credentials). Only that typed cause is read.
        if error.__cause__ is not None:
            mapped = contract.from_http_layer(httpx2, error.__cause__, text)
            if mapped is not None:
                return mapped
        return observation("UNCLASSIFIED_ERROR", text)
    return mcp2_surface.from_error(error, text, steps, stdio=stdio)


def retry_policy(max_retry_attempts: int) -> str:
    if max_retry_attempts == 0:
        return "max_retry_attempts=0 (the default): no retries"
    return (
        f"max_retry_attempts={max_retry_attempts}: call_tool is retried on any Exception, "
        "with backoff retry_backoff_seconds_base=1.0 * 2**n"
    )


class OpenAIAgents(kept.Row):
    """The SDK's server object for the calls of a case: one `MCPServerStreamableHttp` (over stdio
    one `MCPServerStdio`), connected before the first call (its `async with`), each call its
    `call_tool`, cleaned up after the last."""

    def __init__(self, max_retry_attempts: int) -> None:
        self._max_retry_attempts = max_retry_attempts
        self._retry = retry_policy(max_retry_attempts)
        # The token storage of each authorization case's server object (../contract.py).
        self._storages = contract.TokenStorages()

    def steps(self) -> contract.Steps:
        return contract.Steps(connect="connect", list="list_tools", call="call_tool")

    @contextlib.asynccontextmanager
    async def open(self, call: Call) -> AsyncIterator[MCPServer]:
        # The SDK has no option to prefer a protocol version: it drives mcp's Client(mode="auto"),
        # which probes server/discover and falls back to initialize.
        print(f"protocol version {call.protocol_version!r} requested; the SDK negotiates its own (mcp Client mode='auto')", file=sys.stderr)
        # The case's timeout is the SDK's per-request timeout, client_session_timeout_seconds
        # (mcp's session read timeout, default 5 s; the SDK has no per-call timeout), and the
        # HTTP timeout in params (default 5 s; reads of an SSE stream keep sse_read_timeout; over
        # stdio there is none).
        # Both apply to the connect's requests too: they are the SDK's only knobs. No deadline
        # of the adapter's own: the SDK's per-request timeout bounds each attempt, and retries
        # (max_retry_attempts > 0) take what the SDK makes them take (the variant's adapter.toml
        # gives the runner room for them).
        async with self._server(call) as server:
            yield server

    def _server(self, call: Call) -> MCPServer:
        """The SDK's server object for the call's transport. Over stdio it starts the server as a
        subprocess (mcp's `stdio_client`: its default environment subset, its stderr to ours); the
        session timeout is the one knob, as over HTTP."""
        if call.stdio:
            return MCPServerStdio(
                params={"command": call.program, "args": call.program_args},
                client_session_timeout_seconds=call.timeout_s,
                max_retry_attempts=self._max_retry_attempts,
            )
        params: MCPServerStreamableHttpParams = {"url": call.endpoint, "timeout": call.timeout_s}
        if call.auth is not None:
            # An authorization case: the params' documented `auth`, an httpx2.Auth with mcp 2.x,
            # here the mcp SDK's OAuthClientProvider over the case's seeded storage, with its
            # defaults. One provider for the server object: its isolated retry sessions share it.
            params["auth"] = contract.oauth_provider(call, self._storages.storage(call))
        return MCPServerStreamableHttp(
            params=params,
            client_session_timeout_seconds=call.timeout_s,
            max_retry_attempts=self._max_retry_attempts,
        )

    async def call(self, server: MCPServer, call: Call, steps: contract.Steps) -> dict[str, Any]:
        self._storages.forget(call)
        returned = await steps.list_then_call(call, server.list_tools, lambda: server.call_tool(call.tool, call.arguments))
        return {**mcp2_surface.from_result(returned), "retry": self._retry}

    def error(self, error: BaseException, call: Call, steps: contract.Steps) -> dict[str, Any]:
        return {**from_error(error, steps, call.stdio), "retry": self._retry}


def prepare(arguments: list[str]) -> Callable[[Call], dict[str, Any]]:
    """Reads `--max-retry-attempts N` and returns the function of one call: the calls of a case on
    one kept server object, on a thread and an event loop of its own (../kept.py). The retry count
    is the one asked for, else the SDK's own default (0), read from its signature rather than
    restated here."""
    parser = argparse.ArgumentParser(prog="adapter.py", description="mcp-error-layers adapter for openai-agents")
    parser.add_argument("--max-retry-attempts", type=int, default=None, help="MCPServerStreamableHttp(max_retry_attempts=N); default: the SDK's")
    requested = parser.parse_args(arguments).max_retry_attempts
    default = inspect.signature(MCPServerStreamableHttp).parameters["max_retry_attempts"].default
    max_retry_attempts = default if requested is None else requested
    return kept.serving(OpenAIAgents(max_retry_attempts))


if __name__ == "__main__":
    contract.main(prepare, package="openai-agents", options="[--max-retry-attempts N]", transports=contract.TRANSPORTS)
