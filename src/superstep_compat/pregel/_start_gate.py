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
    """Per run, one superstep at a time: `expect` the step's activations (its start), then
    each calls `started` once announced and `ended` with what streams its chunks. Safe to
    call from the host's worker threads; what it lets out runs under its lock, so released
    chunks keep the order of the tasks' ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: set[str] = set()
        self._held: list[Callable[[], None]] = []

    def expect(self, activations: Iterable[str]) -> None:
        """A step begins with these tasks; what an earlier step held is dropped (its
        tasks' chunks went out with that step, as for any task not streamed early)."""
        with self._lock:
            self._waiting = set(activations)
            self._held = []

    def started(self, activation_id: str) -> None:
        """Task ``activation_id`` announced its start (or has nothing to announce)."""
        with self._lock:
            self._waiting.discard(activation_id)
            if not self._waiting:
                self._release()

    def ended(self, activation_id: str, stream: Callable[[], None]) -> None:
        """Task ``activation_id`` ended: ``stream`` (its chunks) runs now when no sibling
        is still to announce its start, else once the last of them has."""
        with self._lock:
            self._waiting.discard(activation_id)
            self._held.append(stream)
            if not self._waiting:
                self._release()

    def _release(self) -> None:
        held, self._held = self._held, []
        for stream in held:
            stream()
