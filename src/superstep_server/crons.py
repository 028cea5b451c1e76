"""Crons: runs created on a schedule (``croniter`` expressions, in a time zone), on a thread
or stateless (a new thread per run, deleted after it unless ``on_run_completed`` is
``keep``). One worker per process fires the due ones: it moves a cron's ``next_run_date``
forward with a conditional update (only one process wins a firing), then queues the run
like any other."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import croniter

from superstep_server import serde
from superstep_server.db import Database
from superstep_server.errors import ApiError, not_found
from superstep_server.rows import contains, now, page, paging, sort_rows

__all__ = ["Crons", "cron_out", "next_run"]


def _zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError) as e:
        raise ApiError(422, f"timezone: {name!r} is not a time zone ({e})") from e


def next_run(schedule: str, timezone: str | None, after: datetime) -> datetime:
    """The first time after ``after`` that ``schedule`` names, in UTC. Raises `ApiError`
    422 for an expression croniter does not read."""
    if not croniter.is_valid(schedule):
        raise ApiError(422, f"schedule: {schedule!r} is not a cron expression")
    local = after.astimezone(_zone(timezone))
    found: datetime = croniter(schedule, local).get_next(datetime)
    return found.astimezone(UTC)


def _naming_cron(payload: dict[str, Any], cron_id: str) -> dict[str, Any]:
    """``payload`` with ``cron_id`` in its config's configurable, as the reference stores a
    cron's: each run it fires has it there (and, as LangGraph copies configurable values,
    in its checkpoints' metadata)."""
    config = dict(payload.get("config") or {})
    config["configurable"] = {**(config.get("configurable") or {}), "cron_id": cron_id}
    return {**payload, "config": config}


def cron_out(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "cron_id": row["cron_id"],
        "assistant_id": row["assistant_id"],
        "thread_id": row["thread_id"],
        "schedule": row["schedule"],
        "timezone": row["timezone"],
        "payload": serde.loads(row["payload"]) or {},
        "metadata": serde.loads(row["metadata"]) or {},
        "on_run_completed": row["on_run_completed"],
        "end_time": row["end_time"],
        "enabled": bool(row["enabled"]),
        "next_run_date": row["next_run_date"],
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
        "user_id": None,
    }


_RUN_KEYS = (
    "input",
    "config",
    "context",
    "metadata",
    "interrupt_before",
    "interrupt_after",
    "webhook",
    "multitask_strategy",
    "stream_mode",
    "stream_subgraphs",
    "stream_resumable",
    "durability",
    "checkpoint_during",
)


