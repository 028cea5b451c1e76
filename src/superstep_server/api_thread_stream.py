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
the runs created after it. Every event has an id (``<run id>:<n>``, ``<run id>:done``,
``state:<time of the update>``); ``Last-Event-ID`` with one of them resumes after it (that
run's later events, then what happened on the thread after it); ``-1`` or ``-`` replays
everything still kept: the thread's runs, and its state updates of the last
``KEEP_UPDATES_SECONDS`` (kept in ``server_thread_updates``, so an update made through
another server process is seen too, within the idle poll). A run executed by another
process is seen through the events that process relays (`superstep_server.executor`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from superstep_server import serde
from superstep_server.api_runs import run_events
from superstep_server.errors import ApiError
from superstep_server.http import blocking, sse_frame
from superstep_server.rows import now

__all__ = ["THREAD_STREAM_MODES", "routes", "state_updated"]

THREAD_STREAM_MODES = ("run_modes", "lifecycle", "state_update")
IDLE_SECONDS = 0.5
HEARTBEAT_EVERY = 10
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


def _resume_point(
    server: Any, thread_id: str, last: str | None
) -> tuple[str, str | None, int, str]:
    """``(created_at, run_id, after, updates_after)``: follow the runs created at
    ``created_at`` or later; of ``run_id``, only its events after ``after`` (``-2``: none, it
    was all sent); the state updates made after ``updates_after``."""
    if last in ("-", "-1"):
        return "", None, -1, ""
    if last and last.startswith("state:"):
        at = last.removeprefix("state:")
        return at, None, -1, at
    if last:
        run_id, _, index = last.rpartition(":")
        row = server.runs.row(run_id) if run_id else None
        if row is None or row["thread_id"] != thread_id:
            raise ApiError(422, f"Last-Event-ID: {last!r} is not an event of thread {thread_id!r}")
        created = str(row["created_at"])
        if index == "done":
            return created, run_id, -2, created
        if index.lstrip("-").isdigit():
            return created, run_id, int(index), created
        raise ApiError(422, f"Last-Event-ID: {last!r} is not an event id of this server")
    inflight = server.runs.inflight(thread_id)
    at = now()
    if inflight:
        return min(str(r["created_at"]) for r in inflight), None, -1, at
    return at, None, -1, at


def _updates_after(server: Any, thread_id: str, after: str) -> list[dict[str, Any]]:
    return list(
        server.db.execute(
            "SELECT created_at, data FROM server_thread_updates "
            "WHERE thread_id = ? AND created_at > ? ORDER BY created_at",
            (thread_id, after),
        )
    )


def _thread_frames(
    server: Any, thread_id: str, modes: set[str], start: tuple[str, str | None, int, str]
) -> AsyncIterator[bytes]:
    async def frames() -> AsyncIterator[bytes]:
        feed = server.streams.follow_thread(thread_id)
        since, first_run, first_after, updates_after = start
        seen: set[str] = set()
        idle = 0
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
                        yield sse_frame("state_update", update["data"].encode(), f"state:{created}")
                if row is not None:
                    run_id = str(row["run_id"])
                    seen.add(run_id)
                    since = str(row["created_at"])
                    after = first_after if run_id == first_run else -1
                    if after == -2:
                        continue
                    async for event in run_events(server, run_id, after):
                        if event is None:
                            yield b": heartbeat\r\n\r\n"
                        elif _wanted(modes, event.event):
                            yield sse_frame(event.event, event.data, f"{run_id}:{event.id}")
                    if _wanted(modes, "metadata"):
                        done = serde.dumps({"status": "run_done", "run_id": run_id})
                        yield sse_frame("metadata", done, f"{run_id}:done")
                    continue
                changed = feed.changed
                try:
                    await asyncio.wait_for(asyncio.shield(changed.wait()), IDLE_SECONDS)
                except TimeoutError:
                    idle += 1
                    if idle % HEARTBEAT_EVERY == 0:
                        yield b": heartbeat\r\n\r\n"
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
