"""mcp-error-layers adapter for the official Python SDK (PyPI `mcp`, pinned in requirements.lock).

The call comes, and the observation goes, as the adapter contract says (docs/adapters.md): one
call per process or many at once, read and answered by ../contract.py. The calls of a case run on
one client (one session), kept between them by ../kept.py.

The adapter drives the SDK's public client API only: `streamable_http_client` for the transport
(over stdio, `stdio_client(StdioServerParameters(command=..., args=...))`, which starts the
server with the SDK's defaults), `ClientSession` on top of it, `discover()` (2026-07-28) or
`initialize()` (the 2025 handshake era), then `call_tool(..., read_timeout_seconds=...,
allow_input_required=True)`. It maps what the SDK
surfaces (the returned model, or the exception class and its fields) to an outcome. It never sees
the case.

The same file drives the 1.x line of `mcp` (the `python-sdk-v1` adapter). Where the two lines'
APIs differ the adapter detects the feature, never the version: the types in `mcp_types` or
`mcp.types`, `httpx2` or `httpx`, `MCPError` or `McpError` (both keep an `ErrorData` as
`.error`), a `ClientSession` with or without `discover()` (without it every version runs over the
initialize handshake), `call_tool` with or without `allow_input_required`, its timeout in seconds
or as a `timedelta`, `is_error` or `isError`.

In an authorization case (`call.auth`, docs/adapters.md "Credentials"; the row `python-sdk`
declares `auth = true`) the HTTP client is the SDK's documented auth entry point with its
defaults: an `OAuthClientProvider(server_url, client_metadata, storage, redirect_handler,
callback_handler)` as the `httpx2` auth of the client the transport is given
(`create_mcp_http_client(auth=...)`, the SDK's default client otherwise). Its `TokenStorage` is
seeded once per case from the start credentials and kept with the case (a client opened again
after a failed connect finds what the SDK stored); the redirect handler sends one GET to the
authorization URL, as a browser opened on it would, and the callback handler gives up: nothing
completes an interactive authorization here. Refresh, discovery and step-up are the SDK's.

`--tasks` (the row python-sdk-v1+tasks) runs a call that asks for a task (docs/adapters.md,
"Tasks") through the 1.x line's experimental task API, composed as its documentation shows:
`session.experimental.call_tool_as_task`, `poll_task` until a terminal status, then
`get_task_result(task_id, CallToolResult)`; the call's timeout is the application's deadline around
all of it. Without `--tasks`, or on an SDK without that API, such a call is `unsupported`.
"""

from __future__ import annotations

import contextlib
import inspect
import pathlib
import re
import sys
from datetime import timedelta
from importlib.metadata import version as package_version
from typing import Any, AsyncIterator

import anyio
from pydantic import ValidationError

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

# The adapter contract, shared by the Python adapters: harness/adapters/contract.py.
sys.path.append(str(pathlib.Path(__file__).resolve().parent.parent))
import contract  # noqa: E402
import kept  # noqa: E402
from contract import Call, observation  # noqa: E402

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
# The session's own error for a request pending when its read stream ended (both lines: -32000
# with this fixed message): over stdio, the server's process exited or closed its stdout.
CONNECTION_CLOSED = (types.CONNECTION_CLOSED, "Connection closed")
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

PACKAGE = "mcp"
SDK_VERSION = package_version(PACKAGE)
# The task statuses after which `poll_task` stops (2025-11-25, "Task Status").
TERMINAL_STATUSES = ("completed", "failed", "cancelled")


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


def timeout_messages(method: str, timeout_s: float) -> list[str]:
    """The fixed messages of the session's own request timeout for `method`: mcp 2.x's dispatcher,
    and mcp 1.x's send_request, which names the class of the request it sent (`ClientRequest` for
    every client request) and the seconds it waited (only the call has the adapter's timeout)."""
    messages = [f"Request {method!r} timed out"]
    if method == "tools/call":
        messages.append(f"Timed out while waiting for response to ClientRequest. Waited {timeout_s} seconds.")
    return messages


