"""Run event streams inside one server process: what a run's worker publishes (SSE event
name and JSON bytes, numbered from 0) and what ``/stream``, ``/join`` and ``/wait`` follow.

Workers are threads; publishing hands each event to the event loop
(``call_soon_threadsafe``), so followers are plain coroutines. A stream is opened when its
run is created (a follower never misses the first events) and kept for ``keep_seconds``
after it ends, so a client that rejoins with ``Last-Event-ID`` gets what it missed.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "HEARTBEAT",
    "HEARTBEAT_EVERY",
    "IDLE_SECONDS",
    "Heartbeats",
    "RunEvent",
    "RunStream",
    "RunStreams",
    "ThreadFeed",
]

IDLE_SECONDS = 0.5
"""How long a follower waits for an event before it looks in the database (whether the run
ended in another process, whether the thread has a new run)."""
HEARTBEAT_EVERY = 10
"""An SSE heartbeat comment after this many idle periods without an event (5 s)."""
HEARTBEAT = b": heartbeat\r\n\r\n"


@dataclass
class Heartbeats:
    """One follower's idle periods, counted to send a heartbeat after every
    ``HEARTBEAT_EVERY`` of them."""

    idle: int = 0

    def due(self) -> bool:
        """One more idle period: whether a heartbeat is due now."""
        self.idle += 1
        return self.idle % HEARTBEAT_EVERY == 0


@dataclass(frozen=True, slots=True)
class RunEvent:
    id: int
    event: str
    data: bytes


@dataclass
class RunStream:
    events: list[RunEvent] = field(default_factory=list)
    done: bool = False
    output: Any = None
    ended_at: float = 0.0
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def _append(self, event: str, data: bytes) -> None:
        if self.done:
            return
        self.events.append(RunEvent(len(self.events), event, data))
        self._wake()

    def _close(self, output: Any) -> None:
        self.output = output
        self.done = True
        self.ended_at = time.monotonic()
        self._wake()

    def _wake(self) -> None:
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    async def follow(
        self, after: int = -1, *, idle_seconds: float | None = None
    ) -> AsyncIterator[RunEvent | None]:
        """Events with ids above ``after``, then new ones as they come, until the run ends;
        ``None`` after each ``idle_seconds`` without an event (the caller's moment to send a
        heartbeat, or to look whether another process ended the run)."""
        index = after + 1
        while True:
            while index < len(self.events):
                yield self.events[index]
                index += 1
            if self.done:
                return
            changed = self.changed
            try:
                await asyncio.wait_for(asyncio.shield(changed.wait()), idle_seconds)
            except TimeoutError:
                yield None


@dataclass
class ThreadFeed:
    """Wakes a thread's followers (``GET /threads/{id}/stream``) when a run is queued on it
    or its state is updated (the updates themselves are read from the database)."""

    followers: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def _wake(self) -> None:
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    async def wait(self) -> bool:
        """Wait until the thread changes (True) or ``IDLE_SECONDS`` pass (False)."""
        changed = self.changed
        try:
            await asyncio.wait_for(asyncio.shield(changed.wait()), IDLE_SECONDS)
        except TimeoutError:
            return False
        return True


class RunStreams:
    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        *,
        keep_seconds: float = 600.0,
        keep_at_most: int = 10_000,
    ) -> None:
        self.loop = loop
        self.keep_seconds = keep_seconds
        self.keep_at_most = keep_at_most
        self.streams: dict[str, RunStream] = {}
        self.ended: deque[tuple[float, str]] = deque()  # (when, run id), oldest first
        self.feeds: dict[str, ThreadFeed] = {}

    def open(self, run_id: str) -> RunStream:
        """Called on the event loop when a run is created."""
        stream = self.streams.get(run_id)
        if stream is None:
            stream = self.streams[run_id] = RunStream()
        return stream

    def get(self, run_id: str) -> RunStream | None:
        return self.streams.get(run_id)

    def publish(self, run_id: str, event: str, data: bytes) -> None:
        """From any thread: append an event to the run's stream."""
        self.loop.call_soon_threadsafe(self._publish, run_id, event, data)

    def close(self, run_id: str, output: Any = None) -> None:
        """From any thread: the run ended with ``output`` (what ``/wait`` answers);
        followers finish after its last event."""
        self.loop.call_soon_threadsafe(self._close, run_id, output)

    def follow_thread(self, thread_id: str) -> ThreadFeed:
        """On the event loop: a thread stream begins (pair with `unfollow_thread`)."""
        feed = self.feeds.get(thread_id)
        if feed is None:
            feed = self.feeds[thread_id] = ThreadFeed()
        feed.followers += 1
        return feed

    def unfollow_thread(self, thread_id: str) -> None:
        feed = self.feeds.get(thread_id)
        if feed is not None:
            feed.followers -= 1
            if feed.followers <= 0:
                del self.feeds[thread_id]

    def touch_thread(self, thread_id: str) -> None:
        """On the event loop: a run was queued on the thread."""
        feed = self.feeds.get(thread_id)
        if feed is not None:
            feed._wake()

    def thread_followed(self, thread_id: str) -> bool:
        return thread_id in self.feeds

    def _publish(self, run_id: str, event: str, data: bytes) -> None:
        self.open(run_id)._append(event, data)

    def _close(self, run_id: str, output: Any) -> None:
        stream = self.open(run_id)
        stream._close(output)
        self.ended.append((stream.ended_at, run_id))
        self._forget_old()

    def _forget_old(self) -> None:
        """Drop ended streams kept longer than ``keep_seconds`` or beyond ``keep_at_most``
        (cost: the ones dropped)."""
        cutoff = time.monotonic() - self.keep_seconds
        while self.ended and (self.ended[0][0] < cutoff or len(self.ended) > self.keep_at_most):
            _when, run_id = self.ended.popleft()
            self.streams.pop(run_id, None)
