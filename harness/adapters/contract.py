"""The adapter contract (docs/adapters.md) for the Python adapters here, in one place: a row keeps
only what is its SDK's (how to connect and call, and how the SDK's surface maps to an outcome).

- `main` runs a row in the mode the runner asked for. One-shot: the endpoint URL is the last
  argument (the word `stdio` for a call over stdio, whose server command comes in
  MCP_ERROR_LAYERS_STDIO_COMMAND) and the call comes in the MCP_ERROR_LAYERS_* variables; exactly
  one JSON line goes to stdout, everything else to stderr. Persistent
  (MCP_ERROR_LAYERS_MODE=persistent): once the SDK is loaded, announce `{"persistent": 1,
  "concurrent": CONCURRENT, "name": ..., "version": ...}`, then serve every request line as it
  comes, many at once, and answer each with one line that carries its request's `id`. Stdin closing means no more calls: the calls in flight finish.
- `Call` is one call, from either mode, over either transport (`transport`: "http", to `endpoint`;
  "stdio", through a server the client starts from `command`); `Steps` lists the tools first when
  the call asks.
- `observation` is one observation line; `caught` and `describe` put an exception (its group, its
  causes) into its `detail`; `from_http_layer` reads the layer under the SDK: httpx's error
  classes (every Python SDK here sits on httpx, or its fork httpx2) and JSON that does not parse.
- `TokenStorages`, `SeededTokenStorage` and `oauth_provider` hand an authorization case's start
  credentials to the Python SDK's `OAuthClientProvider` (docs/adapters.md, "Credentials"): every
  row whose client takes one uses them.

Persistent mode runs each call on a thread of its own with an event loop of its own, as a call
did in a process of its own: the SDKs do synchronous work between their awaits (creating an httpx
client loads the CA bundle, 60 to 150 ms of CPU), which on one shared event loop would stall every
other call in flight and shift its timing; threads are time-sliced by the interpreter every few
milliseconds.

Calls at once share stderr: every line written to it while a request is served (the adapter's
notes, the SDK's log records, warnings, tracebacks) starts with `[<id>] `, so that a reader can
tell the calls apart. The request a line belongs to is a context variable, set on the call's
thread and copied by asyncio into every task the SDK starts.

Standard library only (the credential helpers import the SDK's `mcp` when called); the adapters
import it from their parent folder.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import json
import logging
import os
import re
import sys
import threading
import traceback
import urllib.error
import urllib.request
from importlib.metadata import version as package_version
from typing import Any, Awaitable, Callable, NoReturn

# How many calls one process serves at once: the cases of a matrix row that run at once.
CONCURRENT = 16
# `detail` is the SDK's own text, whitespace collapsed, cut at this many characters.
MAX_DETAIL = 600
USAGE = "<endpoint-url> | stdio (the call comes in MCP_ERROR_LAYERS_* variables)"
# The transports of the contract, and the last argument of a one-shot call over stdio.
HTTP, STDIO = "http", "stdio"
TRANSPORTS = (HTTP, STDIO)

REQUEST: contextvars.ContextVar[int | None] = contextvars.ContextVar("request", default=None)

# One line at a time on stdout and on stderr, whichever thread writes it.
_WRITING = threading.Lock()


@dataclasses.dataclass(frozen=True)
class Call:
    """One call the runner asks for, whichever mode it came in."""

    # The server's URL over HTTP; None over stdio, where the client starts the server (`command`).
    endpoint: str | None
    tool: str
    arguments: dict[str, Any]
    protocol_version: str
    timeout_ms: int
    # The tool's annotations as tools/list advertises them: what a retry policy rests on.
    annotations: dict[str, Any]
    # List the tools first (docs/adapters.md, MCP_ERROR_LAYERS_LIST_TOOLS).
    list_tools: bool
    # The application asks for the call as a task ({} or {"ttl_ms": N}); None for an ordinary
    # call (docs/adapters.md, "Tasks").
    task: dict[str, Any] | None = None
    # The client's start credentials in an authorization case (access_token, refresh_token,
    # expires_in, expires_at, scope, client_id, client_secret, authorization_server,
    # token_endpoint, redirect_uri); None in every other case (docs/adapters.md, "Credentials").
    auth: dict[str, Any] | None = None
    # The client the call runs on: the same for every call of a case (docs/adapters.md, "One
    # client per case"); None for a call with a client of its own (one-shot mode).
    client: int | None = None
    # This call's place among the client's calls, from 0, and how many it makes.
    index: int = 0
    calls: int = 1
    # How the case is served: "http" (to `endpoint`) or "stdio" (the client starts `command` and
    # speaks newline-delimited JSON-RPC on its stdin and stdout).
    transport: str = HTTP
    # Over stdio: the server's command line, program first (an absolute path); None over HTTP.
    command: tuple[str, ...] | None = None

    @property
    def stdio(self) -> bool:
        """Whether the call runs over stdio: the client starts the server from `command`."""
        return self.transport == STDIO

    @property
    def program(self) -> str:
        """The stdio server's program (an absolute path), as an SDK's `command` parameter takes it."""
        assert self.command is not None, "a call over HTTP has no server command"
        return self.command[0]

    @property
    def program_args(self) -> list[str]:
        """The stdio server's arguments after its program, as an SDK's `args` parameter takes them."""
        assert self.command is not None, "a call over HTTP has no server command"
        return list(self.command[1:])

    @property
    def timeout_s(self) -> float:
        return self.timeout_ms / 1000

    @property
    def is_last(self) -> bool:
        """Whether the client is closed after this call."""
        return self.index + 1 >= self.calls

    @classmethod
    def from_env(cls, endpoint: str) -> Call:
        """The one-shot call: `endpoint` (the last argument: the URL, or the word `stdio`) and the
        MCP_ERROR_LAYERS_* variables (KeyError, ValueError)."""
        env = os.environ
        transport = env.get("MCP_ERROR_LAYERS_TRANSPORT", HTTP)
        if (endpoint == STDIO) != (transport == STDIO):
            raise ValueError(f"the last argument {endpoint!r} does not match MCP_ERROR_LAYERS_TRANSPORT={transport!r}")
        stdio = transport == STDIO
        return cls(
            endpoint=None if stdio else endpoint,
            transport=transport,
            command=server_command(transport, json.loads(env["MCP_ERROR_LAYERS_STDIO_COMMAND"]) if stdio else None),
            tool=env["MCP_ERROR_LAYERS_TOOL"],
            arguments=json.loads(env.get("MCP_ERROR_LAYERS_ARGUMENTS", "{}")),
            protocol_version=env.get("MCP_ERROR_LAYERS_PROTOCOL_VERSION", "2026-07-28"),
            timeout_ms=int(env.get("MCP_ERROR_LAYERS_TIMEOUT_MS", "5000")),
            annotations=json.loads(env.get("MCP_ERROR_LAYERS_TOOL_ANNOTATIONS", "{}")),
            list_tools=env.get("MCP_ERROR_LAYERS_LIST_TOOLS") == "1",
            task=json.loads(env["MCP_ERROR_LAYERS_TASK"]) if "MCP_ERROR_LAYERS_TASK" in env else None,
            auth=json.loads(env["MCP_ERROR_LAYERS_AUTH"]) if "MCP_ERROR_LAYERS_AUTH" in env else None,
            index=int(env.get("MCP_ERROR_LAYERS_CALL_INDEX", "0")),
            calls=int(env.get("MCP_ERROR_LAYERS_CALLS", "1")),
        )

    @classmethod
    def from_request(cls, request: dict[str, Any]) -> Call:
        """A persistent-mode request line, parsed."""
        transport = request.get("transport", HTTP)
        return cls(
            # Over stdio the request's endpoint is null: the client starts the server.
            endpoint=None if transport == STDIO else request["endpoint"],
            transport=transport,
            command=server_command(transport, request.get("command")),
            tool=request["tool"],
            arguments=request["arguments"],
            protocol_version=request["protocol_version"],
            timeout_ms=request["timeout_ms"],
            annotations=request.get("annotations") or {},
            list_tools=request.get("list_tools") is True,
            task=request.get("task"),
            auth=request.get("auth"),
            client=request.get("client"),
            index=request.get("call", 0),
            calls=request.get("calls", 1),
        )


# Credentials (docs/adapters.md, "Credentials"): what every Python row whose client takes the
# Python SDK's `OAuthClientProvider` (the SDK itself, and the frameworks over it) gives it. These
# import the SDK's `mcp` types when called, so the rest of this module stays standard library only.


class InteractiveAuthorizationNotCompleted(Exception):
    """The callback handler's answer: nobody signs in here, so no authorization code comes back."""


