"""The workers of one ``serve`` process: threads that claim runs from the database queue
(`superstep_server.runs.Runs.claim`), run them (`superstep_server.executor.execute_run`)
and renew their lease while they run.

A worker sleeps until a run is queued in this process (`WorkerPool.wake`), until the
database tells it a run may be claimable (PostgreSQL ``LISTEN``/``NOTIFY`` on
`superstep_server.runs.QUEUE_CHANNEL`: a run queued or a thread freed by any process), or
for ``poll_seconds`` (the fallback, and all there is between processes on SQLite; also the
sweep that re-queues the runs of a worker whose lease expired). A cancel reaches a run
whatever process took the request: by a notification on
`superstep_server.runs.CANCEL_CHANNEL`, and by the lease keeper, which reads the run's
cancel flag from the database.

Stopping the pool (``serve`` shutting down, ``superstep worker`` on SIGTERM or SIGINT) drains
it (`WorkerPool.stop`): running runs stop at their next step boundary with that step's
checkpoint committed and are queued again, so no finished step is lost or run twice.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable

from superstep_server.executor import RunContext, execute_run
from superstep_server.runs import API_ONLY, CANCEL_CHANNEL, QUEUE_CHANNEL

__all__ = ["WorkerPool"]

log = logging.getLogger("superstep.server")


class WorkerPool:
    def __init__(
        self,
        ctx: RunContext,
        size: int,
        *,
        poll_seconds: float = 0.5,
        drain_seconds: float = 30.0,
        on_tick: Callable[[], int] | None = None,
    ) -> None:
        self.ctx = ctx
        self.drain_seconds = drain_seconds
        self.on_tick = on_tick
        self.size = size
        self.poll_seconds = poll_seconds
        self.name = f"{os.uname().nodename}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        if size == 0:
            self.name += API_ONLY
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        self.ctx.runs.sweep()
        if self.size and self.ctx.runs.db.kind == "postgres":
            listener = threading.Thread(
                target=self.ctx.runs.db.listen,
                args=([QUEUE_CHANNEL, CANCEL_CHANNEL], self._notified, self._stopping),
                name="superstep-listener",
                daemon=True,
            )
            listener.start()
            self._threads.append(listener)
        for i in range(self.size):
            thread = threading.Thread(
                target=self._loop, args=(f"{self.name}/{i}",), name=f"superstep-worker-{i}"
            )
            thread.daemon = True
            thread.start()
            self._threads.append(thread)

    def wake(self) -> None:
        self._wake.set()

    def _notified(self, channel: str, payload: str) -> None:
        if channel == CANCEL_CHANNEL:
            with self.ctx.lock:
                flag = self.ctx.cancel_flags.get(payload)
            if flag is not None:  # the run is running here
                flag.set()
            return
        self.wake()  # a run was queued or a thread freed (or we (re)connected)

    def begin_drain(self) -> None:
        """Claim no more runs and ask the running ones to stop at their next step boundary;
        returns at once (`stop` waits for them)."""
        draining = self.ctx.drain()
        self._wake.set()
        if draining:
            log.info("worker pool %s: draining %d running runs", self.name, draining)

    def stop(self, timeout: float | None = None) -> None:
        """Stop claiming runs and drain the ones running here: each stops at its next step
        boundary, its step in progress committed, and goes back to the queue, where another
        worker (or this process, restarted) continues it from that checkpoint. Waits up to
        ``timeout`` seconds (default ``drain_seconds``) for them; a run whose step takes
        longer is left to the lease sweep, as if its worker had died."""
        self._stopping.set()
        self._wake.set()
        draining = self.ctx.drain()
        if draining:
            log.info("worker pool %s: draining %d running runs", self.name, draining)
        deadline = time.monotonic() + (self.drain_seconds if timeout is None else timeout)
        for thread in self._threads:
            thread.join(max(deadline - time.monotonic(), 0.0))

    def _loop(self, worker: str) -> None:
        swept_at = 0.0
        while not self._stopping.is_set():
            self._wake.wait(self.poll_seconds)
            self._wake.clear()
            try:
                if self.on_tick is not None and worker.endswith("/0") and self.on_tick():
                    self._wake.set()  # crons queued runs (one worker per process fires them)
                if time.monotonic() - swept_at > self.ctx.runs.lease_seconds / 2:
                    swept_at = time.monotonic()
                    if self.ctx.runs.sweep():
                        self._wake.set()
                # draining: the runs handed back are for other processes (or a restart)
                while not self._stopping.is_set() and not self.ctx.draining:
                    row = self.ctx.runs.claim(worker, origin=self.name)
                    if row is None:
                        break
                    self._wake.set()  # another run may be waiting: let a sibling look
                    self._run(row, worker)
            except Exception:  # a broken database must not end the worker
                log.exception("worker %s: cannot claim a run", worker)
                self._stopping.wait(self.poll_seconds)

    def _run(self, row: dict[str, object], worker: str) -> None:
        run_id = str(row["run_id"])
        done = threading.Event()
        keeper = threading.Thread(target=self._keep_lease, args=(run_id, worker, done), daemon=True)
        keeper.start()
        try:
            execute_run(self.ctx, row, worker)
        finally:
            done.set()
            keeper.join()

    def _keep_lease(self, run_id: str, worker: str, done: threading.Event) -> None:
        period = max(self.ctx.runs.lease_seconds / 3, 0.05)
        flag = self.ctx.cancel_flag(run_id)
        while not done.wait(min(period, 1.0)):
            try:
                if self.ctx.runs.cancel_requested(run_id):
                    flag.set()
                if not self.ctx.runs.renew(run_id, worker):
                    flag.set()  # the run is not ours any more: stop at the next step
            except Exception:
                log.exception("run %s: cannot renew its lease", run_id)
