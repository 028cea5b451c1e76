"""``GET /threads/{thread_id}/stream``: one SSE stream of everything that happens on a thread
until the client leaves.

What the reference sends, by ``stream_mode`` (the SDK's query parameter; ``stream_modes``,
the reference's own name, is read too; repeated or comma-separated):

- ``run_modes`` (the default): the events of each run on the thread, as its own stream
  sends them (``metadata`` with ``run_id`` and ``attempt`` first), then a ``metadata``
  event ``{"status": "run_done", "run_id": ...}`` when it ends;
- ``lifecycle``: only those ``metadata`` events (a run started, a run ended);
- ``state_update``: ``{"state": <thread state>, "thread_id": ...}`` after each
  ``POST /threads/{id}/state``.

Runs are followed in the order they were created (one runs at a time on a thread): those
pending or running when the stream opens, then each new one; a state update is sent before
the runs created after it. Every event has an id in the reference's format (a Redis stream
id, ``<ms>-<seq>``): a run's events ``<ms the run was created>-<n>`` (n from 1), a run's end
and a state update ``<ms it happened>-0``. ``Last-Event-ID`` with one of them resumes after
it (that run's later events, then what happened on the thread after it); a bare ``<ms>``
(or ``<ms>-0``, ``<ms>-*``) resumes after that moment: the runs still going then or created
since (each from its start), the updates made since; ``-1`` or ``-`` replays everything
still kept: the thread's runs, and its state updates of the last
``KEEP_UPDATES_SECONDS`` (kept in ``server_thread_updates``, so an update made through
another server process is seen too, within the idle poll). A run executed by another
process is seen through the events that process relays (`superstep_server.executor`).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from superstep_server import serde
from superstep_server.api_runs import run_events
from superstep_server.errors import ApiError
from superstep_server.http import blocking, sse_frame
from superstep_server.rows import now
from superstep_server.streams import HEARTBEAT, Heartbeats

__all__ = ["THREAD_STREAM_MODES", "moment_id", "routes", "run_event_id", "state_updated"]

THREAD_STREAM_MODES = ("run_modes", "lifecycle", "state_update")
KEEP_UPDATES_SECONDS = 600.0  # as long as a resumable run's events


def _modes(request: Request) -> set[str]:
    raw = request.query_params.getlist("stream_mode") + request.query_params.getlist("stream_modes")
    modes = {m.strip() for value in raw for m in value.split(",") if m.strip()}
    for mode in modes:
        if mode not in THREAD_STREAM_MODES:
            raise ApiError(
                422, f"stream_mode: {mode!r} is not one of {', '.join(THREAD_STREAM_MODES)}"
            )
    return modes or {"run_modes"}


def _wanted(modes: set[str], event: str) -> bool:
    if event == "state_update":
        return "state_update" in modes
    return "run_modes" in modes or ("lifecycle" in modes and event == "metadata")


STREAM_ID = re.compile(r"^(\d+)(?:-(\d+|\*))?$")
"""The reference's event ids: Redis stream ids (``<ms>``, ``<ms>-<seq>``, ``<ms>-*``)."""


def _ms(at: str) -> int:
    return int(datetime.fromisoformat(at).timestamp() * 1000)


def _at(ms: int) -> str:
    """The API's time text of epoch milliseconds ``ms`` (as `superstep_server.rows.now`
    would have written that instant, so the two compare as text)."""
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat()


def run_event_id(created_at: str, index: int) -> str:
    """A run's event ``index`` in the thread stream: ``<ms the run was created>-<index + 1>``
    (a sequence number of 0 is a moment, see `moment_id`)."""
    return f"{_ms(created_at)}-{index + 1}"


def moment_id(at: str) -> str:
    """A thread-stream event that marks a moment (a run's end, a state update):
    ``<ms>-0``; resuming from it sends what happened on the thread after that moment."""
    return f"{_ms(at)}-0"


@dataclass(frozen=True, slots=True)
class _Start:
    """Where a thread stream starts: the runs created at ``since`` or later (those that
    ended at or before ``ended_by``, if given, are skipped); of ``run_id``, only its events
    after ``after``; the state updates made after ``updates_after``."""

    since: str
    updates_after: str
    run_id: str | None = None
    after: int = -1
    ended_by: str | None = None


