"""The order of a live step's ``tasks``/``debug`` events: every task start before any result.

LangGraph announces all the tasks of a superstep (a ``task`` event each, for the ``tasks``
and ``debug`` modes) before it runs any of them, so no task's result precedes a sibling's
start. The façade announces a task where it runs (its input is read there), and a live run
streams each task's chunks as the task ends (the host's result observer): a quick task
could then end before a sibling waiting for a worker has announced itself. `StartGate`
holds the streaming of finished tasks until every task of the step has announced its
start or ended, then lets the held ones out in the order they ended.

A root run's stream is lazy in LangGraph: a step's task starts are yielded before its tasks
are launched, so no node of the step runs until the consumer has pulled every start of the
step and asked for more (a consumer that stops after the first start ran no node). With
``hold``, `StartGate` does the same with tasks that announce themselves where they run: each
task waits after its start (`Go`) until the run's driver, having handed the consumer every
start of the step, is asked for what comes next (`release`); a stream closed before that
`abort`s them (their nodes never run).

Imports nothing from the engine or the rest of the façade.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable

__all__ = ["Go", "StartGate", "StepAbandoned"]


class StepAbandoned(BaseException):
    """Raised in a task held at its start when the consumer closed the stream first: the
    task's node never runs (as under LangGraph, whose stream never launched it). A
    BaseException, so no retry policy nor error handler takes it for the node's failure."""


class Go:
    """What the tasks of one held step wait on: set once (`release`: they run; `abort`:
    they raise `StepAbandoned`). Tasks run on threads `wait`; coroutines `await` `until`."""

    __slots__ = ("_event", "_waiters", "aborted")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self.aborted = False

    def wait(self) -> None:
        self._event.wait()
        if self.aborted:
            raise StepAbandoned

    async def until(self) -> None:
        if not self._event.is_set():
            loop = asyncio.get_running_loop()
            future: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, future))
            if not self._event.is_set():  # set meanwhile (from another thread)
                await future
        if self.aborted:
            raise StepAbandoned

    def _set(self, aborted: bool) -> None:
        if self._event.is_set():
            return
        self.aborted = aborted
        self._event.set()
        for loop, future in self._waiters:
            loop.call_soon_threadsafe(_resolve, future)
        self._waiters.clear()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class StartGate:
    """Per run, one superstep at a time: `expect` the step's activations in the step's task
    order, then each task calls `started` with what announces it and `ended` with what
    streams its chunks. Starts go out in the step's task order (tasks run on threads announce
    themselves in any order), results once every start is out, in the order the tasks
    ended. Safe to call from the host's worker threads; what it lets out runs under its
    lock, so the order it chose is the stream's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._order: list[str] = []
        self._next = 0  # tasks of ``_order`` announced so far
        self._ready: dict[str, Callable[[], None] | None] = {}
        self._held: list[Callable[[], None]] = []
        self._go: Go | None = None  # the held step's, until released
        self.wake: Callable[[], None] | None = None
        """Wakes the run's driver when every start of a held step is out (`releasable`)."""

    def expect(self, activations: Iterable[str], *, hold: bool = False) -> None:
        """A step begins with these tasks; what an earlier step held is dropped (its
        tasks' chunks went out with that step, as for any task not streamed early).
        ``hold``: its tasks wait after their start until `release`d."""
        with self._lock:
            self._order = list(activations)
            self._next = 0
            self._ready = {}
            self._held = []
            self._go = Go() if hold and self._order else None

    def started(self, activation_id: str, announce: Callable[[], None] | None = None) -> Go | None:
        """Task ``activation_id`` reached its start: ``announce`` (its start events, None
        when it has none) runs once every task before it in the step announced. Returns
        what the task waits on before running its node (None: it runs at once)."""
        with self._lock:
            if activation_id not in self._order[self._next :]:
                if announce is not None:  # not one of the step's waiting tasks
                    announce()
                return None
            self._ready[activation_id] = announce
            self._advance()
            return self._go

    @property
    def releasable(self) -> bool:
        """Whether a held step's every start is out and its tasks still wait (read by the
        driver before it drains what was emitted: those starts are then among it)."""
        go = self._go
        return go is not None and self._next == len(self._order)

    def release(self) -> None:
        """The consumer pulled the held step's starts and asked for more: its tasks run."""
        with self._lock:
            go, self._go = self._go, None
        if go is not None:
            go._set(aborted=False)

    def abort(self) -> None:
        """The stream was closed: tasks still held raise `StepAbandoned` (a no-op once
        released)."""
        with self._lock:
            go, self._go = self._go, None
        if go is not None:
            go._set(aborted=True)

    @property
    def waiting(self) -> bool:
        """Whether a start of the step is still to go out (read without the lock: once every
        start is out this stays False until the next `expect`, made between steps, and
        nothing is held then, so a task ending with nothing to stream may skip `ended`)."""
        return self._next < len(self._order)

    def ended(self, activation_id: str, stream: Callable[[], None]) -> None:
        """Task ``activation_id`` ended: ``stream`` (its chunks) runs once every start of
        the step is out (at once when none is waiting)."""
        with self._lock:
            self._ready.setdefault(activation_id, None)  # ended without announcing
            self._held.append(stream)
            self._advance()

    def _advance(self) -> None:
        order, ready = self._order, self._ready
        while self._next < len(order) and order[self._next] in ready:
            announce = ready.pop(order[self._next])
            self._next += 1
            if announce is not None:
                announce()
        if self._next == len(order):
            held, self._held = self._held, []
            for stream in held:
                stream()
            if self._go is not None and self.wake is not None:
                self.wake()  # the driver may have nothing else to wake it
