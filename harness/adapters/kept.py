"""One client per case for the Python adapters (docs/adapters.md, "One client per case"): the calls
of a case run on one client object, opened before the first call and closed after the last, as an
application keeps its client after a fault.

A row that keeps its client gives `contract.main` `serving(row)`, where `row` is a `Row`:

- `refuse(call)`: `{"unsupported": ...}` for a call the row cannot make (checked first, before
  any client is opened), or None;
- `steps()`: a fresh `contract.Steps`, the SDK's names for connect, list and call;
- `open(call)`: an async context manager that gives the client object (its `async with`);
  entered at the case's first call while `steps.now` is "connect", exited after the last;
- `start(client, call)`: the client's handshake once it is open (`initialize()`), if the SDK
  leaves it to the application; what it raises is the first call's observation;
- `call(client, call, steps)`: one call on the client, returning its observation; what it raises
  (an `Exception`) is the application's to catch, mapped by `error`, and the client stays for the
  next call;
- `error(error, call, steps)`: the observation for an exception the application caught during
  `steps.now`.

Each client lives on a thread of its own with an event loop of its own, in one task that enters
the row's context and makes the calls one after another, as an application's `async with` block
does. So structured concurrency holds (anyio's cancel scopes are entered and left in one task),
and what kills the SDK's session reaches the calls as it reaches an application:

- an error at a call that the call raises: that call's observation; the client stays;
- the context itself ending with an error (a session task that failed cancels the block): the call
  in flight gets the error as the application catches it, at its `async with`; every later call
  gets UNCLASSIFIED_ERROR "no client", since the application's client is gone with its block;
- a connect or handshake that fails: the call's observation, and the client is closed; the next
  call opens one again, as an application that never got a client tries again;
- the context's exit raising after the last call: appended to that call's detail (`then on
  close: ...`; docs/adapters.md, "An error raised twice"), if it raises within TEARDOWN_SECONDS;
  past that the last call is answered without it, and the teardown is cancelled.

A client whose next call does not come within `NEXT_CALL_WAIT` is closed (the runner sends a case's
calls one after another; this bounds a case the runner gave up on).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from concurrent.futures import Future
from typing import Any, AsyncContextManager, Callable

import contract
from contract import Call, observation

# How long a client waits for its case's next call before it closes itself.
NEXT_CALL_WAIT = 120.0
# How long the SDK's own teardown (task groups, a session's DELETE, a stdio server's shutdown) may
# take after the last call has its observation; past that the observation stands and teardown is
# abandoned.
TEARDOWN_SECONDS = 2.0


class Row:
    """What a row that keeps its client gives `serving` (see the module's docstring); a row
    subclasses it and defines all but `refuse`."""

    def steps(self) -> contract.Steps:
        raise NotImplementedError

    def refuse(self, call: Call) -> dict[str, Any] | None:
        """`{"unsupported": why}` for a call the row cannot make, before any client is opened for
        it; None (the default) for every call it can."""
        return None

    def open(self, call: Call) -> AsyncContextManager[Any]:
        raise NotImplementedError

    async def start(self, client: Any, call: Call) -> None:
        """The client's handshake, once it is open (the default: none)."""

    async def call(self, client: Any, call: Call, steps: contract.Steps) -> dict[str, Any]:
        raise NotImplementedError

    def error(self, error: BaseException, call: Call, steps: contract.Steps) -> dict[str, Any]:
        raise NotImplementedError


class Client:
    """One kept client: its thread, its loop, and the calls waiting for it."""

    def __init__(self, row: Row) -> None:
        self._row = row
        self._loop = asyncio.new_event_loop()
        self._inbox: asyncio.Queue[tuple[Call, Any, Future]] = asyncio.Queue()
        # How the client's context ended, once it did with an error: later calls say so.
        self._ended: str | None = None
        # Set while the SDK's teardown runs after the last call: cancels it when it takes too long.
        self._teardown: asyncio.TimerHandle | None = None
        # What the last call raised, if it raised: the exit often raises it again.
        self._raised: BaseException | None = None
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        try:
            self._loop.run_until_complete(self._serve())
        finally:
            self._loop.close()

    def submit(self, call: Call, request: Any) -> Future:
        """Queues `call` (request id `request`, for stderr) and returns its observation's future."""
        answer: Future = Future()
        self._loop.call_soon_threadsafe(self._inbox.put_nowait, (call, request, answer))
        return answer

    async def _next(self, timeout: float | None) -> tuple[Call, Any, Future] | None:
        try:
            return await asyncio.wait_for(self._inbox.get(), timeout)
        except TimeoutError:
            print(f"no next call within {NEXT_CALL_WAIT} s: the client is closed", file=sys.stderr)
            return None

    async def _serve(self) -> None:
        """Serves the case's calls as they come: the client opened for the first (and again after
        a connect that failed), "no client" once its context died."""
        waiting = await self._next(None)
        while waiting is not None:
            call = self._no_client(waiting) if self._ended is not None else await self._session(waiting)
            waiting = None if call is None or call.is_last else await self._next(NEXT_CALL_WAIT)

    def _no_client(self, waiting: tuple[Call, Any, Future]) -> Call:
        call, request, answer = waiting
        contract.REQUEST.set(request)
        answer.set_result(observation("UNCLASSIFIED_ERROR", self._ended or "no client"))
        return call

    async def _session(self, waiting: tuple[Call, Any, Future]) -> Call | None:
        """One life of the client: opened and started for `waiting`, serving calls until the last,
        or until the context ends. Returns the last call it served (None: no next call came)."""
        call, request, answer = waiting
        contract.REQUEST.set(request)
        steps = self._row.steps()
        last: dict[str, Any] | None = None
        try:
            async with self._row.open(call) as client:
                last = await self._start(client, call, steps)
                while last is None:
                    last = await self._one(client, call, steps)
                    if call.is_last:
                        break
                    answer.set_result(last)
                    last = None
                    waiting = await self._next(NEXT_CALL_WAIT)
                    if waiting is None:
                        return None
                    call, request, answer = waiting
                    contract.REQUEST.set(request)
                    steps = self._row.steps()
                # The observation stands; the SDK's teardown gets a bounded time.
                self._bound_teardown(answer, last)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # noqa: BLE001 - what the application's `async with` raises
            self._ended_with(error, call, answer, steps, last)
            return call
        finally:
            if self._teardown is not None:
                self._teardown.cancel()
        if not answer.done():
            answer.set_result(last)
        return call

    def _again(self, error: BaseException) -> str:
        """What the exit raised, as caught; "the same X again" when it is (or holds) the very
        exception the last call raised, which the detail shows already."""
        raised = self._raised
        if raised is None:
            return contract.caught(error)
        same = f"the same {type(raised).__module__}.{type(raised).__qualname__} again"
        if error is raised:
            return same
        if any(leaf is raised for leaf in contract.leaves(error)):
            return f"{contract.one_error(error)}, holding {same}"
        return contract.caught(error)

    def _bound_teardown(self, answer: Future, last: dict[str, Any]) -> None:
        """After TEARDOWN_SECONDS, answers the last call with `last` and cancels this task: the
        SDK's teardown (the context's exit) may not hold the client, nor the observation, longer
        once the last call has one. The answer goes first because a teardown may shield itself
        from the cancel (mcp 2.x's stdio shutdown closes the server's stdin, waits, then kills
        it, all shielded), which would hold the observation until it ends."""
        task = asyncio.current_task()
        if task is not None:
            self._teardown = self._loop.call_later(TEARDOWN_SECONDS, self._abandon, task, answer, last)

    @staticmethod
    def _abandon(task: asyncio.Task, answer: Future, last: dict[str, Any]) -> None:
        print(f"teardown: still running after {TEARDOWN_SECONDS} s; abandoned", file=sys.stderr)
        if not answer.done():
            answer.set_result(last)
        task.cancel()

    async def _start(self, client: Any, call: Call, steps: contract.Steps) -> dict[str, Any] | None:
        """The client's handshake; None when it went well, else the observation of the error it
        raised (the client is then closed, and the next call opens one again)."""
        try:
            await self._row.start(client, call)
            return None
        except Exception as error:  # noqa: BLE001 - every error the application receives is an observation
            return self._row.error(error, call, steps)

    async def _one(self, client: Any, call: Call, steps: contract.Steps) -> dict[str, Any]:
        """One call on the open client; an error it raises is the application's to catch."""
        steps.now = "call"
        self._raised = None
        try:
            return await self._row.call(client, call, steps)
        except Exception as error:  # noqa: BLE001 - every error the application receives is an observation
            self._raised = error
            return self._row.error(error, call, steps)

    def _ended_with(self, error: BaseException, call: Call, answer: Future, steps: contract.Steps, last: dict[str, Any] | None) -> None:
        """The context ended with `error` while `call` was in flight, after its observation (`last`,
        the case's last call), or after `call` was answered, while the client waited for the next."""
        if last is not None and answer.done():
            # The teardown was abandoned (`_abandon`): the last call has its observation already.
            if not isinstance(error, asyncio.CancelledError):
                print(f"on close, after the teardown was abandoned: {contract.describe(error)}", file=sys.stderr)
            return
        if answer.done():
            # The session's task died between two calls: the application's client is gone with its
            # block, and its next call finds none.
            print(f"after call {call.index + 1}: {contract.describe(error)}", file=sys.stderr)
            self._ended = f"no client: its context ended after call {call.index + 1} with {contract.caught(error)}"
            return
        if last is not None:
            if isinstance(error, asyncio.CancelledError):
                # A cancellation that did not come from the teardown bound.
                answer.set_result(last)
                return
            print(f"on close: {contract.describe(error)}", file=sys.stderr)
            answer.set_result({**last, "detail": f"{last['detail']}; then on close: {self._again(error)}"})
            return
        if steps.now != "connect":
            # The client was had and is gone with its block; a failed connect leaves none, and
            # the next call opens one again.
            self._ended = f"no client: its context ended at call {call.index + 1} with {contract.caught(error)}"
        answer.set_result(self._row.error(error, call, steps))


# The most clients one process keeps between calls: the runner takes each back at its case's next
# call, so this bounds only clients whose case the runner gave up on.
MAX_CLIENTS = 1024


def serving(row: Row) -> Callable[[Call], dict[str, Any]]:
    """The function of one call `contract.main` takes, for a row that keeps its client: each call
    goes to the client its `client` names (a new one for its first call, or for a call of a client
    this process never served), and the client is forgotten after its last call."""
    clients: dict[Any, Client] = {}
    lock = threading.Lock()

    def call(one: Call) -> dict[str, Any]:
        refused = row.refuse(one)
        if refused is not None:
            return refused
        with lock:
            client = clients.pop(one.client, None) if one.client is not None else None
            if client is None:
                client = Client(row)
            if one.client is not None and not one.is_last:
                if len(clients) >= MAX_CLIENTS:
                    clients.pop(next(iter(clients)))
                clients[one.client] = client
        return client.submit(one, contract.REQUEST.get()).result()

    return call
