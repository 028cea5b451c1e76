"""`OrderedWrites`: a host's background writes (a checkpoint's ``put``, its pending writes),
performed one at a time in the order they were submitted while the run goes on to its next
superstep, as LangGraph's default durability ("async") overlaps a step's checkpoint with the
next step. The host owns the I/O: the run submits a write and the host performs it; whoever
drives the run settles them (`OrderedWrites.settle`) before it reports the run ended, so that
what a run returned is never missing from the store.

Writes run on a thread pool shared by every host of the process (a run with a dozen
checkpoints should not pay a thread start); each `OrderedWrites` has at most one of its
writes in flight, so its order holds and one slow store never takes more than one thread.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["OrderedWrites"]

_POOL_WORKERS = 4
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _shared_pool() -> ThreadPoolExecutor:
    global _pool
    pool = _pool
    if pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(_POOL_WORKERS, thread_name_prefix="superstep-writes")
            pool = _pool
    return pool


def _forget_pool() -> None:
    # a forked child has none of the parent's threads: it starts a pool of its own
    global _pool
    _pool = None


os.register_at_fork(after_in_child=_forget_pool)


class OrderedWrites:
    """Calls submitted with `submit`, performed in submission order, one at a time, off the
    caller's thread. The first call that raises stops the rest (a write that follows a failed
    one would be out of order: LangGraph issues no ``put`` after one that failed); `settle`
    raises its error. Thread-safe: any thread may submit and settle."""

    __slots__ = ("_cond", "_failure", "_queue", "_running")

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._queue: deque[tuple[Callable[..., Any], tuple[Any, ...]]] = deque()
        self._running = False  # a drain of this queue is in flight on the pool
        self._failure: BaseException | None = None

    def submit(self, call: Callable[..., Any], *args: Any) -> None:
        """Perform ``call(*args)`` after every call submitted before it. Its arguments must
        not change afterwards (the caller hands over copies)."""
        with self._cond:
            if self._failure is not None:
                return  # dropped: an earlier write failed, and `settle` reports that one
            self._queue.append((call, args))
            if self._running:
                return
            self._running = True
        try:
            _shared_pool().submit(self._drain)
        except RuntimeError:  # the interpreter is shutting down: no new threads
            self._drain()

    def _drain(self) -> None:
        cond = self._cond
        queue = self._queue
        while True:
            with cond:
                if not queue:
                    self._running = False
                    cond.notify_all()
                    return
                call, args = queue.popleft()
            try:
                call(*args)
            except BaseException as e:
                with cond:
                    if self._failure is None:
                        self._failure = e
                    queue.clear()

    @property
    def idle(self) -> bool:
        """Whether every submitted write has been performed (or dropped)."""
        return not self._running

    def wait(self) -> None:
        """Block until every submitted write has been performed; raises nothing."""
        cond = self._cond
        with cond:
            while self._running:
                cond.wait()

    def settle(self) -> None:
        """`wait`, then raise the first failure of a write (once: it is cleared)."""
        self.wait()
        self._raise()

    async def asettle(self) -> None:
        """`settle` without blocking the running event loop."""
        if self._running:
            await asyncio.get_running_loop().run_in_executor(None, self.wait)
        self._raise()

    def _raise(self) -> None:
        with self._cond:
            failure, self._failure = self._failure, None
        if failure is not None:
            raise failure
