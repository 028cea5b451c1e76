"""Runs: background (``POST .../runs``), ``/stream`` (SSE), ``/wait``, ``/batch``, join,
join-stream, cancel, list, get and delete; on a thread or stateless (``/runs/...``: a thread
made for the run, deleted after it unless ``on_completion`` is ``keep``).

Headers as the reference sends them: ``Content-Location`` names the run, ``Location`` the
URL that rejoins it (its stream, or ``/join`` for ``/wait``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from superstep_server import serde
from superstep_server.bodies import CancelMany, check
from superstep_server.errors import ApiError
from superstep_server.http import (
    blocking,
    json_body,
    json_response,
    query_bool,
    query_int,
    sse_frame,
)
from superstep_server.ids import require_uuid, require_uuids
from superstep_server.run_requests import check_run_body, create_run_from_body
from superstep_server.streams import HEARTBEAT, IDLE_SECONDS, Heartbeats, RunEvent

__all__ = ["routes", "run_events"]


def _server(request: Request) -> Any:
    return request.app.state.server


async def _start(
    request: Request,
    body: dict[str, Any],
    stateless: bool,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    server = _server(request)
    thread_id = None if stateless else str(request.path_params["thread_id"])
    created = await blocking(create_run_from_body, server, thread_id, body, extra)
    run = created["run"]
    if server.workers.size:  # else other processes run it: followers read the database
        server.streams.open(run["run_id"])
    for run_id in created["cancelled"]:
        server.ctx.cancel_flag(run_id).set()
    server.workers.wake()
    server.streams.touch_thread(run["thread_id"])
    return created


def _locations(run: dict[str, Any], stateless: bool, tail: str) -> dict[str, str]:
    if stateless:
        return {"Content-Location": f"/runs/{run['run_id']}"}
    base = f"/threads/{run['thread_id']}/runs/{run['run_id']}"
    return {"Content-Location": base, "Location": base + tail}


async def _background(request: Request, stateless: bool) -> Response:
    body = await json_body(request)
    created = await _start(request, body, stateless)
    run = created["run"]
    return json_response(run, headers=_locations(run, stateless, ""))


async def create_run(request: Request) -> Response:
    return await _background(request, stateless=False)


async def create_stateless(request: Request) -> Response:
    return await _background(request, stateless=True)


async def batch(request: Request) -> Response:
    body = await json_body(request, allow_list=True)
    if not isinstance(body, list):
        raise ApiError(422, "request body must be a list of runs")
    # as the reference, which validates the whole list before it creates a run: a bad item
    # refuses the batch, none of the items before it is queued
    for i, item in enumerate(body):
        if not isinstance(item, dict):
            raise ApiError(422, f"[{i}]: must be a JSON object")
        # the item's own status and words, as the reference answers a single run
        await blocking(check_run_body, _server(request), item, stateless=True)
    runs = [(await _start(request, item, stateless=True))["run"] for item in body]
    return json_response(runs)


async def _ended(server: Any, run_id: str) -> tuple[bool, Any]:
    """Whether the run ended (by the database), and its output if so."""
    row = await blocking(server.runs.row, run_id)
    if row is None:
        return True, None
    if row["status"] in ("pending", "running"):
        return False, None
    return True, serde.loads(row["output"])


async def _wait_for_end(server: Any, run_id: str, *, missing_ok: bool = False) -> Any:
    """The run's output once it ended: followed in memory when this process runs it, read
    from the database when another process does (polled, or checked while idle). A run
    deleted meanwhile (cancelled with ``rollback``) is a 404, or ``None`` if
    ``missing_ok``."""
    stream = server.streams.get(run_id)
    if stream is not None:
        async for event in stream.follow(idle_seconds=IDLE_SECONDS):
            if event is None:
                ended, output = await _ended(server, run_id)
                if ended and not stream.done:
                    return output
        return stream.output
    while True:
        row = await blocking(server.runs.row, run_id)
        if row is None:
            if missing_ok:
                return None
            raise ApiError(404, f"Run {run_id!r} not found")
        if row["status"] not in ("pending", "running"):
            return serde.loads(row["output"])
        await asyncio.sleep(0.05)


async def _wait(request: Request, stateless: bool) -> Response:
    body = await json_body(request)
    server = _server(request)
    created = await _start(request, body, stateless)
    run = created["run"]
    output = await _wait_for_end(server, run["run_id"])
    return json_response(output, headers=_locations(run, stateless, "/join"))


async def wait_run(request: Request) -> Response:
    return await _wait(request, stateless=False)


async def wait_stateless(request: Request) -> Response:
    return await _wait(request, stateless=True)


def run_events(server: Any, run_id: str, after: int) -> AsyncIterator[RunEvent | None]:
    """The run's events after event ``after`` until it ended: from this process's memory
    while this process runs it, else from the events the running process keeps in the
    database (`superstep_server.executor`). ``None`` now and then while nothing happens
    (the moment for a heartbeat)."""

    async def events() -> AsyncIterator[RunEvent | None]:
        stream = server.streams.get(run_id)
        last = after
        if stream is not None:
            beats = Heartbeats()
            async for event in stream.follow(after, idle_seconds=IDLE_SECONDS):
                if event is not None:
                    last = event.id
                    yield event
                    continue
                if beats.due():
                    yield None
                if await _run_elsewhere(server, run_id):
                    break  # read what its process relays
            else:
                return
        async for relayed in _relayed(server, run_id, last):
            yield relayed

    return events()


def _event_id_base(run: dict[str, Any]) -> str:
    """The first half of the run's event ids: its creation time in Unix milliseconds.

    The reference numbers a resumable stream's events as Redis stream ids do,
    ``<ms>-<seq>`` (langgraph-api's stream manager); clients only send them back as
    ``Last-Event-ID``. Here the ``<ms>`` is the run's creation and ``<seq>`` the event's
    number in the run (the same in this process's memory and in the relayed rows), so the
    ids rise through the run and name one event whichever process answers."""
    return str(int(datetime.fromisoformat(run["created_at"]).timestamp() * 1000))


def _sse(
    server: Any, run_id: str, *, after: int, id_base: str | None, cancel_on_disconnect: bool
) -> AsyncIterator[bytes]:
    """The run's events (`run_events`) as SSE frames, with ids ``<id_base>-<seq>`` when
    ``id_base`` is given (`_event_id_base`); heartbeat comments while idle."""

    async def frames() -> AsyncIterator[bytes]:
        finished = False
        try:
            async for event in run_events(server, run_id, after):
                if event is None:
                    yield HEARTBEAT
                else:
                    event_id = None if id_base is None else f"{id_base}-{event.id}"
                    yield sse_frame(event.event, event.data, event_id)
            finished = True
        finally:
            if not finished and cancel_on_disconnect:
                await blocking(server.runs.request_cancel, [run_id], "interrupt")
                server.ctx.cancel_flag(run_id).set()

    return frames()


async def _run_elsewhere(server: Any, run_id: str) -> bool:
    """Whether another process runs (or ran) the run this process streams from memory."""
    row = await blocking(server.runs.row, run_id)
    if row is not None:
        worker = row.get("worker") or ""
        if row["status"] == "running":
            return not worker.startswith(server.workers.name + "/")
        if row["status"] == "pending":
            return False
    # ended, or deleted (cancelled with rollback)
    stream = server.streams.get(run_id)
    if stream is not None and not stream.done:
        # ended: by this process's worker if its stream closes now (the close follows the
        # run's end in the database by a moment), else by another process
        await asyncio.sleep(0.2)
    return stream is None or not stream.done


async def _relayed(server: Any, run_id: str, after: int) -> AsyncIterator[RunEvent | None]:
    """The events kept in the database, until the run ended and all are sent."""
    idle = 0
    while True:
        rows = await blocking(server.runs.events_after, run_id, after)
        for row in rows:
            after = int(row["seq"])
            yield RunEvent(after, row["event"], row["data"].encode())
        if rows:
            idle = 0
            continue
        ended, _output = await _ended(server, run_id)
        if ended:
            for row in await blocking(server.runs.events_after, run_id, after):
                yield RunEvent(int(row["seq"]), row["event"], row["data"].encode())
            return
        idle += 1
        if idle % 100 == 0:
            yield None
        await asyncio.sleep(0.05)


def _streaming(frames: AsyncIterator[bytes], headers: dict[str, str]) -> StreamingResponse:
    return StreamingResponse(
        frames,
        media_type="text/event-stream",
        headers={**headers, "Cache-Control": "no-store"},
    )


async def _stream(request: Request, stateless: bool) -> Response:
    body = await json_body(request)
    server = _server(request)
    created = await _start(request, body, stateless)
    run = created["run"]
    frames = _sse(
        server,
        run["run_id"],
        after=-1,
        id_base=_event_id_base(run) if run["kwargs"].get("resumable") else None,
        cancel_on_disconnect=created["on_disconnect"] == "cancel",
    )
    return _streaming(frames, _locations(run, stateless, "/stream"))


async def stream_run(request: Request) -> Response:
    return await _stream(request, stateless=False)


async def stream_stateless(request: Request) -> Response:
    return await _stream(request, stateless=True)


_EVENT_ID = re.compile(r"(?:\d+-)?(\d+)")
"""An event id as sent (``<ms>-<seq>``, `_event_id_base`) or as this server sent it
before (``<seq>``); ``-1`` asks for every event."""


def _last_event_id(request: Request) -> int:
    """The ``seq`` of the event named by the ``Last-Event-ID`` header; -1 without one."""
    raw = request.headers.get("last-event-id")
    if raw is None or raw == "-1":
        return -1
    match = _EVENT_ID.fullmatch(raw.strip())
    if match is None:
        raise ApiError(422, f"Last-Event-ID: {raw!r} is not an event id of this server")
    return int(match.group(1))


async def join_stream(request: Request) -> Response:
    server = _server(request)
    thread_id, run_id = request.path_params["thread_id"], request.path_params["run_id"]
    run = await blocking(server.runs.get, thread_id, run_id)
    after = _last_event_id(request)
    resumable = bool(run["kwargs"].get("resumable"))
    headers = {"Content-Location": f"/threads/{thread_id}/runs/{run['run_id']}"}
    if not resumable and run["status"] not in ("pending", "running"):
        # as the reference: only a resumable run's events are kept for a later reader; a
        # finished run that was not resumable has nothing left to send
        return _streaming(_no_frames(), headers)
    frames = _sse(
        server,
        run_id,
        after=after,
        # as the reference: event ids only where a reader can resume from them
        id_base=_event_id_base(run) if resumable else None,
        cancel_on_disconnect=query_bool(request, "cancel_on_disconnect"),
    )
    return _streaming(frames, headers)


async def _no_frames() -> AsyncIterator[bytes]:
    return
    yield b""  # makes this an async generator


async def join(request: Request) -> Response:
    server = _server(request)
    thread_id, run_id = request.path_params["thread_id"], request.path_params["run_id"]
    await blocking(server.runs.get, thread_id, run_id)
    return json_response(await _wait_for_end(server, run_id))


async def list_runs(request: Request) -> Response:
    server = _server(request)
    thread_id = request.path_params["thread_id"]
    await blocking(server.threads.get, thread_id)
    found = await blocking(
        server.runs.search,
        thread_id,
        limit=query_int(request, "limit", 10),
        offset=query_int(request, "offset", 0),
        status=request.query_params.get("status"),
    )
    return json_response(found)


async def get_run(request: Request) -> Response:
    server = _server(request)
    thread_id, run_id = request.path_params["thread_id"], request.path_params["run_id"]
    return json_response(await blocking(server.runs.get, thread_id, run_id))


async def delete_run(request: Request) -> Response:
    server = _server(request)
    thread_id, run_id = request.path_params["thread_id"], request.path_params["run_id"]
    await blocking(server.runs.delete, thread_id, run_id)
    return Response(status_code=204)


def _action(request: Request) -> str:
    action = request.query_params.get("action", "interrupt")
    if action not in ("interrupt", "rollback"):
        raise ApiError(422, f"action: {action!r} is not one of interrupt, rollback")
    return action


async def cancel(request: Request) -> Response:
    """Cancel one run. As the reference: a run that already ended is left as it is (the
    answer is the same, so a cancel racing the run's end is not an error); with ``wait`` the
    answer is the run's result once it stopped (its output, as ``/join`` gives it), else
    202 at once."""
    server = _server(request)
    thread_id, run_id = request.path_params["thread_id"], request.path_params["run_id"]
    action = _action(request)
    run = await blocking(server.runs.get, thread_id, run_id)
    if run["status"] in ("pending", "running"):
        await blocking(server.runs.request_cancel, [run_id], action)
        server.ctx.cancel_flag(run_id).set()
    if not query_bool(request, "wait"):
        return Response(status_code=202)
    output = await _wait_for_end(server, run_id, missing_ok=True)
    return json_response(output, headers=_locations(run, False, "/join"))


async def cancel_many(request: Request) -> Response:
    server = _server(request)
    body = check(CancelMany, await json_body(request))
    action = _action(request)
    status = body.get("status")
    if status is not None and status not in ("pending", "running", "all"):
        raise ApiError(422, f"status: {status!r} is not one of pending, running, all")
    if body.get("thread_id"):
        require_uuid(body["thread_id"], "thread")
    require_uuids(body.get("run_ids") or [], "run")
    run_ids = [str(r) for r in body.get("run_ids") or []]
    if body.get("thread_id"):
        rows = await blocking(server.runs.inflight, str(body["thread_id"]))
        run_ids += [r["run_id"] for r in rows if status in (None, "all", r["status"])]
    elif status is not None:
        rows = await blocking(
            server.db.execute,
            "SELECT run_id, status FROM server_runs WHERE status IN ('pending', 'running')",
        )
        run_ids += [r["run_id"] for r in rows if status in ("all", r["status"])]
    if not run_ids:
        raise ApiError(422, "give run_ids, thread_id or status: which runs to cancel")
    await blocking(server.runs.request_cancel, run_ids, action)
    for run_id in run_ids:
        server.ctx.cancel_flag(run_id).set()
    return Response(status_code=204)


def routes() -> list[Route]:
    base = "/threads/{thread_id}/runs"
    run = base + "/{run_id}"
    return [
        Route("/runs", create_stateless, methods=["POST"]),
        Route("/runs/stream", stream_stateless, methods=["POST"]),
        Route("/runs/wait", wait_stateless, methods=["POST"]),
        Route("/runs/batch", batch, methods=["POST"]),
        Route("/runs/cancel", cancel_many, methods=["POST"]),
        Route(base, create_run, methods=["POST"]),
        Route(base, list_runs, methods=["GET"]),
        Route(base + "/stream", stream_run, methods=["POST"]),
        Route(base + "/wait", wait_run, methods=["POST"]),
        Route(run, get_run, methods=["GET"]),
        Route(run, delete_run, methods=["DELETE"]),
        Route(run + "/join", join, methods=["GET"]),
        Route(run + "/stream", join_stream, methods=["GET"]),
        Route(run + "/cancel", cancel, methods=["POST"]),
    ]
