"""Running awaitable work under a run timeout and an idle timeout measured on a `Clock`: the
one deadline mechanism of the hosts (an effect's ``timeout``/``idle_timeout``), also used by
libraries that run work for a host (the LangGraph façade's async ``@task`` calls).

Progress (for the idle limit) is signalled with `heartbeat` from inside the work: the work's
task runs in a context whose `Progress` the heartbeat touches.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any, Literal

from superstep_core.host.clock import Clock

__all__ = [
    "DeadlineExceeded",
    "Progress",
    "current_heartbeat",
    "deadline_stop",
    "heartbeat",
    "within",
]


class DeadlineExceeded(Exception):
    """Work ran past its ``limit`` (``kind``: ``"run"`` or ``"idle"``), after ``elapsed``
    seconds of the clock."""

    def __init__(self, kind: Literal["run", "idle"], limit: float, elapsed: float) -> None:
        super().__init__(f"{kind} timeout of {limit:.3f}s exceeded (elapsed: {elapsed:.3f}s)")
        self.kind: Literal["run", "idle"] = kind
        self.limit = limit
        self.elapsed = elapsed


class Progress:
    """When the watched work last signalled progress, as a reading of the clock; ``stopped``:
    the `DeadlineExceeded` the work was cancelled for (set just before it is cancelled)."""

    def __init__(self, now: Callable[[], float]) -> None:
        self._now = now
        self.last = now()
        self.stopped: DeadlineExceeded | None = None

    def touch(self) -> None:
        self.last = self._now()


_progress: ContextVar[Progress | None] = ContextVar("superstep_work_progress", default=None)


def heartbeat() -> None:
    """Signal that the work running in this context makes progress (refreshes its idle
    timeout). Does nothing outside watched work."""
    progress = _progress.get()
    if progress is not None:
        progress.touch()


def current_heartbeat() -> Callable[[], None]:
    """The `heartbeat` of the work running in this context, bound now: callable from any
    thread or context later (a callback handler, say); a no-op outside watched work."""
    progress = _progress.get()
    return progress.touch if progress is not None else _nothing


def deadline_stop() -> DeadlineExceeded | None:
    """The `DeadlineExceeded` that stopped the watched work running in this context (read
    while it unwinds from its cancellation, or in a worker thread it handed the work to, once
    that returns), or None: not stopped at a deadline (or not watched work). Work that is
    cancelled may so tell a timeout from any other cancellation."""
    progress = _progress.get()
    return progress.stopped if progress is not None else None


def _nothing() -> None:
    return None


async def within(
    clock: Clock,
    work: Callable[[], Awaitable[Any]],
    *,
    timeout: float | None = None,
    idle_timeout: float | None = None,
) -> Any:
    """``await work()``, cancelled once ``timeout`` seconds have passed on ``clock``, or
    ``idle_timeout`` seconds without a `heartbeat`; then raises `DeadlineExceeded`. Without
    either limit the work is simply awaited."""
    if timeout is None and idle_timeout is None:
        return await work()
    started = clock.now()
    progress = Progress(clock.now)
    token = _progress.set(progress)  # the work's task copies this context
    try:
        task = asyncio.ensure_future(work())
    finally:
        _progress.reset(token)
    while True:
        now = clock.now()
        limits: list[tuple[float, float, Literal["run", "idle"]]] = []
        if timeout is not None:
            limits.append((started + timeout - now, timeout, "run"))
        if idle_timeout is not None:
            limits.append((progress.last + idle_timeout - now, idle_timeout, "idle"))
        wait, limit, kind = min(limits)
        if wait <= 0:
            break
        deadline = asyncio.ensure_future(clock.asleep(wait))
        try:
            await asyncio.wait({task, deadline}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            deadline.cancel()
        if task.done():
            return task.result()
    stop = progress.stopped = DeadlineExceeded(kind, limit, clock.now() - started)
    task.cancel()
    with contextlib.suppress(BaseException):
        await task  # let it unwind (a thread in an executor runs on, its result unused)
    raise stop
