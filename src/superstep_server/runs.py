"""Runs and the queue they wait in, in the database.

A run is created ``pending``; a worker claims the oldest pending run whose thread has no
running run (``UPDATE ... WHERE run_id = (SELECT ... FOR UPDATE SKIP LOCKED)`` on
PostgreSQL; SQLite has one writer, so its claim is the same statement in an immediate
transaction), holds a lease it renews, and ends the run (``success``, ``error``,
``interrupted``, ``timeout``). A partial unique index allows one ``running`` run per thread:
two workers racing for two runs of one thread cannot both win. A run whose lease expired
(its worker died) is put back to ``pending``; its next attempt continues from the thread's
last checkpoint.

``multitask_strategy`` when the thread already has a pending or running run: ``reject``
answers 409, ``enqueue`` (the default, as the reference's) queues behind it, ``interrupt``
cancels it (pending runs at once, a running one at its next step) and queues the new run;
``rollback`` cancels it as ``interrupt`` does, then deletes it and the checkpoints it wrote
(a pending run here, a running one by its worker, `superstep_server.executor`).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from superstep_server import serde
from superstep_server.checkpoints import delete_for_runs
from superstep_server.db import Database, Tx
from superstep_server.errors import ApiError, conflict, not_found
from superstep_server.rows import now, page

__all__ = ["API_ONLY", "CANCEL_CHANNEL", "QUEUE_CHANNEL", "RUN_STATUSES", "Runs", "run_out"]

RUN_STATUSES = ("pending", "running", "error", "success", "timeout", "interrupted")
QUEUE_CHANNEL = "superstep_runs"
"""Notified (PostgreSQL) when a run may have become claimable: queued, or its thread freed."""
CANCEL_CHANNEL = "superstep_cancel"
"""Notified with a run id when a running run is to stop."""
API_ONLY = ":api-only"
"""Ends the ``origin`` of a process without workers: no worker of its own will take its runs,
so others take them at once (no ``grace_seconds``)."""
INFLIGHT = ("pending", "running")


def run_out(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "run_id": row["run_id"],
        "thread_id": row["thread_id"],
        "assistant_id": row["assistant_id"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "status": row["status"],
        "metadata": serde.loads(row["metadata"]) or {},
        "kwargs": serde.loads(row["kwargs"]) or {},
        "multitask_strategy": row["multitask_strategy"],
    }


class Runs:
    """The runs table. ``saver``: the threads' checkpoint saver, from which a rolled-back
    run's checkpoints are deleted (without one, ``rollback`` is refused)."""

    def __init__(self, db: Database, *, lease_seconds: float = 30.0, saver: Any = None) -> None:
        self.db = db
        self.lease_seconds = lease_seconds
        self.saver = saver

    # --- creating --------------------------------------------------------------------------

    def create(
        self,
        *,
        thread_id: str,
        assistant: dict[str, Any],
        kwargs: dict[str, Any],
        metadata: dict[str, Any],
        multitask_strategy: str,
        if_not_exists: str,
        temporary: bool,
        insert_thread: Any,
        origin: str | None = None,
        after_seconds: float | None = None,
        webhook: str | None = None,
    ) -> tuple[dict[str, Any], list[str]]:
        """Queue a run on ``thread_id``; returns it and the ids of the runs it cancels
        (``interrupt`` strategy). ``insert_thread(tx, thread_id, metadata)`` creates a missing
        thread when ``if_not_exists == "create"``. ``origin`` names the worker pool of the
        process that took the request: its workers get the run first (its followers are
        in that process). ``after_seconds``: no worker takes it before then. ``webhook``: a
        URL told of the run's end (`superstep_server.executor`)."""
        run_id = str(uuid.uuid4())
        at = now()
        thread_meta = {"graph_id": assistant["graph_id"], "assistant_id": assistant["assistant_id"]}
        cancelled: list[str] = []
        with self.db.transaction() as tx:
            found = tx.execute(
                "SELECT metadata FROM server_threads WHERE thread_id = ?", (thread_id,)
            )
            if not found:
                if if_not_exists != "create":
                    raise not_found(f"Thread {thread_id!r} not found")
                insert_thread(tx, thread_id, thread_meta)
                current_meta: dict[str, Any] = dict(thread_meta)
            else:
                current_meta = serde.loads(found[0]["metadata"]) or {}
            inflight = tx.execute(
                "SELECT run_id, status FROM server_runs WHERE thread_id = ? "
                "AND status IN ('pending', 'running') ORDER BY created_at" + self._for_update,
                (thread_id,),
            )
            if inflight:
                if multitask_strategy == "reject":
                    raise conflict(
                        # the reference's words
                        "Thread is already running a task. Wait for it to finish or "
                        "choose a different multitask strategy."
                    )
                if multitask_strategy in ("interrupt", "rollback"):
                    for run in inflight:
                        cancelled.append(run["run_id"])
                        self._cancel_in(tx, run["run_id"], run["status"], multitask_strategy, at)
            merged = {**current_meta, **thread_meta}
            # as the reference's run metadata: the assistant's (a system assistant's
            # ``created_by``), the thread's, the config's, then the request's, and always
            # the assistant that runs it; the run passes it on to its checkpoints
            run_meta = {
                **(assistant.get("metadata") or {}),
                **merged,
                **((kwargs.get("config") or {}).get("metadata") or {}),
                **metadata,
                "assistant_id": assistant["assistant_id"],
            }
            tx.execute(
                "INSERT INTO server_runs (run_id, thread_id, assistant_id, status, metadata, "
                "kwargs, multitask_strategy, temporary, created_at, updated_at, origin, "
                "not_before, webhook) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    thread_id,
                    assistant["assistant_id"],
                    serde.dumps(run_meta).decode(),
                    serde.dumps(kwargs).decode(),
                    multitask_strategy,
                    1 if temporary else 0,
                    at,
                    at,
                    origin,
                    None if after_seconds is None else time.time() + after_seconds,
                    webhook,
                ),
            )
            self.db.notify(tx, QUEUE_CHANNEL)
            tx.execute(
                "UPDATE server_threads SET metadata = ?, updated_at = ? WHERE thread_id = ?",
                (serde.dumps(merged).decode(), at, thread_id),
            )
        if multitask_strategy == "rollback" and cancelled:
            self._forget_checkpoints(thread_id, cancelled)
        return self.get(thread_id, run_id), cancelled

    # --- reading ---------------------------------------------------------------------------

    def row(self, run_id: str) -> dict[str, Any] | None:
        rows = self.db.execute("SELECT * FROM server_runs WHERE run_id = ?", (run_id,))
        return rows[0] if rows else None

    def get(self, thread_id: str | None, run_id: str) -> dict[str, Any]:
        row = self.row(run_id)
        if row is None or (thread_id is not None and row["thread_id"] != thread_id):
            where = f" on thread {thread_id!r}" if thread_id else ""
            raise not_found(f"Run {run_id!r} not found{where}")
        return run_out(row)

    def search(
        self, thread_id: str, *, limit: int, offset: int, status: str | None
    ) -> list[dict[str, Any]]:
        if status is not None and status not in RUN_STATUSES:
            raise ApiError(422, f"status: {status!r} is not one of {', '.join(RUN_STATUSES)}")
        rows = self.db.execute(
            "SELECT * FROM server_runs WHERE thread_id = ? ORDER BY created_at DESC",
            (thread_id,),
        )
        found = [run_out(r) for r in rows if status is None or r["status"] == status]
        return page(found, limit, offset)

    def of_thread_since(self, thread_id: str, since: str) -> list[dict[str, Any]]:
        """The thread's runs created at ``since`` or later, oldest first."""
        return self.db.execute(
            "SELECT * FROM server_runs WHERE thread_id = ? AND created_at >= ? "
            "ORDER BY created_at, run_id",
            (thread_id, since),
        )

    def inflight(self, thread_id: str) -> list[dict[str, Any]]:
        return self.db.execute(
            "SELECT * FROM server_runs WHERE thread_id = ? AND status IN ('pending', 'running')",
            (thread_id,),
        )

    def delete(self, thread_id: str, run_id: str) -> None:
        run = self.get(thread_id, run_id)
        if run["status"] in INFLIGHT:
            raise conflict(f"Run {run_id!r} is {run['status']}: cancel it before deleting it")
        self.db.execute("DELETE FROM server_runs WHERE run_id = ?", (run_id,))
        # as the reference deletes a run: with the checkpoints it wrote (the thread's state
        # is then the one before it)
        if self.saver is not None:
            delete_for_runs(self.saver, thread_id, [run_id])

    # --- cancelling ------------------------------------------------------------------------

    def request_cancel(self, run_ids: Sequence[str], action: str) -> list[str]:
        """Cancel runs with ``action`` (``interrupt``: pending ones end ``interrupted`` now;
        ``rollback``: pending ones are deleted with any checkpoints an earlier attempt
        wrote); running ones are flagged and stopped by their worker at the next step (which
        rolls them back for ``rollback``). Returns the flagged running runs."""
        if action == "rollback" and self.saver is None:
            raise ApiError(422, "action: 'rollback' needs the threads' checkpoints")
        running: list[str] = []
        removed: dict[str, list[str]] = {}
        at = now()
        with self.db.transaction() as tx:
            for run_id in run_ids:
                rows = tx.execute(
                    "SELECT status, thread_id FROM server_runs WHERE run_id = ?" + self._for_update,
                    (run_id,),
                )
                if not rows or rows[0]["status"] not in INFLIGHT:
                    continue
                self._cancel_in(tx, run_id, rows[0]["status"], action, at)
                if rows[0]["status"] == "running":
                    running.append(run_id)
                elif action == "rollback":
                    removed.setdefault(rows[0]["thread_id"], []).append(run_id)
        for thread_id, ids in removed.items():
            self._forget_checkpoints(thread_id, ids)
        return running

    @property
    def _for_update(self) -> str:
        """Lock the runs a cancel reads (PostgreSQL). A worker's claim updates a pending run
        to running under its own row lock: unlocked, the cancel could read the run as
        pending while that claim was not yet committed, then delete it (``rollback``) or
        end it ``interrupted`` once it was running, so the worker ran it on with no cancel
        flag and a rolled-back run's checkpoints stayed. Locked, the cancel waits for the
        claim and reads the run as running. SQLite's transactions never overlap."""
        return " FOR UPDATE" if self.db.kind == "postgres" else ""

    def _cancel_in(self, tx: Tx, run_id: str, status: str, action: str, at: str) -> None:
        if status == "running":
            tx.execute(
                "UPDATE server_runs SET cancel_action = ? WHERE run_id = ?", (action, run_id)
            )
            self.db.notify(tx, CANCEL_CHANNEL, run_id)
        elif action == "rollback":
            tx.execute("DELETE FROM server_runs WHERE run_id = ?", (run_id,))
        else:
            tx.execute(
                "UPDATE server_runs SET status = 'interrupted', updated_at = ? WHERE run_id = ?",
                (at, run_id),
            )

    def _forget_checkpoints(self, thread_id: str, run_ids: Sequence[str]) -> None:
        """The checkpoints of rolled-back runs (a run re-queued after its worker died may
        have written some before it was cancelled)."""
        if self.saver is None:
            raise ApiError(422, "multitask_strategy: 'rollback' needs the threads' checkpoints")
        delete_for_runs(self.saver, thread_id, run_ids)

    def cancel_requested(self, run_id: str) -> str | None:
        rows = self.db.execute("SELECT cancel_action FROM server_runs WHERE run_id = ?", (run_id,))
        return rows[0]["cancel_action"] if rows else None

    # --- the queue -------------------------------------------------------------------------

    def claim(
        self, worker: str, *, origin: str | None = None, grace_seconds: float = 2.0
    ) -> dict[str, Any] | None:
        """Claim the oldest pending run whose thread has no running run; ``None`` if there
        is none (or another worker won the race for it). A worker of pool ``origin`` takes
        its own pool's runs first, and another pool's only once they waited
        ``grace_seconds`` (the process that took a run's request streams it from memory)."""
        lock = " FOR UPDATE SKIP LOCKED" if self.db.kind == "postgres" else ""
        sql = (
            "UPDATE server_runs SET status = 'running', worker = ?, lease_until = ?, "
            "attempt = attempt + 1, updated_at = ? WHERE run_id = ("
            "SELECT r.run_id FROM server_runs r WHERE r.status = 'pending' "
            "AND (r.origin IS NULL OR r.origin = ? OR r.origin LIKE ? OR r.created_at < ?) "
            "AND (r.not_before IS NULL OR r.not_before <= ?) AND NOT EXISTS ("
            "SELECT 1 FROM server_runs o WHERE o.thread_id = r.thread_id "
            "AND o.status = 'running') "
            "ORDER BY CASE WHEN r.origin = ? THEN 0 ELSE 1 END, r.created_at LIMIT 1"
            + lock
            + ") RETURNING *"
        )
        at = now()
        waited = datetime.fromtimestamp(time.time() - grace_seconds, UTC).isoformat()
        clock = time.time()
        params = (
            worker,
            clock + self.lease_seconds,
            at,
            origin,
            "%" + API_ONLY,
            waited,
            clock,
            origin,
        )
        try:
            with self.db.transaction() as tx:
                rows = tx.execute(sql, params)
        except Exception as e:
            if self.db.is_unique_violation(e):  # another worker started this thread's run
                return None
            raise
        return rows[0] if rows else None

    def renew(self, run_id: str, worker: str) -> bool:
        """Extend the lease; False when the run is no longer this worker's."""
        rows = self.db.execute(
            "UPDATE server_runs SET lease_until = ? WHERE run_id = ? AND worker = ? "
            "AND status = 'running' RETURNING run_id",
            (time.time() + self.lease_seconds, run_id, worker),
        )
        return bool(rows)

    def finish(
        self,
        run_id: str,
        worker: str,
        status: str,
        output: Any,
        then: Callable[[Tx], None] | None = None,
    ) -> bool:
        """End a run this worker holds (False, and nothing written, when it holds it no
        longer); ``then(tx)`` writes more in the same transaction (the thread's status)."""
        with self.db.transaction() as tx:
            rows = tx.execute(
                "UPDATE server_runs SET status = ?, output = ?, worker = NULL, "
                "lease_until = NULL, updated_at = ? WHERE run_id = ? AND worker = ? "
                "AND status = 'running' RETURNING run_id",
                (status, serde.dumps(output).decode(), now(), run_id, worker),
            )
            if rows:
                self.db.notify(tx, QUEUE_CHANNEL)  # the thread's next run may start
                if then is not None:
                    then(tx)
        return bool(rows)

    def release(self, run_id: str, worker: str) -> bool:
        """Put a run this worker holds back in the queue (a drained run: its next attempt
        continues from its last checkpoint); False when it holds it no longer. A cancel
        asked for meanwhile ends it as a pending run's does (``interrupt``: ``interrupted``;
        ``rollback``: deleted with its checkpoints)."""
        with self.db.transaction() as tx:
            rows = tx.execute(
                "UPDATE server_runs SET status = 'pending', worker = NULL, lease_until = NULL, "
                "updated_at = ? WHERE run_id = ? AND worker = ? AND status = 'running' "
                "RETURNING thread_id, cancel_action",
                (now(), run_id, worker),
            )
            if rows and rows[0]["cancel_action"]:
                self._cancel_in(tx, run_id, "pending", rows[0]["cancel_action"], now())
            if rows:
                self.db.notify(tx, QUEUE_CHANNEL)
        if rows and rows[0]["cancel_action"] == "rollback":
            self._forget_checkpoints(rows[0]["thread_id"], [run_id])
        return bool(rows)

    def discard(self, run_id: str, worker: str, then: Callable[[Tx], None] | None = None) -> bool:
        """Delete a run this worker holds (a run rolled back: its checkpoints are already
        gone), with its relayed events; False when it holds it no longer. ``then(tx)`` as
        in `finish`."""
        with self.db.transaction() as tx:
            rows = tx.execute(
                "DELETE FROM server_runs WHERE run_id = ? AND worker = ? AND status = 'running' "
                "RETURNING run_id",
                (run_id, worker),
            )
            if rows:
                tx.execute("DELETE FROM server_run_events WHERE run_id = ?", (run_id,))
                self.db.notify(tx, QUEUE_CHANNEL)
                if then is not None:
                    then(tx)
        return bool(rows)

    def sweep(self, *, keep_stateless_seconds: float = 600.0) -> int:
        """Put runs whose lease expired back in the queue (how many); forget stateless runs
        that ended more than ``keep_stateless_seconds`` ago (their threads are gone), and the
        relayed events of all runs that ended that long ago."""
        with self.db.transaction() as tx:
            rows = tx.execute(
                "UPDATE server_runs SET status = 'pending', worker = NULL, lease_until = NULL "
                "WHERE status = 'running' AND lease_until < ? RETURNING run_id",
                (time.time(),),
            )
            if rows:
                self.db.notify(tx, QUEUE_CHANNEL)
        cutoff = datetime.fromtimestamp(time.time() - keep_stateless_seconds, UTC).isoformat()
        self.db.execute(
            "DELETE FROM server_run_events WHERE run_id IN (SELECT run_id FROM server_runs "
            "WHERE status NOT IN ('pending', 'running') AND updated_at < ?)",
            (cutoff,),
        )
        self.db.execute(
            "DELETE FROM server_runs WHERE temporary = 1 "
            "AND status NOT IN ('pending', 'running') AND updated_at < ?",
            (cutoff,),
        )
        return len(rows)

    # --- events relayed between processes ---------------------------------------------------

    def add_event(self, run_id: str, seq: int, event: str, data: bytes) -> None:
        """Keep one stream event of a run whose followers are in another process."""
        self.db.execute(
            "INSERT INTO server_run_events (run_id, seq, event, data) VALUES (?, ?, ?, ?)",
            (run_id, seq, event, data.decode()),
        )

    def next_event_seq(self, run_id: str) -> int:
        """The ``seq`` of the next event a run's new attempt keeps (after its earlier
        attempts' events: a follower's ``Last-Event-ID`` stays valid)."""
        rows = self.db.execute(
            "SELECT MAX(seq) AS last FROM server_run_events WHERE run_id = ?", (run_id,)
        )
        last = rows[0]["last"] if rows else None
        return 0 if last is None else int(last) + 1

    def events_after(self, run_id: str, after: int) -> list[dict[str, Any]]:
        """The kept events of a run with ``seq`` above ``after``, in order."""
        return self.db.execute(
            "SELECT seq, event, data FROM server_run_events WHERE run_id = ? AND seq > ? "
            "ORDER BY seq",
            (run_id, after),
        )

    def output(self, run_id: str) -> Any:
        rows = self.db.execute("SELECT output FROM server_runs WHERE run_id = ?", (run_id,))
        return serde.loads(rows[0]["output"]) if rows else None
