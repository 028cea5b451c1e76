"""Clocks: the only source of time, and only the host reads one.

`SystemClock` is this process's monotonic time; `WallClock` is seconds since the Unix epoch,
the same in every process (durable timers record their deadlines on it, so a restarted process
fires them when they are due, not a full delay later); `VirtualClock` (re-exported from
`superstep_core.testing`) jumps instantly, so tests of timers and backoff never sleep.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

__all__ = ["Clock", "SystemClock", "VirtualClock", "WallClock"]


class Clock(Protocol):
    """Seconds as floats. ``sleep``/``asleep`` wait until ``now() >= now_before + seconds``."""

    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...

    async def asleep(self, seconds: float) -> None: ...


class SystemClock:
    """Monotonic time of this process (``time.monotonic``)."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        await asyncio.sleep(max(seconds, 0.0))


class WallClock(SystemClock):
    """Seconds since the Unix epoch (``time.time``): readings mean the same in every process,
    so a deadline recorded by one process can be honoured by the next. Sleeps as
    `SystemClock` does (real time either way)."""

    def now(self) -> float:
        return time.time()


class VirtualClock:
    """A clock that only moves when told to: ``sleep`` and ``advance`` move it instantly.
    ``slept`` records every wait (useful to assert retry backoff)."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self.slept: list[float] = []

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"cannot move a clock backwards ({seconds} s)")
        self._now += seconds

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self.slept.append(seconds)
            self._now += seconds

    async def asleep(self, seconds: float) -> None:
        # Jump to the deadline only after the loop has had a few turns (`TURNS`): work that
        # is ready (a coroutine raced against this sleep, say) runs first, and concurrent
        # sleeps started at one reading end at their own deadlines, not at their sum.
        target = self._now + max(seconds, 0.0)
        if seconds > 0:
            self.slept.append(seconds)
        for _ in range(self.TURNS):
            await asyncio.sleep(0)
        self._now = max(self._now, target)

    TURNS = 16
    """Loop turns an `asleep` lets pass before the clock jumps."""