class Crons:
    def __init__(self, db: Database) -> None:
        self.db = db

    def create(
        self,
        body: dict[str, Any],
        *,
        thread_id: str | None,
        assistant_id: str,
        check_run: Callable[[dict[str, Any]], None],
    ) -> dict[str, Any]:
        """A cron from a create body; ``check_run(run_body)`` refuses a run body the runs
        endpoints would refuse (so a bad cron fails now, not at 3 a.m.)."""
        schedule = body.get("schedule")
        if not isinstance(schedule, str) or not schedule.strip():
            raise ApiError(422, "schedule: field required (a cron expression)")
        timezone = body.get("timezone")
        end_time = body.get("end_time")
        if end_time is not None:
            try:
                datetime.fromisoformat(str(end_time))
            except ValueError:
                raise ApiError(422, f"end_time: {end_time!r} is not an ISO 8601 time") from None
        payload = {k: body[k] for k in _RUN_KEYS if body.get(k) is not None}
        check_run({**payload, "assistant_id": assistant_id})
        upcoming = next_run(schedule, timezone, datetime.now(UTC))
        completed = body.get("on_run_completed")
        if completed is not None and completed not in ("delete", "keep"):
            raise ApiError(422, f"on_run_completed: {completed!r} is not one of delete, keep")
        cron_id = str(uuid.uuid4())
        payload = _naming_cron(payload, cron_id)
        at = now()
        self.db.execute(
            "INSERT INTO server_crons (cron_id, assistant_id, thread_id, schedule, timezone, "
            "payload, metadata, on_run_completed, end_time, enabled, next_run_date, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                cron_id,
                assistant_id,
                thread_id,
                schedule,
                timezone,
                serde.dumps(payload).decode(),
                serde.dumps(body.get("metadata") or {}).decode(),
                None if thread_id else (completed or "delete"),
                end_time,
                0 if body.get("enabled") is False else 1,
                upcoming.isoformat(),
                at,
                at,
            ),
        )
        return self.get(cron_id)

    def get(self, cron_id: str) -> dict[str, Any]:
        rows = self.db.execute("SELECT * FROM server_crons WHERE cron_id = ?", (cron_id,))
        if not rows:
            raise not_found(f"Cron {cron_id!r} not found")
        return cron_out(rows[0])

    def patch(
        self, cron_id: str, body: dict[str, Any], check_run: Callable[[dict[str, Any]], None]
    ) -> dict[str, Any]:
        current = self.get(cron_id)
        payload = dict(current["payload"])
        for key in _RUN_KEYS:
            if body.get(key) is not None:
                payload[key] = body[key]
        check_run({**payload, "assistant_id": current["assistant_id"]})
        payload = _naming_cron(payload, cron_id)
        schedule = body.get("schedule") or current["schedule"]
        timezone = body.get("timezone") or current["timezone"]
        enabled = current["enabled"] if body.get("enabled") is None else bool(body["enabled"])
        end_time = body["end_time"] if "end_time" in body else current["end_time"]
        upcoming = next_run(schedule, timezone, datetime.now(UTC))
        self.db.execute(
            "UPDATE server_crons SET schedule = ?, timezone = ?, payload = ?, metadata = ?, "
            "on_run_completed = ?, end_time = ?, enabled = ?, next_run_date = ?, "
            "updated_at = ? WHERE cron_id = ?",
            (
                schedule,
                timezone,
                serde.dumps(payload).decode(),
                serde.dumps({**current["metadata"], **(body.get("metadata") or {})}).decode(),
                body.get("on_run_completed") or current["on_run_completed"],
                end_time,
                1 if enabled else 0,
                upcoming.isoformat(),
                now(),
                cron_id,
            ),
        )
        return self.get(cron_id)

    def delete(self, cron_id: str) -> None:
        self.get(cron_id)
        self.db.execute("DELETE FROM server_crons WHERE cron_id = ?", (cron_id,))

    def _filtered(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        found = [cron_out(r) for r in self.db.execute("SELECT * FROM server_crons")]
        if body.get("assistant_id"):
            found = [c for c in found if c["assistant_id"] == body["assistant_id"]]
        if body.get("thread_id"):
            found = [c for c in found if c["thread_id"] == body["thread_id"]]
        if body.get("enabled") is not None:
            found = [c for c in found if c["enabled"] == bool(body["enabled"])]
        if body.get("metadata"):
            found = [c for c in found if contains(c["metadata"], body["metadata"])]
        return found

    def search(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        sort_by = body.get("sort_by") or "created_at"
        allowed = (
            "cron_id",
            "assistant_id",
            "thread_id",
            "created_at",
            "updated_at",
            "next_run_date",
            "end_time",
        )
        if sort_by not in allowed:
            raise ApiError(422, f"sort_by: {sort_by!r} is not one of {', '.join(allowed)}")
        found = sort_rows(self._filtered(body), sort_by, body.get("sort_order"))
        rows = page(found, *paging(body))
        select = body.get("select")
        if select:
            rows = [{k: r[k] for k in select if k in r} for r in rows]
        return rows

    def count(self, body: dict[str, Any]) -> int:
        return len(self._filtered(body))

    def take_due(self, at: datetime | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """The crons due at ``at`` (now) whose firing this caller won: each one's
        ``next_run_date`` is moved to its next occurrence (or the cron is disabled past its
        ``end_time``) by an update that only one process can make."""
        moment = at or datetime.now(UTC)
        due = self.db.execute(
            "SELECT * FROM server_crons WHERE enabled = 1 AND next_run_date <= ? "
            "ORDER BY next_run_date LIMIT ?",
            (moment.isoformat(), limit),
        )
        won: list[dict[str, Any]] = []
        for row in due:
            ended = (
                row["end_time"] is not None
                and datetime.fromisoformat(row["end_time"]).astimezone(UTC) <= moment
            )
            upcoming = next_run(row["schedule"], row["timezone"], moment).isoformat()
            taken = self.db.execute(
                "UPDATE server_crons SET next_run_date = ?, enabled = ?, updated_at = ? "
                "WHERE cron_id = ? AND next_run_date = ? RETURNING cron_id",
                (upcoming, 0 if ended else 1, now(), row["cron_id"], row["next_run_date"]),
            )
            if taken and not ended:
                won.append(cron_out(row))
        return won
