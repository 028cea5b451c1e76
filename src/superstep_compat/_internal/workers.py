"""Threads for `@task` calls: reused when idle, never waited for.

A task may block on another task's future, so a bounded pool could deadlock once every
worker waits on work still queued behind it. This pool never queues work behind a busy
worker: a job goes to an idle thread if there is one, else to a new thread. Idle threads
exit after `IDLE_SECONDS`, so the pool shrinks back after a burst. What it saves over a
thread per call is the thread start (tens of µs) on every call after the first burst.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

__all__ = ["IDLE_SECONDS", "submit"]

IDLE_SECONDS = 30.0


class _ElasticPool:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._idle = 0  # threads waiting for a job that no submit has claimed yet

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            claimed = self._idle > 0
            if claimed:
                self._idle -= 1
            self._jobs.put(job)  # under the lock: an idle thread sees it before it may exit
        if not claimed:
            threading.Thread(target=self._work, name="superstep-task", daemon=True).start()

    def _work(self) -> None:
        jobs = self._jobs
        while True:
            try:
                job = jobs.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0 and jobs.empty():
                        self._idle -= 1
                        return
                continue
            job()  # jobs catch their own exceptions (they complete a future)
            with self._lock:
                self._idle += 1


_pool = _ElasticPool()


def submit(job: Callable[[], None]) -> None:
    """Run ``job()`` on a pool thread now (an idle one, else a new one); never blocks.
    ``job`` must not raise: it reports through whatever future it completes."""
    _pool.submit(job)