class SeededTokenStorage:
    """The Python SDK's `TokenStorage` protocol over an authorization case's start credentials
    (`Call.auth`): what a user who signed in earlier left behind, kept as the SDK stores it."""

    def __init__(self, auth: dict[str, Any]) -> None:
        from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

        self.tokens: Any = None
        if auth.get("access_token") is not None:
            fields = {"refresh_token": auth.get("refresh_token"), "expires_in": auth.get("expires_in"), "scope": auth.get("scope")}
            self.tokens = OAuthToken(
                access_token=auth["access_token"], token_type="Bearer", **{k: v for k, v in fields.items() if v is not None}
            )
        secret = auth.get("client_secret")
        self.client_info: Any = OAuthClientInformationFull(
            client_id=auth["client_id"],
            redirect_uris=[auth["redirect_uri"]],
            token_endpoint_auth_method="client_secret_basic" if secret is not None else "none",
            **({"client_secret": secret} if secret is not None else {}),
        )

    async def get_tokens(self) -> Any:
        return self.tokens

    async def set_tokens(self, tokens: Any) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> Any:
        return self.client_info

    async def set_client_info(self, client_info: Any) -> None:
        self.client_info = client_info


class TokenStorages:
    """The token storage of each authorization case's client, by client id: seeded from
    `Call.auth` at the case's first call and found again by a client opened later in the case
    (after a failed connect), as an application's storage outlives one connection."""

    def __init__(self) -> None:
        self._kept: dict[int, SeededTokenStorage] = {}
        self._lock = threading.Lock()

    def storage(self, call: Call) -> SeededTokenStorage:
        """The case's storage: seeded once, when its client is first created."""
        assert call.auth is not None, "only an authorization case has credentials"
        with self._lock:
            kept = None
            if call.index > 0 and call.client is not None:
                # The last call takes the storage out: nothing is left behind, whether its
                # connect succeeds (and `forget` runs) or not.
                kept = self._kept.pop(call.client, None) if call.is_last else self._kept.get(call.client)
            storage = kept or SeededTokenStorage(call.auth)
            if call.client is not None and not call.is_last:
                self._kept[call.client] = storage
            return storage

    def forget(self, call: Call) -> None:
        """Drop the case's storage after its last call."""
        if call.is_last and call.client is not None:
            with self._lock:
                self._kept.pop(call.client, None)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _first_answer(url: str) -> int:
    try:
        with urllib.request.build_opener(_NoRedirect).open(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as answer:
        return int(answer.code)


async def open_authorization_url(url: str) -> None:
    """A provider's redirect handler: one GET to the authorization URL, as a browser opened on it
    would send, following nothing; nothing is opened."""
    try:
        status = await asyncio.to_thread(_first_answer, url)
        print(f"the SDK asked for an interactive authorization: GET {url} answered {status}", file=sys.stderr)
    except OSError as error:
        print(f"the SDK asked for an interactive authorization: GET {url} failed: {error}", file=sys.stderr)


async def no_authorization_code() -> Any:
    """A provider's callback handler: no user completes the authorization, so none comes back."""
    print("no authorization code comes back: the callback handler gives up", file=sys.stderr)
    raise InteractiveAuthorizationNotCompleted("nothing completes an interactive authorization here")


def oauth_provider(call: Call, storage: SeededTokenStorage) -> Any:
    """The Python SDK's `OAuthClientProvider` (an `httpx.Auth`) for the call's endpoint over
    `storage`, with the SDK's defaults: the client metadata names only the redirect URI, the
    redirect handler is `open_authorization_url`, the callback handler `no_authorization_code`."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    assert call.auth is not None and call.endpoint is not None, "an authorization case runs over HTTP"
    return OAuthClientProvider(
        server_url=call.endpoint,
        client_metadata=OAuthClientMetadata(redirect_uris=[call.auth["redirect_uri"]]),
        storage=storage,
        redirect_handler=open_authorization_url,
        callback_handler=no_authorization_code,
    )


def server_command(transport: str, command: Any) -> tuple[str, ...] | None:
    """The stdio server's command line of a call over `transport`, checked: a non-empty list of
    strings over stdio, nothing over HTTP (ValueError otherwise)."""
    if transport not in TRANSPORTS:
        raise ValueError(f"unknown transport {transport!r} (expected one of {', '.join(TRANSPORTS)})")
    if transport == HTTP:
        return None
    if not isinstance(command, list) or not command or not all(isinstance(word, str) for word in command):
        raise ValueError(f"a call over stdio needs its server's command line as a non-empty JSON array of strings, not {command!r}")
    return tuple(command)


class Steps:
    """Where a call is: "connect" until the SDK is connected, "list" while it lists the tools (when
    the call asks), then "call". An error is reported after the words of the step it came from,
    `<the SDK's name for the step> failed: `."""

    def __init__(self, *, connect: str, list: str, call: str) -> None:  # noqa: A002 - the step's name
        self._names = {"connect": connect, "list": list, "call": call}
        self.now = "connect"

    @property
    def where(self) -> str:
        return f"{self._names[self.now]} failed: "

    async def list_then_call(self, call: Call, list_tools: Callable[[], Awaitable[Any]], call_tool: Callable[[], Awaitable[Any]]) -> Any:
        """Lists the tools first when the call asks, as an application does to learn the tool's
        schemas (a client can only check `structuredContent` against a schema it has seen), then
        makes the call and returns what it returned."""
        if call.list_tools:
            self.now = "list"
            await list_tools()
        self.now = "call"
        return await call_tool()


def observation(outcome: str, detail: str, *, status: int | None = None, code: int | None = None) -> dict[str, Any]:
    text = re.sub(r"\s+", " ", detail).strip()
    if len(text) > MAX_DETAIL:
        text = text[:MAX_DETAIL] + "…"
    return {"outcome": outcome, "status": status, "code": code, "detail": text}


def shown(value: Any) -> str:
    """`module.Type: repr` of a value a framework returned, the repr cut at 200 characters, for an
    observation's detail (a framework that returns the content alone has nothing else to show)."""
    shape = repr(value)
    if len(shape) > 200:
        shape = shape[:200] + "..."
    return f"{type(value).__module__}.{type(value).__qualname__}: {shape}"


def chain(error: BaseException, *, suppressed: bool = False) -> list[BaseException]:
    """The error and what caused it: explicit causes, else the implicit context. A context the
    code suppressed (`raise ... from None`) is followed only when `suppressed` is true."""
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
    if isinstance(error, asyncio.CancelledError):
        return []
    return [error]


def one_error(error: BaseException) -> str:
    """`module.Class: message`; a pydantic ValidationError (the SDKs' models) as its issues, told
    by its methods so that this module needs no pydantic."""
    name = f"{type(error).__module__}.{type(error).__qualname__}"
    if callable(getattr(error, "errors", None)) and hasattr(error, "error_count") and hasattr(error, "title"):
        issues = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc']) or '(root)'}: {issue['msg']} [{issue['type']}]"
            for issue in error.errors(include_url=False, include_input=False)
        )
        return f"{name}: {error.error_count()} validation error(s) for {error.title}: {issues}"
    text = re.sub(r"\s*For further information visit \S+", "", str(error))
    return f"{name}: {text}" if text else name