def from_error(error: BaseException, steps: contract.Steps, modern: bool, timeout_s: float, stdio: bool = False) -> dict[str, Any]:
    """Observation for an exception the SDK raised during `steps.now` (over stdio when `stdio`)."""
    text = steps.where + contract.caught(error)
    method = {"connect": "server/discover" if modern else "initialize", "list": "tools/list", "call": "tools/call"}[steps.now]

    if isinstance(error, MCPError):
        # The dispatcher's own deadline: REQUEST_TIMEOUT with its fixed message. Any other MCPError
        # is a JSON-RPC error as the SDK surfaces it, including the ones the streamable HTTP
        # transport synthesizes for HTTP-level failures (see README: it hides the HTTP layer).
        if error.error.code == REQUEST_TIMEOUT and error.error.message in timeout_messages(method, timeout_s):
            return observation("TIMEOUT", text)
        if stdio and (error.error.code, error.error.message) == CONNECTION_CLOSED:
            # The session's own word for a read stream that ended under the request: over stdio
            # the server's stdout closed (it exited, was killed, or closed it). Over HTTP the same
            # error stays the JSON-RPC error the SDK makes it (README: it hides the HTTP layer).
            return observation("CONNECTION_ERROR", text)
        return observation("JSONRPC_ERROR", text, code=error.error.code)
    if isinstance(error, ValidationError) and steps.now == "call" and re.search(r"CallToolResult|InputRequiredResult|CreateTaskResult", error.title):
        # ClientSession.send_request validates the result against the negotiated version's schema
        # and documents pydantic.ValidationError for a non-conforming result. Only a failure of the
        # tools/call result model counts; call_tool also lists tools (to check output schemas),
        # and a ListToolsResult failure says nothing about the tool result. A task call's answer
        # to tools/call is a CreateTaskResult, its final result a CallToolResult.
        return observation("INVALID_TOOL_RESULT", text)
    # The SDK's auth errors (mcp.client.auth's OAuthFlowError, OAuthTokenError) carry no status and
    # name no layer: UNCLASSIFIED_ERROR, their text in `detail`. Raised in the transport's task,
    # they reach the application inside the task group's ExceptionGroup, which names none either.
    return contract.from_http_layer(httpx2, error, text) or observation("UNCLASSIFIED_ERROR", text)


async def call_as_task(session: ClientSession, call: Call) -> dict[str, Any]:
    """The call as a task (`--tasks`), as the SDK's experimental task API documents the flow: ask
    for the task, poll it until a terminal status (`poll_task` keeps to the server's pollInterval),
    then fetch its result, which `tasks/result` returns for a failed task too (as the JSON-RPC
    error of the underlying call). The task statuses the SDK reported go into `detail`."""
    experimental = session.experimental
    options = {} if call.task.get("ttl_ms") is None else {"ttl": call.task["ttl_ms"]}
    seen: list[str] = []
    # The SDK method running now, named in the detail of an error it raises.
    step = "call_tool_as_task"
    try:
        with anyio.fail_after(call.timeout_s):
            created = await experimental.call_tool_as_task(call.tool, call.arguments, **options)
            task_id, status = created.task.taskId, created.task.status
            seen.append(f"created {status}")
            step = "poll_task"
            if status not in TERMINAL_STATUSES:
                async for polled in experimental.poll_task(task_id):
                    status = polled.status
                    seen.append(status)
            if status == "cancelled":
                return observation("TASK_CANCELLED", f"poll_task ended with the task cancelled{statuses(seen)}")
            step = "get_task_result"
            returned = await experimental.get_task_result(task_id, types.CallToolResult)
    except TimeoutError:
        text = f"the task had no result within the call's timeout of {call.timeout_s} s (the application's deadline around it)"
        return observation("TIMEOUT", text + statuses(seen))
    except Exception as error:  # noqa: BLE001 - every SDK error is an observation
        where = contract.Steps(connect="connect", list="list_tools", call=step)
        where.now = "call"
        found = from_error(error, where, False, call.timeout_s)
        return {**found, "detail": found["detail"] + statuses(seen)}
    found = from_result(returned)
    return {**found, "detail": found["detail"].replace("call_tool returned", "get_task_result returned", 1) + statuses(seen)}


@contextlib.asynccontextmanager
async def authorized_transport(call: Call, storage: contract.SeededTokenStorage) -> AsyncIterator[Any]:
    """The streamable HTTP transport on an httpx2 client whose auth is the SDK's
    `OAuthClientProvider` over `storage`, with the SDK's default client settings otherwise."""
    from mcp.shared._httpx_utils import create_mcp_http_client

    assert call.endpoint is not None, "an authorization case runs over HTTP"
    async with create_mcp_http_client(auth=contract.oauth_provider(call, storage)) as http_client:
        async with streamable_http_client(call.endpoint, http_client=http_client) as streams:
            yield streams


