"""`OrderedWrites`: a host's background writes (a checkpoint's ``put``, its pending writes),
performed one at a time in the order they were submitted while the run goes on to its next
superstep, as LangGraph's durability "async" overlaps a step's checkpoint with the next
step. The host owns the I/O: the run submits a write and the host performs it; whoever
drives the run settles them (`OrderedWrites.settle`) before it reports the run ended, so that
what a run returned is never missing from the store.

Writes run on a few threads shared by every host of the process (a run with a dozen
checkpoints should not pay a thread start); each `OrderedWrites` has at most one of its
writes in flight, so its order holds and one slow store never takes more than one thread.
"""

from __future__ import annotations

import asyncio
import os
import queue
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

__all__ = ["OrderedWrites"]

_WORKERS = 4
_jobs: queue.SimpleQueue[Callable[[], None]] | None = None
_jobs_lock = threading.Lock()


def _shared_jobs() -> queue.SimpleQueue[Callable[[], None]]:
    """The queue the shared writer threads serve (started on first use: a handful of
    daemon threads that each run one `OrderedWrites` drain at a time). Not an executor's
    futures: a hand-off per checkpoint is on every step's path."""
    global _jobs
    jobs = _jobs
    if jobs is None:
        with _jobs_lock:
            if _jobs is None:
                fresh: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
                for i in range(_WORKERS):
                    threading.Thread(
                        target=_serve, args=(fresh,), name=f"superstep-writes-{i}", daemon=True
                    ).start()
                _jobs = fresh
            jobs = _jobs
    return jobs


def _serve(jobs: queue.SimpleQueue[Callable[[], None]]) -> None:
    while True:
        jobs.get()()  # a drain catches what its writes raise


def _forget_jobs() -> None:
    # a forked child has none of the parent's threads: it starts its own
    global _jobs
    _jobs = None


os.register_at_fork(after_in_child=_forget_jobs)


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
        _shared_jobs().put(self._drain)

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
