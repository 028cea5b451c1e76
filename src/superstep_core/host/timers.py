"""The host's timer table: armed timers ordered by due time (a reading of the host's clock),
re-arming and cancelling, and the random extra time a request's ``jitter`` asks for (drawn
here, in the host, so the runtime stays deterministic).

The host's random source is anything with ``uniform(a, b)`` (`RandomSource`): by default the
`random` module itself, read at each draw (so a process seeding or patching ``random``
reaches retry jitter, as LangGraph's ``random.uniform`` does); a seeded `random.Random` in
tests."""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass, field
from typing import Any, Protocol

from superstep_core.runtime import TimerRequest

__all__ = ["DueTimer", "RandomSource", "TimerTable"]


class RandomSource(Protocol):
    """Where the host draws randomness (retry jitter): `random.Random`, or the `random`
    module."""

    def uniform(self, a: float, b: float) -> float: ...


@dataclass(order=True, frozen=True, slots=True)
class DueTimer:
    due: float
    order: int
    activation_id: str = field(compare=False)
    timer_id: str = field(compare=False)
    generation: int = field(compare=False)
    payload: Any = field(compare=False, default=None)
    # seconds from arming to ``due`` (jitter included); None for a recorded deadline
    delay: float | None = field(compare=False, default=None)


class TimerTable:
    """Armed timers of one execution. Stale entries (re-armed or cancelled) stay in the heap
    and are skipped; the runtime drops stale firings anyway, so this is only economy.
    ``rng``: the source of jitter (a seeded `random.Random` in tests; by default the
    `random` module)."""

    def __init__(self, rng: RandomSource | None = None) -> None:
        self._rng: RandomSource = rng if rng is not None else random
        self._heap: list[DueTimer] = []
        self._current: dict[tuple[str, str], int] = {}
        self._due: dict[tuple[str, str], float] = {}
        self._order = 0

    def apply(self, requests: list[TimerRequest], now: float) -> None:
        """Arm (``now + delay``, plus up to ``jitter`` seconds drawn at random) or cancel
        each of ``requests``, in order."""
        for r in requests:
            if r.delay is None:
                self._current.pop((r.activation_id, r.timer_id), None)
                continue
            delay = r.delay + self._rng.uniform(0, r.jitter) if r.jitter > 0 else r.delay
            self.arm(r, now + delay, delay)

    def arm(self, request: TimerRequest, due: float, delay: float | None = None) -> None:
        """Arm ``request`` to fire at clock reading ``due`` (a recorded deadline: when it
        has passed, the timer is due at once); ``delay``: the seconds it was armed for."""
        key = (request.activation_id, request.timer_id)
        self._current[key] = request.generation
        self._due[key] = due
        self._order += 1
        heapq.heappush(
            self._heap,
            DueTimer(
                due,
                self._order,
                request.activation_id,
                request.timer_id,
                request.generation,
                request.payload,
                delay,
            ),
        )

    def deadline(self, activation_id: str, timer_id: str) -> float | None:
        """The due time of the armed timer, or ``None`` when none is armed."""
        key = (activation_id, timer_id)
        return self._due.get(key) if key in self._current else None

    def next_due(self) -> float | None:
        head = self.next_timer()
        return None if head is None else head.due

    def next_timer(self) -> DueTimer | None:
        """The armed timer due first, or None."""
        while self._heap:
            head = self._heap[0]
            if self._current.get((head.activation_id, head.timer_id)) == head.generation:
                return head
            heapq.heappop(self._heap)
        return None

    def pop_due(self, now: float) -> list[DueTimer]:
        out: list[DueTimer] = []
        while self._heap and self._heap[0].due <= now:
            t = heapq.heappop(self._heap)
            if self._current.get((t.activation_id, t.timer_id)) == t.generation:
                del self._current[(t.activation_id, t.timer_id)]
                out.append(t)
        return out
