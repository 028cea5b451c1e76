"""The order of a live step's ``tasks``/``debug`` events: every task start before any result.

LangGraph announces all the tasks of a superstep (a ``task`` event each, for the ``tasks``
and ``debug`` modes) before it runs any of them, so no task's result precedes a sibling's
start. The façade announces a task where it runs (its input is read there), and a live run
streams each task's chunks as the task ends (the host's result observer): a quick task
could then end before a sibling waiting for a worker has announced itself. `StartGate`
holds the streaming of finished tasks until every task of the step has announced its
start or ended, then lets the held ones out in the order they ended.

Imports nothing from the engine or the rest of the façade.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

__all__ = ["StartGate"]


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

    def expect(self, activations: Iterable[str]) -> None:
        """A step begins with these tasks; what an earlier step held is dropped (its
        tasks' chunks went out with that step, as for any task not streamed early)."""
        with self._lock:
            self._order = list(activations)
            self._next = 0
            self._ready = {}
            self._held = []

    def started(self, activation_id: str, announce: Callable[[], None] | None = None) -> None:
        """Task ``activation_id`` reached its start: ``announce`` (its start events, None
        when it has none) runs once every task before it in the step announced."""
        with self._lock:
            if activation_id not in self._order[self._next :]:
                if announce is not None:  # not one of the step's waiting tasks
                    announce()
                return
            self._ready[activation_id] = announce
            self._advance()

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
