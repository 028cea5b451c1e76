"""Threads: rows kept beside the checkpoints (metadata, status, the latest values and
pending interrupts, for search and for ``GET /threads/{id}``); the state itself is read from
the checkpoints (`superstep_server.state`)."""

from __future__ import annotations

import uuid
from typing import Any

from superstep_server import serde
from superstep_server.checkpoints import copy_thread, prune_keep_latest
from superstep_server.db import Database, Tx
from superstep_server.errors import ApiError, conflict, not_found
from superstep_server.json_filters import containment
from superstep_server.rows import contains, now, page, paging
from superstep_server.task_times import delete_for_thread

__all__ = ["THREAD_STATUSES", "Threads", "thread_out"]

THREAD_STATUSES = ("idle", "busy", "interrupted", "error")


_INFLIGHT = (
    "SELECT 1 FROM server_runs r WHERE r.thread_id = t.thread_id "
    "AND r.status IN ('pending', 'running')"
)
SELECT_THREADS = (
    f"SELECT t.*, EXISTS ({_INFLIGHT}) AS busy, CASE WHEN EXISTS ({_INFLIGHT}) "
    "THEN 'busy' ELSE t.status END AS shown_status FROM server_threads t"
)
"""Threads with ``busy``: whether a run is pending or running on them. A thread is busy
while it has one, whatever status its last run left (so a cancelled queued run leaves no
thread busy)."""


