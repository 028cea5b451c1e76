"""LangGraph's observer of timed attempts (``CONFIG_KEY_TIMED_ATTEMPT_OBSERVER``): a callable
in a run's configurable told the life of each attempt of a task that has a `TimeoutPolicy`,
as `_AttemptEvent`s: ``"start"`` when the attempt starts, ``"progress"`` when it signals
progress under an idle timeout (its runtime's ``heartbeat()``, and with ``refresh_on="auto"``
any LangChain callback event inside it; at most one per quarter of the idle timeout), and
``"finish"`` when it ends (``status`` ``"error"`` with the error's type and message, or
``"success"``: also for an interrupt or a ``Command(graph=PARENT)``, which are no failure),
before any retry wait and before an error handler starts. A watchdog outside the process
(LangGraph's server) reads them to tell a hung worker from a slow one.

The event types keep LangGraph's private names and fields (the server imports them from
``langgraph.pregel._retry``). An observer that raises is logged, never the task's failure.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

from superstep_compat._internal._constants import CONFIG_KEY_TIMED_ATTEMPT_OBSERVER
from superstep_compat.errors import GraphBubbleUp

__all__ = ["TimedAttempt", "_AttemptContext", "_AttemptEvent", "start_timed_attempt"]

log = logging.getLogger(__name__)


class _AttemptContext(NamedTuple):
    """What every event of one attempt shares: the task (id, node name), the attempt
    (1-based), the run, thread and namespace it runs in, when it started (UTC) and its
    limits in seconds (``refresh_on`` only with an idle timeout)."""

    task_id: str
    task_name: str
    attempt: int
    run_id: str | None
    thread_id: str | None
    checkpoint_ns: str | None
    started_at: datetime
    run_timeout_secs: float | None
    idle_timeout_secs: float | None
    refresh_on: Literal["auto", "heartbeat"] | None


@dataclass(frozen=True, slots=True)
class _AttemptEvent:
    """One event of a timed attempt (``event``): ``progress_at`` for a progress event;
    ``finished_at``, ``status`` and (an error) ``error_type``/``error_message`` for its end."""

    context: _AttemptContext
    event: Literal["start", "progress", "finish"]
    progress_at: datetime | None = None
    finished_at: datetime | None = None
    status: Literal["success", "error"] | None = None
    error_type: str | None = None
    error_message: str | None = None


class TimedAttempt:
    """One timed attempt being observed: `progress` and `finish` tell the observer."""

    __slots__ = ("_last_progress", "_observer", "context", "finished")

    def __init__(self, observer: Callable[[Any], None], context: _AttemptContext) -> None:
        self._observer = observer
        self.context = context
        self._last_progress = float("-inf")  # the first progress always passes
        self.finished = False

    def progress(self) -> None:
        """A progress event, unless one was told less than a quarter of the idle timeout
        ago (or the attempt has no idle timeout)."""
        idle = self.context.idle_timeout_secs
        if idle is None or self.finished:
            return
        now = time.monotonic()
        if now - self._last_progress < idle / 4:
            return
        self._last_progress = now
        self._tell(_AttemptEvent(self.context, "progress", progress_at=datetime.now(UTC)))

    def finish(self, error: BaseException | None) -> None:
        """The attempt's end (once): ``error`` the exception it failed with (an interrupt or
        a parent command is none)."""
        if self.finished:
            return
        self.finished = True
        if isinstance(error, GraphBubbleUp):
            error = None
        self._tell(
            _AttemptEvent(
                self.context,
                "finish",
                finished_at=datetime.now(UTC),
                status="success" if error is None else "error",
                error_type=None if error is None else type(error).__name__,
                error_message=None if error is None else str(error),
            )
        )

    def _tell(self, event: _AttemptEvent) -> None:
        try:
            self._observer(event)
        except Exception:
            log.warning("Timed attempt observer failed", exc_info=True)


def _seconds(value: Any) -> float | None:
    """A limit in seconds (a number or a timedelta; None stays None)."""
    if value is None:
        return None
    return float(value.total_seconds() if hasattr(value, "total_seconds") else value)


def start_timed_attempt(
    configurable: dict[str, Any], name: str, info: Any, limits: Any
) -> TimedAttempt | None:
    """Tell the observer in ``configurable`` (if any) that an attempt of the task of node
    ``name`` starts: ``info`` its `ExecutionInfo`, ``limits`` its `TimeoutPolicy` (None: not
    timed, not observed). Returns the attempt to report progress and its end to."""
    observer = configurable.get(CONFIG_KEY_TIMED_ATTEMPT_OBSERVER)
    if observer is None or limits is None:
        return None
    idle = _seconds(limits.idle_timeout)
    context = _AttemptContext(
        task_id=info.task_id,
        task_name=name,
        attempt=info.node_attempt,
        run_id=info.run_id,
        thread_id=info.thread_id,
        checkpoint_ns=info.checkpoint_ns,
        started_at=datetime.now(UTC),
        run_timeout_secs=_seconds(limits.run_timeout),
        idle_timeout_secs=idle,
        refresh_on=limits.refresh_on if idle is not None else None,
    )
    attempt = TimedAttempt(observer, context)
    attempt._tell(_AttemptEvent(context, "start"))
    return attempt
