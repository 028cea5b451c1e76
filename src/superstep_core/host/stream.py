"""The stream multiplexer: one totally ordered stream of chunks per execution, fanned out to any
number of subscribers, each with its own cursor, buffer and mode projection.

Two kinds of chunk share one sequence (seq 1, 2, 3, ... in push order):

- *committed* chunks (LangGraph's ``values``, ``updates``, ``checkpoints``, ``tasks``) describe
  committed supersteps. They are never dropped and never coalesced: a subscriber receives every
  committed chunk pushed after it subscribed, in seq order.
- *transient* chunks (``messages`` tokens, ``custom``, ``debug``) may be coalesced or dropped
  when a consumer falls behind, so a slow consumer costs bounded memory.

Backpressure policy (per subscriber, and for the replay log). Each buffered transient chunk
costs ``size_of(data) + CHUNK_OVERHEAD`` bytes; the transient chunks a buffer holds never cost
more than ``transient_byte_cap`` in total. When a new transient chunk would exceed the cap:

1. coalesce: if the newest buffered chunk is a transient chunk with the same ``ns``, ``mode``
   and (non-``None``) ``coalesce_key``, the two become one chunk, ``merge(old.data,
   new.data)``, carrying the newer seq (a chunk is never moved past another chunk, so order
   holds); this saves one chunk's overhead and the consumer's per-chunk work;
2. drop oldest: while still over the cap, the oldest buffered transient chunk is dropped
   (counted in ``Subscription.dropped_chunks`` / ``dropped_bytes``); a chunk costing more than
   the whole cap is dropped itself.

Committed chunks are outside the cap: the producer never blocks on a consumer (the engine may
produce and consume on one thread), so a subscriber that stops reading keeps every committed
chunk since it subscribed - close subscriptions you no longer read.

The replay log behind `StreamMultiplexer.read_from` keeps the newest ``max_retained_committed``
committed chunks and, under the same byte cap, the newest transient chunks (dropping only, never
coalescing, so a reconnecting reader never sees a token twice).

Must never import: llm, compat (this module needs nothing beyond the standard library).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import heapq
import operator
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Collection, Hashable, Iterator
from dataclasses import dataclass, replace
from typing import Any

__all__ = [
    "CHUNK_OVERHEAD",
    "COMMITTED_MODES",
    "TRANSIENT_MODES",
    "StreamAbandoned",
    "StreamChunk",
    "StreamEvent",
    "StreamEvictedError",
    "StreamMultiplexer",
    "StreamTerminated",
    "Subscription",
    "estimate_size",
]

COMMITTED_MODES = frozenset({"values", "updates", "checkpoints", "tasks"})
"""Modes `StreamMultiplexer.push_event` treats as committed (every other mode is transient)."""

TRANSIENT_MODES = frozenset({"messages", "custom", "debug"})
"""The transient modes LangGraph defines (documentation; any mode may be pushed as transient)."""

CHUNK_OVERHEAD = 64
"""Bytes charged per buffered transient chunk on top of its data: the record and its queue
slot. It is what coalescing two chunks into one saves."""

_OBJECT_SIZE = 64  # estimate for any value that is not str/bytes-like: cheap beats exact

StreamEvent = tuple[tuple[str, ...], str, Any]
"""A façade stream event ``(ns, mode, data)``; `StreamChunk.event` gives one back."""


@dataclass(frozen=True, slots=True)
class StreamChunk:
    """One chunk of an execution's stream.

    ``seq``: position in the stream (1-based, strictly increasing across all modes);
    ``ns``: namespace (``()`` for the root graph, one entry per nested graph); ``mode``: the
    stream mode (``"updates"``, ``"messages"``, ...); ``data``: the payload, shared (never
    copied); ``committed``: never dropped nor coalesced when true.
    """

    seq: int
    ns: tuple[str, ...]
    mode: str
    data: Any
    committed: bool

    @property
    def event(self) -> StreamEvent:
        """The chunk as a façade event ``(ns, mode, data)``."""
        return (self.ns, self.mode, self.data)


class StreamTerminated(RuntimeError):
    """A chunk was pushed to a stream after `StreamMultiplexer.terminate`."""

    def __init__(self, name: str, last_seq: int) -> None:
        super().__init__(
            f"stream {name!r} was terminated after seq {last_seq}: nothing more can be pushed "
            f"(start a new StreamMultiplexer for a new run)"
        )
        self.name = name
        self.last_seq = last_seq


class StreamAbandoned(RuntimeError):
    """What a stream ends with when the run feeding it stopped early because its own caller
    stopped reading (a generator closed or a task cancelled), not because the run ended."""


class StreamEvictedError(LookupError):
    """A reader asked for chunks after ``requested``, but committed chunks in that range were
    evicted from the replay log; every chunk from ``oldest_retained`` on is still there."""

    def __init__(self, name: str, requested: int, oldest_retained: int, bound: int) -> None:
        super().__init__(
            f"stream {name!r}: chunks after seq {requested} were requested, but committed chunks "
            f"before seq {oldest_retained} were evicted (max_retained_committed={bound}); read "
            f"from after_seq={oldest_retained - 1} after reloading state from a checkpoint, or "
            f"raise max_retained_committed"
        )
        self.requested = requested
        self.oldest_retained = oldest_retained


SizeFn = Callable[[Any], int]
MergeFn = Callable[[Any, Any], Any]


def estimate_size(data: Any) -> int:
    """A cheap size estimate in bytes: the length of str / bytes-like data; for a tuple or list
    the sum over its items (one level deep); 64 for anything else."""
    if isinstance(data, (tuple, list)):
        return sum(_leaf_size(item) for item in data)
    return _leaf_size(data)


def _leaf_size(data: Any) -> int:
    if isinstance(data, (str, bytes, bytearray)):
        return len(data)
    if isinstance(data, memoryview):
        return data.nbytes
    return _OBJECT_SIZE


class _Buffer:
    """Chunks in seq order, kept as two queues so that dropping the oldest transient chunk is
    O(1) and can never touch a committed one."""

    __slots__ = ("coalesced", "committed", "dropped_bytes", "dropped_chunks", "transient", "used")

    def __init__(self) -> None:
        self.committed: deque[StreamChunk] = deque()
        # (chunk, cost in bytes, coalesce key)
        self.transient: deque[tuple[StreamChunk, int, Hashable | None]] = deque()
        self.used = 0  # bytes held by transient chunks
        self.dropped_chunks = 0
        self.dropped_bytes = 0
        self.coalesced = 0

    def pop(self) -> StreamChunk | None:
        """The oldest chunk (removed), or None when empty."""
        c, t = self.committed, self.transient
        if c and (not t or c[0].seq < t[0][0].seq):
            return c.popleft()
        if t:
            chunk, cost, _ = t.popleft()
            self.used -= cost
            return chunk
        return None

    def chunks(self) -> Iterator[StreamChunk]:
        """Every chunk, in seq order (not removed)."""
        transient = (chunk for chunk, _, _ in self.transient)
        return heapq.merge(self.committed, transient, key=operator.attrgetter("seq"))

    def clear(self) -> None:
        self.committed.clear()
        self.transient.clear()
        self.used = 0

    def offer(
        self,
        chunk: StreamChunk,
        cost: int,
        key: Hashable | None,
        cap: int,
        merge: MergeFn | None,
        size_of: SizeFn,
    ) -> None:
        """Buffer a transient chunk under ``cap`` (the policy in the module docstring);
        ``merge=None`` never coalesces."""
        if self.used + cost > cap and merge is not None and key is not None and self.transient:
            last, last_cost, last_key = self.transient[-1]
            adjacent = not self.committed or self.committed[-1].seq < last.seq
            if adjacent and last_key == key and last.mode == chunk.mode and last.ns == chunk.ns:
                merged = replace(chunk, data=merge(last.data, chunk.data))  # may raise: first
                self.transient.pop()
                self.used -= last_cost
                self.coalesced += 1
                chunk, cost = merged, size_of(merged.data) + CHUNK_OVERHEAD
        while self.transient and self.used + cost > cap:
            _, old_cost, _ = self.transient.popleft()
            self.used -= old_cost
            self._dropped(old_cost)
        if cost > cap:
            self._dropped(cost)
            return
        self.transient.append((chunk, cost, key))
        self.used += cost

    def _dropped(self, cost: int) -> None:
        self.dropped_chunks += 1
        self.dropped_bytes += cost


class _Poll(enum.Enum):
    WAIT = "wait"
    END = "end"


class StreamMultiplexer:
    """The stream of one execution: producers push chunks (from any thread), consumers
    `subscribe` (sync or async iteration) or re-read retained chunks with `read_from`.

    ``name``: used in error messages (the execution id is a good choice);
    ``max_retained_committed``: committed chunks kept for `read_from` (a count, >= 0);
    ``transient_byte_cap``: bytes of transient chunks each buffer may hold (>= 0);
    ``size_of``: data -> estimated bytes (default `estimate_size`), called once per transient
    push outside the lock, and under it for a coalesced or replayed chunk;
    ``merge``: (older data, newer data) -> coalesced data, called under the stream's lock only
    for two transient chunks pushed with the same ``coalesce_key`` (default ``operator.add``:
    concatenates str, bytes and lists).
    A ``merge`` that raises propagates out of `push_transient`; the chunk may then have
    reached only some subscribers.
    """

    def __init__(
        self,
        *,
        name: str = "stream",
        max_retained_committed: int = 1000,
        transient_byte_cap: int = 1 << 20,
        size_of: SizeFn = estimate_size,
        merge: MergeFn = operator.add,
    ) -> None:
        if max_retained_committed < 0:
            raise ValueError(f"max_retained_committed must be >= 0, got {max_retained_committed}")
        if transient_byte_cap < 0:
            raise ValueError(f"transient_byte_cap must be >= 0, got {transient_byte_cap}")
        self.name = name
        self.max_retained_committed = max_retained_committed
        self.transient_byte_cap = transient_byte_cap
        self._size_of = size_of
        self._merge = merge
        self._lock = threading.Lock()
        self._seq = 0
        self._log = _Buffer()
        self._evicted_upto = 0  # seq of the newest evicted committed chunk
        self._subscribers: list[Subscription] = []
        self._terminated = False
        self._error: BaseException | None = None

    @property
    def last_seq(self) -> int:
        """The seq of the newest chunk pushed (0 before the first)."""
        return self._seq

    @property
    def terminated(self) -> bool:
        """Whether `terminate` was called (pushes now raise `StreamTerminated`)."""
        return self._terminated

    # --- producing -----------------------------------------------------------------------

    def push_committed(self, mode: str, data: Any, ns: tuple[str, ...] = ()) -> int:
        """Append a committed chunk; returns its seq. Raises `StreamTerminated` after
        `terminate`."""
        with self._lock:
            chunk = StreamChunk(self._next_seq(), ns, mode, data, True)
            log = self._log
            log.committed.append(chunk)
            if len(log.committed) > self.max_retained_committed:
                self._evict()
            for sub in self._subscribers:
                if sub.modes is None or mode in sub.modes:
                    sub._buffer.committed.append(chunk)
                    sub._wake()
        return chunk.seq

    def push_transient(
        self,
        mode: str,
        data: Any,
        ns: tuple[str, ...] = (),
        *,
        coalesce_key: Hashable | None = None,
    ) -> int:
        """Append a transient chunk; returns its seq (even if a full buffer later drops or
        coalesces it). Chunks with equal non-``None`` ``coalesce_key`` (and equal ``ns`` and
        ``mode``) may be merged under backpressure: use the message id for token chunks.
        Raises `StreamTerminated` after `terminate`."""
        cost = self._size_of(data) + CHUNK_OVERHEAD
        cap = self.transient_byte_cap
        with self._lock:
            chunk = StreamChunk(self._next_seq(), ns, mode, data, False)
            self._log.offer(chunk, cost, None, cap, None, self._size_of)
            for sub in self._subscribers:
                if sub.modes is None or mode in sub.modes:
                    sub._buffer.offer(chunk, cost, coalesce_key, cap, self._merge, self._size_of)
                    sub._wake()
        return chunk.seq

    def push_event(self, event: StreamEvent, *, coalesce_key: Hashable | None = None) -> int:
        """Push a façade event ``(ns, mode, data)``: committed if ``mode`` is in
        `COMMITTED_MODES`, transient otherwise. Returns its seq."""
        ns, mode, data = event
        if mode in COMMITTED_MODES:
            return self.push_committed(mode, data, ns)
        return self.push_transient(mode, data, ns, coalesce_key=coalesce_key)

    def terminate(self, error: BaseException | None = None) -> None:
        """End the stream: later pushes raise `StreamTerminated`; subscribers drain what they
        hold, then stop (raising ``error`` once, if given). Only the first call counts."""
        with self._lock:
            if self._terminated:
                return
            self._terminated = True
            self._error = error
            for sub in self._subscribers:
                sub._wake()

    def _next_seq(self) -> int:
        if self._terminated:
            raise StreamTerminated(self.name, self._seq)
        self._seq += 1
        return self._seq

    def _evict(self) -> None:
        log = self._log
        self._evicted_upto = log.committed.popleft().seq
        # transient chunks older than an evicted committed one could not be read without it
        while log.transient and log.transient[0][0].seq < self._evicted_upto:
            _, cost, _ = log.transient.popleft()
            log.used -= cost

    # --- consuming ----------------------------------------------------------------------

    def read_from(self, after_seq: int, modes: Collection[str] | None = None) -> list[StreamChunk]:
        """Every retained chunk with seq > ``after_seq`` (of ``modes``, if given), in order.
        Transient chunks the cap dropped are simply absent. Raises `StreamEvictedError` if a
        committed chunk after ``after_seq`` was evicted, `ValueError` if ``after_seq`` is past
        `last_seq`."""
        wanted = None if modes is None else frozenset(modes)
        with self._lock:
            return self._retained_after(after_seq, wanted)

    def subscribe(
        self, modes: Collection[str] | None = None, *, after_seq: int | None = None
    ) -> Subscription:
        """A new consumer receiving the chunks of ``modes`` (all when ``None``): the chunks
        pushed from now on, preceded, if ``after_seq`` is given, by the retained ones after it
        (a reconnect: pass the `Subscription.last_seq` of the old one). Raises as `read_from`.
        """
        wanted = None if modes is None else frozenset(modes)
        with self._lock:
            sub = Subscription(self, wanted, self._lock)
            if after_seq is not None:
                sub.last_seq = after_seq
                for chunk in self._retained_after(after_seq, wanted):
                    if chunk.committed:
                        sub._buffer.committed.append(chunk)
                    else:
                        cost = self._size_of(chunk.data) + CHUNK_OVERHEAD
                        sub._buffer.offer(
                            chunk, cost, None, self.transient_byte_cap, None, self._size_of
                        )
            self._subscribers.append(sub)
        return sub

    def _retained_after(self, after_seq: int, modes: frozenset[str] | None) -> list[StreamChunk]:
        if after_seq < 0:
            raise ValueError(
                f"stream {self.name!r}: after_seq must be >= 0 (0 reads from the first chunk), "
                f"got {after_seq}"
            )
        if after_seq > self._seq:
            raise ValueError(
                f"stream {self.name!r}: after_seq {after_seq} is past the last seq {self._seq}"
            )
        if after_seq < self._evicted_upto:
            oldest = next((c.seq for c in self._log.chunks()), self._seq + 1)
            raise StreamEvictedError(self.name, after_seq, oldest, self.max_retained_committed)
        return [
            c
            for c in self._log.chunks()
            if c.seq > after_seq and (modes is None or c.mode in modes)
        ]

    def _unsubscribe(self, sub: Subscription) -> None:
        if sub in self._subscribers:
            self._subscribers.remove(sub)


class Subscription:
    """One consumer's view of a `StreamMultiplexer`: its own buffer (under the transient byte
    cap), cursor and mode projection. Iterate it with ``for`` (blocks until a chunk arrives or
    the stream ends) or ``async for`` (awaits without blocking the event loop), or take what
    is buffered with `drain`. After `StreamMultiplexer.terminate`, iteration yields what is
    left, then raises the termination error once (if any), then stops.

    ``last_seq``: seq of the last chunk handed out (resume with ``subscribe(after_seq=...)``);
    ``dropped_chunks`` / ``dropped_bytes`` / ``coalesced_chunks``: transient chunks this
    subscriber lost to backpressure (bytes as costed by the policy in the module docstring);
    ``buffered_bytes``: what its unread transient chunks cost now.
    """

    __slots__ = ("_buffer", "_closed", "_mux", "_ready", "_waiters", "last_seq", "modes")

    def __init__(
        self, mux: StreamMultiplexer, modes: frozenset[str] | None, lock: threading.Lock
    ) -> None:
        self._mux = mux
        self.modes = modes
        self.last_seq = mux.last_seq
        self._buffer = _Buffer()
        self._ready = threading.Condition(lock)
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._closed = False

    @property
    def dropped_chunks(self) -> int:
        return self._buffer.dropped_chunks

    @property
    def dropped_bytes(self) -> int:
        return self._buffer.dropped_bytes

    @property
    def coalesced_chunks(self) -> int:
        return self._buffer.coalesced

    @property
    def buffered_bytes(self) -> int:
        """Bytes of transient chunks waiting to be read (never above the cap)."""
        return self._buffer.used

    def drain(self, max_chunks: int | None = None) -> list[StreamChunk]:
        """The buffered chunks (at most ``max_chunks``), in order, without blocking (``[]``
        when none): for a consumer on the producer's thread, or one reading in batches."""
        with self._ready:
            out: list[StreamChunk] = []
            while max_chunks is None or len(out) < max_chunks:
                chunk = self._buffer.pop()
                if chunk is None:
                    break
                out.append(chunk)
            if out:
                self.last_seq = out[-1].seq
            return out

    def close(self) -> None:
        """Stop receiving chunks and discard the buffered ones (idempotent); a blocked
        iteration of this subscription stops."""
        with self._ready:
            self._detach()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[StreamChunk]:
        return self

    def __next__(self) -> StreamChunk:
        with self._ready:
            while (got := self._poll()) is _Poll.WAIT:
                self._ready.wait()
        if got is _Poll.END:
            raise StopIteration
        return got

    def __aiter__(self) -> AsyncIterator[StreamChunk]:
        return self

    async def __anext__(self) -> StreamChunk:
        loop = asyncio.get_running_loop()
        while True:
            with self._ready:  # held briefly: never across an await
                got = self._poll()
                if got is not _Poll.WAIT:
                    break
                waiter = (loop, loop.create_future())
                self._waiters.append(waiter)
            try:
                await waiter[1]
            finally:
                with self._ready:
                    if waiter in self._waiters:  # cancelled before a push woke it
                        self._waiters.remove(waiter)
        if got is _Poll.END:
            raise StopAsyncIteration
        return got

    # --- under the stream's lock ---------------------------------------------------------------

    def _poll(self) -> StreamChunk | _Poll:
        """The next chunk, WAIT, or END; raises the termination error once after draining."""
        chunk = self._buffer.pop()
        if chunk is not None:
            self.last_seq = chunk.seq
            return chunk
        if self._closed:
            return _Poll.END
        if not self._mux._terminated:
            return _Poll.WAIT
        self._detach()
        if self._mux._error is not None:
            raise self._mux._error
        return _Poll.END

    def _detach(self) -> None:
        self._closed = True
        self._buffer.clear()
        self._mux._unsubscribe(self)
        self._wake()

    def _wake(self) -> None:
        self._ready.notify_all()
        for loop, future in self._waiters:
            # a closed event loop raises RuntimeError: its consumer is gone, nobody waits
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_resolve, future)
        self._waiters.clear()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
