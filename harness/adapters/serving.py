"""Persistent mode for the Python adapters here (docs/adapters.md, "Persistent mode"): announce
`{"persistent": 1, "concurrent": CONCURRENT}`, then serve every request line as it comes, many at
once, and answer each with one line that carries its request's `id`. Stdin closing means no more
calls: the calls in flight finish, then `serve` returns.

Each call runs on a thread of its own with an event loop of its own, as a call did in a process of
its own: the SDKs do synchronous work between their awaits (creating an httpx client loads the CA
bundle, 60 to 150 ms of CPU), which on one shared event loop would stall every other call in
flight and shift its timing; threads are time-sliced by the interpreter every few milliseconds.

Calls at once share stderr: every line written to it while a request is served (the adapter's
notes, the SDK's log records, warnings, tracebacks) starts with `[<id>] `, so that a reader can
tell the calls apart. The request a line belongs to is a context variable, set on the call's
thread and copied by asyncio into every task the SDK starts.

Standard library only; the adapters import it from their parent folder.
"""

from __future__ import annotations

import contextvars
import json
import logging
import sys
import threading
import traceback
from typing import Any, Callable

# How many calls one process serves at once: the cases of a matrix row that run at once.
CONCURRENT = 16

REQUEST: contextvars.ContextVar[int | None] = contextvars.ContextVar("request", default=None)

# One line at a time on stdout and on stderr, whichever thread writes it.
_WRITING = threading.Lock()


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


def _answer(call: Callable[[dict[str, Any]], dict[str, Any]], request: dict[str, Any]) -> None:
    request_id = request.get("id")
    REQUEST.set(request_id)
    try:
        result = call(request)
    except Exception as error:  # noqa: BLE001 - one call's failure must not end the others
        traceback.print_exc()
        # Not an observation: the runner makes this call an adapter-error and shows the line.
        result = {"error": f"the adapter failed: {error!r}"}
    line = result if request_id is None else {"id": request_id, **result}
    with _WRITING:
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()


def serve(call: Callable[[dict[str, Any]], dict[str, Any]]) -> int:
    """Announces persistent mode and serves until stdin closes: `call(request)` makes one call
    (on its own event loop) and returns its observation. The exit status."""
    prefix_stderr()
    print(json.dumps({"persistent": 1, "concurrent": CONCURRENT}), flush=True)
    in_flight = []
    for line in sys.stdin:
        if line.strip():
            # A fresh context for each call: its REQUEST is its own.
            thread = threading.Thread(target=contextvars.Context().run, args=(_answer, call, json.loads(line)), daemon=True)
            thread.start()
            in_flight = [t for t in in_flight if t.is_alive()] + [thread]
    for thread in in_flight:
        thread.join()
    sys.stderr.flush()
    return 0