def statuses(seen: list[str]) -> str:
    """The task statuses the SDK reported, for an observation's detail."""
    return f" (task statuses: {', '.join(seen)})" if seen else ""


class PythonSdk(kept.Row):
    """The SDK's client for the calls of a case: one `streamable_http_client` (over stdio one
    `stdio_client`, one server process), one `ClientSession` on it, entered (and discovered or
    initialized) before the first call, left after the last."""

    def __init__(self) -> None:
        self._storages = contract.TokenStorages()

    def steps(self) -> contract.Steps:
        return contract.Steps(connect="connect", list="list_tools", call="call_tool")

    def refuse(self, call: Call) -> dict[str, Any] | None:
        version = call.protocol_version
        if HAS_DISCOVER and version not in MODERN_PROTOCOL_VERSIONS and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            return {"unsupported": f"mcp {SDK_VERSION} does not speak protocol version {version!r}"}
        return None

    @contextlib.asynccontextmanager
    async def open(self, call: Call) -> AsyncIterator[ClientSession]:
        version = call.protocol_version
        if not HAS_DISCOVER and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            # As the TypeScript SDK: no stateless era, so the call runs over an initialize handshake
            # (the wire server answers initialize in every era; the tools/call reply is the same).
            print(f"mcp {SDK_VERSION} has no server/discover: {version} runs over the initialize handshake", file=sys.stderr)
        # mcp 2.x yields (read, write); 1.x's streamable HTTP adds a get_session_id callback.
        opened = transport(call) if call.auth is None else authorized_transport(call, self._storages.storage(call))
        async with opened as streams:
            # The case's timeout is for the call (read_timeout_seconds of call_tool); the connect
            # keeps the SDK's defaults, so that a slow start on a loaded machine is not reported
            # as the call's timeout.
            async with ClientSession(
                streams[0],
                streams[1],
                client_info=types.Implementation(name="mcp-error-layers-adapter", version=SDK_VERSION),
            ) as session:
                yield session

    async def start(self, session: ClientSession, call: Call) -> None:
        # 2026-07-28: the SDK's stateless era, entered with a server/discover probe. 2025 versions:
        # the initialize handshake (the SDK offers its newest handshake version; the server echoes
        # one it supports).
        if modern(call):
            await session.discover()
        else:
            await session.initialize()

    async def call(self, session: ClientSession, call: Call, steps: contract.Steps) -> dict[str, Any]:
        self._storages.forget(call)
        if call.task is not None:
            return await steps.list_then_call(call, session.list_tools, lambda: call_as_task(session, call))
        call_timeout = timedelta(seconds=call.timeout_s) if TIMEOUT_AS_TIMEDELTA else call.timeout_s
        options: dict[str, Any] = {"read_timeout_seconds": call_timeout}
        if "allow_input_required" in CALL_TOOL_PARAMETERS:
            options["allow_input_required"] = True
        returned = await steps.list_then_call(call, session.list_tools, lambda: session.call_tool(call.tool, call.arguments, **options))
        return from_result(returned)

    def error(self, error: BaseException, call: Call, steps: contract.Steps) -> dict[str, Any]:
        return from_error(error, steps, modern(call), call.timeout_s, call.stdio)


def transport(call: Call) -> contextlib.AbstractAsyncContextManager[Any]:
    """The SDK's transport for the call: the streamable HTTP client to its endpoint, or over stdio
    the stdio client, which starts the server as a subprocess (the SDK's default environment
    subset, its stderr to ours) and stops it when the block is left."""
    if call.stdio:
        return stdio_client(StdioServerParameters(command=call.program, args=call.program_args))
    return streamable_http_client(call.endpoint)


def modern(call: Call) -> bool:
    """Whether the call speaks the SDK's stateless era (2026-07-28), entered with server/discover."""
    return HAS_DISCOVER and call.protocol_version in MODERN_PROTOCOL_VERSIONS


if __name__ == "__main__":
    # The SDK is imported above; the one argument of its own is `--tasks`, honoured where the SDK
    # has the experimental task API. The calls of a case run on one client, on a thread and an
    # event loop of its own (../kept.py); many clients at once in persistent mode.
    TASKS = "--tasks" in sys.argv[1:] and hasattr(ClientSession, "experimental")
    contract.main(lambda _arguments: kept.serving(PythonSdk()), package=PACKAGE, options="[--tasks]", tasks=TASKS, transports=contract.TRANSPORTS)