def describe(error: BaseException) -> str:
    """The error and its causes; a cause that repeats the text before it shows only its class.
    Suppressed contexts count (an httpx ReadError says nothing by itself; the ConnectionResetError
    under it does), up to the first cancellation (a timeout's machinery)."""
    causes = []
    for current in chain(error, suppressed=True):
        if isinstance(current, asyncio.CancelledError):
            break
        causes.append(current)
    parts: list[str] = []
    previous = None
    for current in causes[:5]:
        text = str(current)
        if text and text == previous:
            parts.append(f"{type(current).__module__}.{type(current).__qualname__}")
        else:
            parts.append(one_error(current))
        previous = text
    return " <- caused by ".join(parts)


def caught(error: BaseException) -> str:
    """The description of the exception the application's call site received, as it received
    it. An exception group (anyio's or asyncio's task group: "unhandled errors in a TaskGroup")
    is named first, with every leaf after it: the application catches the group, not what it
    holds, so a row maps the group itself (to UNCLASSIFIED_ERROR, as no typed attribute of it
    names a layer) and the leaves are only its detail (docs/adapters.md, "What the application
    catches")."""
    if not isinstance(error, BaseExceptionGroup):
        return describe(error)
    inner = leaves(error)
    held = " | ".join(describe(e) for e in inner) if inner else "only cancellations"
    return f"{one_error(error)}, holding: {held}"