def _resume_point(server: Any, thread_id: str, last: str | None) -> _Start:
    if last in ("-", "-1"):
        return _Start("", "")
    if last:
        found = STREAM_ID.match(last)
        if found is None:
            raise ApiError(422, "Invalid last-event-id: must be a valid Redis stream ID")
        ms, seq = int(found.group(1)), found.group(2)
        if seq not in (None, "*", "0"):
            # a run's event: the thread's run created in that millisecond
            rows = server.runs.of_thread_since(thread_id, _at(ms))
            row = next((r for r in rows if _ms(str(r["created_at"])) == ms), None)
            if row is None:
                raise ApiError(
                    422, f"Last-Event-ID: {last!r} is not an event of thread {thread_id!r}"
                )
            created = str(row["created_at"])
            return _Start(created, created, str(row["run_id"]), int(seq or 0) - 1)
        # a moment: the runs still going then (or created since), the updates made since
        moment = _at(ms + 1)
        going = [
            str(r["created_at"])
            for r in server.runs.of_thread_since(thread_id, "")
            if r["status"] in ("pending", "running") or str(r["updated_at"]) >= moment
        ]
        return _Start(min([moment, *going]), moment, ended_by=moment)
    inflight = server.runs.inflight(thread_id)
    at = now()
    if inflight:
        return _Start(min(str(r["created_at"]) for r in inflight), at)
    return _Start(at, at)


def _updates_after(server: Any, thread_id: str, after: str) -> list[dict[str, Any]]:
    return list(
        server.db.execute(
            "SELECT created_at, data FROM server_thread_updates "
            "WHERE thread_id = ? AND created_at > ? ORDER BY created_at",
            (thread_id, after),
        )
    )


def _ended_by(row: Any, moment: str) -> bool:
    return row["status"] not in ("pending", "running") and str(row["updated_at"]) < moment


def _ended_at(server: Any, run_id: str) -> str:
    """When the run ended (its row's last change), or now if it is gone (rolled back)."""
    row = server.runs.row(run_id)
    return now() if row is None else str(row["updated_at"])


def _thread_frames(
    server: Any, thread_id: str, modes: set[str], start: _Start
) -> AsyncIterator[bytes]:
    async def frames() -> AsyncIterator[bytes]:
        feed = server.streams.follow_thread(thread_id)
        since, updates_after = start.since, start.updates_after
        seen: set[str] = set()
        beats = Heartbeats()
        try:
            while True:
                rows = await blocking(server.runs.of_thread_since, thread_id, since)
                row = next((r for r in rows if r["run_id"] not in seen), None)
                updates = await blocking(_updates_after, server, thread_id, updates_after)
                for update in updates:  # those made before the next run was created
                    created = str(update["created_at"])
                    if row is not None and created >= str(row["created_at"]):
                        break
                    updates_after = created
                    if _wanted(modes, "state_update"):
                        yield sse_frame("state_update", update["data"].encode(), moment_id(created))
                if row is not None:
                    run_id, created = str(row["run_id"]), str(row["created_at"])
                    seen.add(run_id)
                    since = created
                    if start.ended_by is not None and _ended_by(row, start.ended_by):
                        continue
                    after = start.after if run_id == start.run_id else -1
                    async for event in run_events(server, run_id, after):
                        if event is None:
                            yield HEARTBEAT
                        elif _wanted(modes, event.event):
                            event_id = run_event_id(created, event.id)
                            yield sse_frame(event.event, event.data, event_id)
                    if _wanted(modes, "metadata"):
                        done = serde.dumps({"status": "run_done", "run_id": run_id})
                        ended = await blocking(_ended_at, server, run_id)
                        yield sse_frame("metadata", done, moment_id(ended))
                    continue
                if not await feed.wait() and beats.due():
                    yield HEARTBEAT
        finally:
            server.streams.unfollow_thread(thread_id)

    return frames()


async def thread_stream(request: Request) -> Response:
    server = request.app.state.server
    thread_id = str(request.path_params["thread_id"])
    modes = _modes(request)
    await blocking(server.threads.get, thread_id)
    start = await blocking(_resume_point, server, thread_id, request.headers.get("last-event-id"))
    return StreamingResponse(
        _thread_frames(server, thread_id, modes, start),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store"},
    )


def state_updated(server: Any, thread_id: str) -> None:
    """After a ``POST /threads/{id}/state`` (in a worker thread): keep the thread's new
    state as a ``state_update`` event (for its followers and for a replay; those older than
    ``KEEP_UPDATES_SECONDS`` are dropped), then wake the followers in this process."""
    state = server.state.get(thread_id, None, False)
    data = serde.dumps({"state": state, "thread_id": thread_id}).decode()
    at = now()
    oldest = datetime.fromisoformat(at) - timedelta(seconds=KEEP_UPDATES_SECONDS)
    with server.db.transaction() as tx:
        tx.execute(
            "DELETE FROM server_thread_updates WHERE thread_id = ? AND created_at < ?",
            (thread_id, oldest.isoformat()),
        )
        tx.execute(
            "INSERT INTO server_thread_updates (thread_id, created_at, data) VALUES (?, ?, ?)",
            (thread_id, at, data),
        )
    server.streams.loop.call_soon_threadsafe(server.streams.touch_thread, thread_id)


def routes() -> list[Route]:
    return [Route("/threads/{thread_id}/stream", thread_stream, methods=["GET"])]
