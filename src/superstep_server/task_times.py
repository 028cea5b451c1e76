"""When each task of a run started and ended, and its error: what the checkpoints do not
keep (LangGraph's checkpoints hold a task's writes and error, not its timing), kept by the
server from the run's ``tasks`` stream (always watched, whatever modes the client asked
for) in ``server_task_times``, and read by the viewer's step timeline through
``GET /threads/{thread_id}/runs/{run_id}/tasks`` (`superstep_server.api_task_times`).

That stream names a task once however often it is retried (as LangGraph's does); each
attempt, with the error that ended it, comes from the façade's attempt observer
(`superstep_compat._internal._constants.CONFIG_KEY_ATTEMPT_OBSERVER`, set on the run's
config) into ``server_task_attempts``."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

from superstep_server.db import Database

__all__ = ["TaskClock", "delete_for_thread", "of_run"]


class TaskClock:
    """The tasks of one run as their start and result events arrive (monotonic clock for
    the duration, wall clock for the start)."""

    def __init__(self) -> None:
        self.tasks: dict[tuple[str, str], dict[str, Any]] = {}
        # reported from the threads the tasks run on, in any order
        self.attempts: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def attempt(self, report: dict[str, Any]) -> None:
        """The attempt observer: one attempt of a task ended (the shape of
        `superstep_compat.pregel._task_support.report_attempt`)."""
        if report.get("name") == "__start__":  # the input's own task: not in the timeline
            return
        with self._lock:
            self.attempts.append(dict(report))

    def event(self, ns: tuple[str, ...], chunk: Any) -> None:
        if not isinstance(chunk, Mapping) or not isinstance(chunk.get("id"), str):
            return
        key = ("|".join(ns), chunk["id"])
        if "input" in chunk or "triggers" in chunk:  # a task starts
            self.tasks.setdefault(
                key,
                {
                    "name": str(chunk.get("name", "")),
                    "started": time.time(),
                    "clock": time.perf_counter(),
                    "ms": None,
                    "error": None,
                    "interrupted": False,
                },
            )
            return
        task = self.tasks.get(key)
        if task is None or task["ms"] is not None:
            return
        task["ms"] = round((time.perf_counter() - task["clock"]) * 1000, 3)
        error = chunk.get("error")
        if error is not None:
            task["error"] = (
                f"{type(error).__name__}: {error}"
                if isinstance(error, BaseException)
                else str(error)
            )
        task["interrupted"] = bool(chunk.get("interrupts"))

    def save(self, db: Database, thread_id: str, run_id: str) -> None:
        with self._lock:
            attempts = list(self.attempts)
        if not self.tasks and not attempts:
            return
        with db.transaction() as tx:
            for a in attempts:
                tx.execute(
                    "INSERT INTO server_task_attempts (run_id, checkpoint_ns, task_id, attempt, "
                    "thread_id, started_at, duration_ms, error, max_attempts) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (run_id, checkpoint_ns, task_id, attempt) DO UPDATE SET "
                    "started_at = excluded.started_at, duration_ms = excluded.duration_ms, "
                    "error = excluded.error, max_attempts = excluded.max_attempts",
                    (
                        run_id,
                        str(a["checkpoint_ns"]),
                        str(a["task_id"]),
                        int(a["attempt"]),
                        thread_id,
                        float(a["started_at"]),
                        float(a["duration_ms"]),
                        a["error"],
                        a["max_attempts"],
                    ),
                )
            for (ns, task_id), task in self.tasks.items():
                tx.execute(
                    "INSERT INTO server_task_times (run_id, checkpoint_ns, task_id, thread_id, "
                    "name, started_at, duration_ms, error, interrupted) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (run_id, checkpoint_ns, task_id) DO UPDATE SET "
                    "started_at = excluded.started_at, duration_ms = excluded.duration_ms, "
                    "error = excluded.error, interrupted = excluded.interrupted",
                    (
                        run_id,
                        ns,
                        task_id,
                        thread_id,
                        task["name"],
                        task["started"],
                        task["ms"],
                        task["error"],
                        1 if task["interrupted"] else 0,
                    ),
                )


def of_run(db: Database, thread_id: str, run_id: str) -> list[dict[str, Any]]:
    """The run's tasks in the order they started: ``task_id``, ``name``,
    ``checkpoint_ns`` (``""`` for the root graph's), ``started_at`` (seconds since the
    epoch), ``duration_ms`` (``None``: it did not end), ``error``, ``interrupted``, and
    ``attempts``: each attempt in order, ``{"attempt", "started_at", "duration_ms", "error",
    "max_attempts"}`` (``max_attempts``: of the retry policy that matched the attempt's
    error, None for one without an error or with no policy matching it); empty for a run
    whose attempts were not observed."""
    tried: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in db.execute(
        "SELECT * FROM server_task_attempts WHERE thread_id = ? AND run_id = ? "
        "ORDER BY checkpoint_ns, task_id, attempt",
        (thread_id, run_id),
    ):
        tried.setdefault((r["checkpoint_ns"], r["task_id"]), []).append(
            {
                "attempt": r["attempt"],
                "started_at": r["started_at"],
                "duration_ms": r["duration_ms"],
                "error": r["error"],
                "max_attempts": r["max_attempts"],
            }
        )
    rows = db.execute(
        "SELECT * FROM server_task_times WHERE thread_id = ? AND run_id = ? "
        "ORDER BY started_at, checkpoint_ns, task_id",
        (thread_id, run_id),
    )
    return [
        {
            "task_id": r["task_id"],
            "name": r["name"],
            "checkpoint_ns": r["checkpoint_ns"],
            "started_at": r["started_at"],
            "duration_ms": r["duration_ms"],
            "error": r["error"],
            "interrupted": bool(r["interrupted"]),
            "attempts": tried.get((r["checkpoint_ns"], r["task_id"]), []),
        }
        for r in rows
    ]


def delete_for_thread(tx: Any, thread_id: str) -> None:
    tx.execute("DELETE FROM server_task_times WHERE thread_id = ?", (thread_id,))
    tx.execute("DELETE FROM server_task_attempts WHERE thread_id = ?", (thread_id,))