def from_http_layer(httpx: Any, error: BaseException, text: str) -> dict[str, Any] | None:
    """Observation for an error of the layer under the SDK, or None when it is not one: the HTTP
    client (the `httpx` module given: httpx, or its fork httpx2, whose classes are the same) and
    a response body that the `json` module cannot parse."""
    if isinstance(error, httpx.HTTPStatusError):
        return observation("HTTP_ERROR", text, status=error.response.status_code)
    if isinstance(error, httpx.TimeoutException):
        return observation("TIMEOUT", text)
    if isinstance(error, httpx.ConnectError):
        return observation("CONNECTION_ERROR", text)
    if isinstance(error, httpx.RemoteProtocolError) and "without sending a response" in str(error):
        # h11/httpcore: the server closed the connection before any status line.
        return observation("CONNECTION_ERROR", text)
    if isinstance(error, httpx.RemoteProtocolError) and "without sending complete message body" in str(error):
        # h11/httpcore: a response had started and its body was cut short.
        return observation("STREAM_INCOMPLETE", text)
    if isinstance(error, httpx.NetworkError) and any(isinstance(e, ConnectionError) for e in chain(error, suppressed=True)):
        # ReadError/WriteError caused by ECONNRESET/EPIPE: the connection was reset.
        return observation("CONNECTION_ERROR", text)
    if isinstance(error, json.JSONDecodeError):
        return observation("MALFORMED_JSON", text)
    return None