def thread_out(row: dict[str, Any]) -> dict[str, Any]:
    out = {
        "thread_id": row["thread_id"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "state_updated_at": row["state_updated_at"],
        "metadata": serde.loads(row["metadata"]) or {},
        "status": "busy" if row.get("busy") else row["status"],
        "config": serde.loads(row["config"]) or {},
        "values": serde.loads(row["state_values"]),
        "interrupts": serde.loads(row["interrupts"]) or {},
    }
    if row.get("error"):
        out["error"] = serde.loads(row["error"])
    return out


class Threads:
    def __init__(self, db: Database, saver: Any) -> None:
        self.db = db
        self.saver = saver

    def insert(
        self, tx: Tx, thread_id: str, metadata: dict[str, Any], *, config: Any = None
    ) -> None:
        at = now()
        tx.execute(
            "INSERT INTO server_threads (thread_id, status, metadata, config, state_values, "
            "interrupts, error, created_at, updated_at, state_updated_at) "
            "VALUES (?, 'idle', ?, ?, NULL, '{}', NULL, ?, ?, ?)",
            (
                thread_id,
                serde.dumps(metadata).decode(),
                serde.dumps(config or {}).decode(),
                at,
                at,
                at,
            ),
        )

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        thread_id = str(body.get("thread_id") or uuid.uuid4())
        metadata = body.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise ApiError(422, "metadata: must be a JSON object")
        with self.db.transaction() as tx:
            found = tx.execute(SELECT_THREADS + " WHERE t.thread_id = ?", (thread_id,))
            if found:
                if body.get("if_exists") == "do_nothing":
                    return thread_out(found[0])
                raise conflict(f"Thread {thread_id!r} already exists")
            self.insert(tx, thread_id, metadata)
        return self.get(thread_id)

    def row(self, thread_id: str) -> dict[str, Any] | None:
        rows = self.db.execute(SELECT_THREADS + " WHERE t.thread_id = ?", (thread_id,))
        return rows[0] if rows else None

    def get(self, thread_id: str) -> dict[str, Any]:
        row = self.row(thread_id)
        if row is None:
            raise not_found(f"Thread with ID {thread_id} not found")  # the reference's words
        return thread_out(row)

    def patch(self, thread_id: str, body: dict[str, Any]) -> dict[str, Any]:
        current = self.get(thread_id)
        metadata = body.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            raise ApiError(422, "metadata: must be a JSON object")
        merged = {**current["metadata"], **(metadata or {})}
        self.db.execute(
            "UPDATE server_threads SET metadata = ?, updated_at = ? WHERE thread_id = ?",
            (serde.dumps(merged).decode(), now(), thread_id),
        )
        return self.get(thread_id)

    def merge_metadata(self, thread_id: str, metadata: dict[str, Any]) -> None:
        row = self.row(thread_id)
        if row is None:
            return
        merged = {**(serde.loads(row["metadata"]) or {}), **metadata}
        self.db.execute(
            "UPDATE server_threads SET metadata = ? WHERE thread_id = ?",
            (serde.dumps(merged).decode(), thread_id),
        )

    def delete(self, thread_id: str, *, keep_runs: bool = False) -> None:
        """Delete the thread, its checkpoints and (unless ``keep_runs``: a stateless run's
        thread, whose run's output a waiter in another process may still read; `Runs.sweep`
        removes such runs later) its runs."""
        self.get(thread_id)
        with self.db.transaction() as tx:
            if not keep_runs:
                tx.execute("DELETE FROM server_runs WHERE thread_id = ?", (thread_id,))
            delete_for_thread(tx, thread_id)
            tx.execute("DELETE FROM server_thread_updates WHERE thread_id = ?", (thread_id,))
            tx.execute("DELETE FROM server_threads WHERE thread_id = ?", (thread_id,))
        self.saver.delete_thread(thread_id)

    def copy(self, thread_id: str) -> dict[str, Any]:
        """A new thread with the metadata of ``thread_id`` and a copy of all its checkpoints
        (its history and state read the same, a pending interrupt included); as the
        reference's copy, it starts ``idle`` with no values, interrupts or config of its own
        (``values`` null until a run or a state update on it); its runs are not copied. A
        missing source is a 409, as the reference answers a copy of one."""
        source = self.row(thread_id)
        if source is None:
            raise ApiError(409, f"Thread {thread_id!r} not found: nothing to copy")
        target = str(uuid.uuid4())
        with self.db.transaction() as tx:
            self.insert(tx, target, serde.loads(source["metadata"]) or {})
        try:
            copy_thread(self.saver, thread_id, target)
        except BaseException:
            self.delete(target)
            raise
        return self.get(target)

    def prune_checkpoints(self, thread_ids: list[str]) -> int:
        """Keep the latest checkpoint of each of the threads that exist (how many), delete
        their older checkpoints."""
        found = [t for t in thread_ids if self.row(t) is not None]
        if found:
            prune_keep_latest(self.saver, found)
        return len(found)

    def set_status(
        self,
        thread_id: str,
        status: str,
        *,
        values: Any = None,
        interrupts: dict[str, Any] | None = None,
        error: Any = None,
        tx: Tx | None = None,
    ) -> None:
        """Record a thread's status with its latest values, pending interrupts and error
        (in ``tx`` when given: with the end of the run that changed them)."""
        at = now()
        (tx or self.db).execute(
            "UPDATE server_threads SET status = ?, state_values = ?, interrupts = ?, "
            "error = ?, updated_at = ?, state_updated_at = ? WHERE thread_id = ?",
            (
                status,
                None if values is None else serde.dumps(values).decode(),
                serde.dumps(interrupts or {}).decode(),
                None if error is None else serde.dumps(error).decode(),
                at,
                at,
                thread_id,
            ),
        )

    def _where(self, body: dict[str, Any]) -> tuple[str, list[Any], dict[str, Any]]:
        """The search's conditions as SQL (and params), and what SQL cannot decide of the
        ``metadata``/``values`` filters (`superstep_server.json_filters`), per column."""
        status = body.get("status")
        if status is not None and status not in THREAD_STATUSES:
            raise ApiError(422, f"status: {status!r} is not one of {', '.join(THREAD_STATUSES)}")
        clauses: list[str] = []
        params: list[Any] = []
        rest: dict[str, Any] = {}
        if body.get("ids"):
            ids = [str(i) for i in body["ids"]]
            clauses.append(f"t.thread_id IN ({', '.join('?' for _ in ids)})")
            params += ids
        if status == "busy":
            clauses.append(f"EXISTS ({_INFLIGHT})")
        elif status:
            clauses.append(f"t.status = ? AND NOT EXISTS ({_INFLIGHT})")
            params.append(status)
        for field, column in (("metadata", "t.metadata"), ("values", "t.state_values")):
            if body.get(field):
                found = containment(self.db.kind, column, body[field], field)
                clauses += found.clauses
                params += found.params
                if found.rest:
                    rest[field] = found.rest
        return (" WHERE " + " AND ".join(clauses)) if clauses else "", params, rest

    def search(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        sort_by = body.get("sort_by") or "created_at"
        allowed = ("thread_id", "status", "created_at", "updated_at", "state_updated_at")
        if sort_by not in allowed:
            raise ApiError(422, f"sort_by: {sort_by!r} is not one of {', '.join(allowed)}")
        order = "ASC" if (body.get("sort_order") or "desc").lower() == "asc" else "DESC"
        limit, offset = paging(body)
        where, params, rest = self._where(body)
        # ``status`` sorts by the status the API shows (busy while a run is in flight)
        key = "shown_status" if sort_by == "status" else f"t.{sort_by}"
        sql = SELECT_THREADS + where + f" ORDER BY {key} {order}"
        if not rest:
            sql += " LIMIT ? OFFSET ?"
            params = [*params, limit, offset]
        found = [thread_out(r) for r in self.db.execute(sql, params)]
        if rest:
            found = page([t for t in found if _passes(t, rest)], limit, offset)
        select = body.get("select")
        if select:
            found = [{k: r[k] for k in select if k in r} for r in found]
        return found

    def count(self, body: dict[str, Any]) -> int:
        where, params, rest = self._where(body)
        if not rest:
            rows = self.db.execute("SELECT COUNT(*) AS n FROM server_threads t" + where, params)
            return int(rows[0]["n"])
        return sum(
            1
            for r in self.db.execute(SELECT_THREADS + where, params)
            if _passes(thread_out(r), rest)
        )


def _passes(thread: dict[str, Any], rest: dict[str, Any]) -> bool:
    """The part of the ``metadata``/``values`` filters SQL left undecided."""
    return all(contains(thread[field], query) for field, query in rest.items())
