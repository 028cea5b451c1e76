"""`StreamChannel`: a single-consumer queue of one projection of a v3 run.

A channel is drained as its one subscriber reads (no retention beyond what is queued), and
it is pulled, not pushed: when its queue is empty, the reader asks the run for one more
event (``_request_more`` / ``_arequest_more``, the run stream's pump) until the channel has
an item or is closed. Items pushed before anyone subscribed are not kept. A channel created
with a ``name`` is also forwarded by its mux into the run's main event log (as method
``name`` for native transformers, ``custom:<name>`` otherwise). The mux binds it to the
sync or the async lane (`_bind`), closes it when the run ends and fails it with the run's
error. Items are queued as ``(stamp, item)``, the stamp a per-mux counter that
``interleave`` uses to merge several channels in arrival order.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from superstep_compat.stream._mux import StreamMux

__all__ = ["StreamChannel"]

T = TypeVar("T")


class StreamChannel(Generic[T]):
    """``StreamChannel(name=None, *, maxlen=None)``: see the module docstring.

    Errors: iterating an unbound channel, or with the other lane's protocol, is a TypeError;
    a second subscriber is a RuntimeError (``tee(n)``/``atee(n)`` fan out instead); pushing
    to a closed channel that has a subscriber is a RuntimeError; ``maxlen`` (accepted, not
    used: the pull-driven pump keeps queues short) must be positive.
    """

    def __init__(self, name: str | None = None, *, maxlen: int | None = None) -> None:
        if maxlen is not None and maxlen <= 0:
            raise ValueError("StreamChannel maxlen must be a positive int or None")
        self.name = name
        self._maxlen = maxlen
        self._items: deque[tuple[int, T]] = deque()
        self._closed = False
        self._error: BaseException | None = None
        self._is_async: bool | None = None
        self._subscribed = False
        self._request_more: Callable[[], bool] | None = None
        self._arequest_more: Callable[[], Awaitable[bool]] | None = None
        self._wire_fn: Callable[[T], None] | None = None
        self._mux: StreamMux | None = None

    # --- set up by the mux ------------------------------------------------------------

    def _bind(self, *, is_async: bool) -> None:
        if self._is_async is not None:
            raise RuntimeError("StreamChannel is already bound")
        self._is_async = is_async

    def _bind_mux(self, mux: StreamMux) -> None:
        self._mux = mux

    def _wire(self, fn: Callable[[T], None]) -> None:
        self._wire_fn = fn

    # --- producer side ----------------------------------------------------------------

    def push(self, item: T) -> None:
        """Queue ``item`` for the subscriber (if any) and forward it to the main log (if
        the channel is named)."""
        if self._subscribed:
            if self._closed:
                raise RuntimeError("Cannot push to a closed StreamChannel")
            stamp = self._mux._next_push_seq() if self._mux is not None else 0
            self._items.append((stamp, item))
        if self._wire_fn is not None:
            self._wire_fn(item)

    def close(self) -> None:
        """No more items: the subscriber ends after the queued ones."""
        self._closed = True

    def fail(self, err: BaseException) -> None:
        """No more items: the subscriber raises ``err`` after the queued ones."""
        self._error = err
        self._closed = True

    # --- consumer side ----------------------------------------------------------------

    def _subscribe(self, want_async: bool) -> None:
        if self._is_async is None:
            raise TypeError(
                "StreamChannel has not been bound yet. "
                "Register the transformer with a StreamMux first."
            )
        if self._is_async and not want_async:
            raise TypeError("This StreamChannel is bound to async mode — use 'async for' instead.")
        if want_async and not self._is_async:
            raise TypeError("This StreamChannel is bound to sync mode — use 'for' instead.")
        if self._subscribed:
            fan_out = ".atee(n)" if want_async else ".tee(n)"
            raise RuntimeError(
                f"StreamChannel already has a subscriber; use {fan_out} for fan-out."
            )
        self._subscribed = True

    def _next_ready(self) -> Any:
        """The next queued item; `_ENDED` when the channel has ended normally (its error is
        raised instead); `_PULL` when the reader must pull the run forward."""
        if self._items:
            return self._items.popleft()[1]
        if self._closed:
            if self._error is not None:
                raise self._error
            return _ENDED
        return _PULL

    def __iter__(self) -> Iterator[T]:
        """Subscribe (once) and read the items, pulling the run forward as needed."""
        self._subscribe(want_async=False)
        return self._read()

    def _read(self) -> Iterator[T]:
        while (item := self._next_ready()) is not _ENDED:
            if item is not _PULL:
                yield item
                continue
            pull = self._request_more
            if pull is None or (not pull() and not self._items and not self._closed):
                return

    def __aiter__(self) -> AsyncIterator[T]:
        """Subscribe (once) and read the items on the async lane."""
        self._subscribe(want_async=True)
        return self._aread()

    async def _aread(self) -> AsyncIterator[T]:
        while (item := self._next_ready()) is not _ENDED:
            if item is not _PULL:
                yield item
                continue
            pull = self._arequest_more
            if pull is None or (not await pull() and not self._items and not self._closed):
                return

    def tee(self, n: int = 2) -> tuple[Iterator[T], ...]:
        """Subscribe and fan out to ``n`` independent readers (each gets every item)."""
        if n < 1:
            raise ValueError("tee() requires n >= 1")
        source = iter(self)
        queues: list[deque[T]] = [deque() for _ in range(n)]
        ended = False

        def reader(mine: deque[T]) -> Iterator[T]:
            nonlocal ended
            while True:
                if mine:
                    yield mine.popleft()
                    continue
                if ended:
                    return
                try:
                    item = next(source)
                except StopIteration:
                    ended = True
                    return
                for q in queues:
                    q.append(item)

        return tuple(reader(q) for q in queues)

    def atee(self, n: int = 2) -> tuple[AsyncIterator[T], ...]:
        """`tee` on the async lane: readers take turns pulling under one lock."""
        if n < 1:
            raise ValueError("atee() requires n >= 1")
        source = aiter(self)
        queues: list[deque[T]] = [deque() for _ in range(n)]
        state: dict[str, Any] = {"ended": False, "error": None}
        lock = asyncio.Lock()

        async def reader(mine: deque[T]) -> AsyncIterator[T]:
            while True:
                if mine:
                    yield mine.popleft()
                    continue
                if state["ended"]:
                    if state["error"] is not None:
                        raise state["error"]
                    return
                async with lock:
                    if mine or state["ended"]:
                        continue
                    try:
                        item = await anext(source)
                    except StopAsyncIteration:
                        state["ended"] = True
                        continue
                    except Exception as e:
                        state["ended"], state["error"] = True, e
                        continue
                    for q in queues:
                        q.append(item)

        return tuple(reader(q) for q in queues)


_ENDED = object()  # the channel ended normally
_PULL = object()  # nothing queued and not closed: the reader pulls the run forward
