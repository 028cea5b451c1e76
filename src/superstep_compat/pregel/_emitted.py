"""`EmittedEvents`: what a façade run's tasks emit while their step runs (custom, messages,
a subgraph's chunks), kept for the run's driver; tasks emit from the host's worker threads,
the driver drains between steps, or as they arrive when the run streams live (`_live`,
woken through the notify hook it sets). One collaborator of `GraphRun`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["EmittedEvents"]

Event = tuple[tuple[str, ...], str, Any]
"""(namespace, stream mode, data)."""


class EmittedEvents:
    """The events tasks emitted and the driver has not taken yet."""

    def __init__(self) -> None:
        self.pending: list[Event] = []
        self._lock = threading.Lock()
        # wakes the driver waiting for what tasks emit (a live run's, `_live`)
        self._notify: Callable[[], None] | None = None

    def emit(self, mode: str, data: Any, ns: tuple[str, ...] = ()) -> None:
        """Keep one event (from any thread); wake a driver waiting for it."""
        with self._lock:
            self.pending.append((ns, mode, data))
        notify = self._notify
        if notify is not None:
            notify()

    def has_pending(self) -> bool:
        return bool(self.pending)

    def wake(self) -> None:
        """Wake a driver waiting for events (something else it watches changed)."""
        notify = self._notify
        if notify is not None:
            notify()

    def set_notify(self, notify: Callable[[], None] | None) -> None:
        self._notify = notify

    def drain(self) -> list[Event]:
        """The events kept so far, oldest first (none kept after)."""
        with self._lock:
            out, self.pending = self.pending, []
        return out

    def live_hooks(
        self,
    ) -> tuple[Callable[[], bool], Callable[[], list[Event]], Callable[..., None]]:
        """(has_pending, drain, set_notify): what `_live.advance_live` watches."""
        return self.has_pending, self.drain, self.set_notify