class PrefixedStderr:
    """A text stream in front of stderr that writes whole lines only, each under a lock, and
    starts a line written while a request is served with `[<id>] `. What a thread writes before
    its newline waits on that thread until the newline (or a flush)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._partial = threading.local()

    def write(self, text: str) -> int:
        pending = getattr(self._partial, "text", "") + text
        complete, newline, rest = pending.rpartition("\n")
        self._partial.text = rest
        if newline:
            self._emit(complete + newline)
        return len(text)

    def flush(self) -> None:
        rest = getattr(self._partial, "text", "")
        self._partial.text = ""
        self._emit(rest)
        self._stream.flush()

    def _emit(self, text: str) -> None:
        if not text:
            return
        request = REQUEST.get()
        if request is not None:
            text = "".join(f"[{request}] {line}" if line.strip() else line for line in text.splitlines(keepends=True))
        with _WRITING:
            self._stream.write(text)
            self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def prefix_stderr() -> None:
    """Puts `PrefixedStderr` in front of `sys.stderr`, for the log handlers already set up too."""
    original = sys.stderr
    sys.stderr = PrefixedStderr(original)
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler) and handler.stream is original:
            handler.setStream(sys.stderr)


def write_line(line: dict[str, Any]) -> None:
    with _WRITING:
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()


def _answer(call: Callable[[Call], dict[str, Any]], request: dict[str, Any]) -> None:
    request_id = request.get("id")
    REQUEST.set(request_id)
    try:
        result = call(Call.from_request(request))
    except Exception as error:  # noqa: BLE001 - one call's failure must not end the others
        traceback.print_exc()
        # Not an observation: the runner makes this call an adapter-error and shows the line.
        result = {"error": f"the adapter failed: {error!r}"}
    write_line(result if request_id is None else {"id": request_id, **result})


def serve(call: Callable[[Call], dict[str, Any]], package: str) -> int:
    """Announces persistent mode, naming `package` at its installed version, and serves until
    stdin closes: `call` makes one call (on its own event loop) and returns its observation."""
    prefix_stderr()
    write_line({"persistent": 1, "concurrent": CONCURRENT, "name": package, "version": package_version(package)})
    in_flight = []
    for line in sys.stdin:
        if line.strip():
            # A fresh context for each call: its REQUEST is its own.
            thread = threading.Thread(target=contextvars.Context().run, args=(_answer, call, json.loads(line)), daemon=True)
            thread.start()
            in_flight = [t for t in in_flight if t.is_alive()] + [thread]
    for thread in in_flight:
        thread.join()
    return 0


def run_once(call: Callable[[Call], dict[str, Any]], endpoint: str) -> int:
    """One-shot mode: the call from `endpoint` and the environment, its observation on stdout."""
    try:
        one = Call.from_env(endpoint)
    except (KeyError, ValueError) as error:
        print(f"adapter error: bad MCP_ERROR_LAYERS_* environment: {error!r}", file=sys.stderr)
        return 2
    write_line(call(one))
    return 0


# What an adapter that makes no task calls says to a call that asks for a task.
NO_TASKS = "this adapter uses no task API of its client, so it cannot run a call as a task (docs/adapters.md, \"Tasks\")"


def without_tasks(call: Callable[[Call], dict[str, Any]]) -> Callable[[Call], dict[str, Any]]:
    """`call`, with every call that asks for a task answered `unsupported` (NO_TASKS)."""

    def guarded(one: Call) -> dict[str, Any]:
        return {"unsupported": NO_TASKS} if one.task is not None else call(one)

    return guarded


def only_over(transports: tuple[str, ...], call: Callable[[Call], dict[str, Any]]) -> Callable[[Call], dict[str, Any]]:
    """`call`, with every call over a transport not in `transports` answered `unsupported`."""

    def guarded(one: Call) -> dict[str, Any]:
        if one.transport not in transports:
            return {"unsupported": f"this adapter does not drive its client over {one.transport} (it speaks {', '.join(transports)})"}
        return call(one)

    return guarded


def main(
    prepare: Callable[[list[str]], Callable[[Call], dict[str, Any]]],
    *,
    package: str,
    options: str = "",
    tasks: bool = False,
    transports: tuple[str, ...] = (HTTP,),
) -> NoReturn:
    """Runs an adapter in the mode the runner asked for, then leaves the process at once (nothing
    of the SDK may keep it alive after the observation).

    `prepare(arguments)` reads the row's own arguments (those before the endpoint URL; `options`
    is their synopsis for the usage line), loads the SDK and returns the function that makes one
    call. Persistent mode announces only after it: the runner starts a call's deadline when it
    writes the request line, so an SDK loaded later would be charged to the first calls.
    `package` is the SDK as its registry names it; the announcement names its installed version.
    An adapter that runs task calls through its client's task API passes `tasks=True`; every
    other one answers a call that asks for a task `unsupported` (`without_tasks`). `transports` are
    the ones the row drives its client over (`("http", "stdio")` for a row that speaks stdio too,
    as its adapter.toml says); a call over any other is `unsupported` (`only_over`)."""
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("MCP_ERROR_LAYERS_LOG", "WARNING"))

    def guard(call: Callable[[Call], dict[str, Any]]) -> Callable[[Call], dict[str, Any]]:
        return only_over(transports, call if tasks else without_tasks(call))

    if os.environ.get("MCP_ERROR_LAYERS_MODE") == "persistent":
        code = serve(guard(prepare(sys.argv[1:])), package)
    elif len(sys.argv) > 1 and (re.match(r"^https?://", sys.argv[-1]) or sys.argv[-1] == STDIO):
        code = run_once(guard(prepare(sys.argv[1:-1])), sys.argv[-1])
    else:
        words = [os.path.basename(sys.argv[0]), options, USAGE]
        print("usage: " + " ".join(word for word in words if word), file=sys.stderr)
        code = 2
    sys.stderr.flush()
    os._exit(code)
