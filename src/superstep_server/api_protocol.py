"""The SDK's v3 thread-centric streaming session (``client.threads.stream(...)``): commands
at ``POST /threads/{thread_id}/commands`` and filtered event streams at
``POST /threads/{thread_id}/stream/events``, in the shapes of ``langchain_protocol``.

Commands (``{"id", "method", "params"}``; answered ``{"type": "success", "id", "result"}``
or ``{"type": "error", "id", "error", "message"}``, both with status 200, as the SDK reads
them):

- ``run.start`` (``assistant_id``, ``input``, ``config``, ``metadata``): a run on the
  thread (created if missing; queued behind a run in progress, ``enqueue``); result
  ``{"run_id"}``, with ``meta.applied_through_seq``: the seq after which its events come
  (the SDK opens its streams ``since`` it).
- ``input.respond`` (``interrupt_id`` and ``response``, or ``responses``: a list of them):
  a run that resumes the thread's interrupts by id (``Command(resume={id: response})``),
  with the assistant of the thread's last run.
- ``state.get``: ``{"values", "checkpoint"}`` of the thread.
- The others (``subscription.*``, ``agent.getTree``, ``input.inject``,
  ``state.listCheckpoints``, ``state.fork``) answer ``not_supported`` (the SDK's HTTP
  transport does not send the subscription ones; its streams are the event streams).

Event streams (body ``{"channels", "namespaces", "depth", "since"}``): the thread's runs in
the order they were created, each as protocol events ``{"type": "event", "method",
"params": {"namespace", "timestamp", "data"}, "seq", "event_id"}``: ``lifecycle``
(``running`` when a run starts; ``completed``, ``failed`` with its ``error``, or
``interrupted`` when it stopped at an interrupt), ``input.requested`` (``{"interrupt_id",
"value"}`` per interrupt; channel ``input``), and ``values``, ``updates``, ``custom``,
``tasks``, ``checkpoints`` with the run's chunks as ``data``; only the root graph's
(namespace ``[]``). The stream stays open, following the thread's next runs, until the
client leaves. ``seq`` is ``(ordinal of the run on the thread) * 2**20 + (its event's
number)``: stable across connections, so ``since`` resumes after any seq; without it, a
stream starts at the thread's oldest run in progress, else at its last run (a session's
first stream may open after its short run already ended), else with the next run.
``messages`` and ``tools`` (the v3 content-block formats) are not sent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from superstep_server.api_runs import _start, run_events
from superstep_server.errors import ApiError
from superstep_server.http import blocking, json_body, json_response, sse_frame

__all__ = ["routes"]

RUN_SHIFT = 20  # a run's events are numbered below 2**20 within its ordinal's seq range
RUN_MODES = ["values", "updates", "custom", "tasks", "checkpoints"]
CHANNELS = ("values", "updates", "custom", "tasks", "checkpoints", "lifecycle", "input")
IDLE_SECONDS = 0.5
HEARTBEAT_EVERY = 10


def _success(command_id: Any, result: Any, meta: dict[str, Any] | None = None) -> Response:
    body: dict[str, Any] = {"type": "success", "id": command_id, "result": result}
    if meta:
        body["meta"] = meta
    return json_response(body)


def _error(command_id: Any, code: str, message: str) -> Response:
    return json_response({"type": "error", "id": command_id, "error": code, "message": message})


def _runs(server: Any, thread_id: str) -> list[dict[str, Any]]:
    """The thread's runs, oldest first (their positions are their ordinals)."""
    return list(server.runs.of_thread_since(thread_id, ""))


async def commands(request: Request) -> Response:
    server = request.app.state.server
    thread_id = str(request.path_params["thread_id"])
    body = await json_body(request)
    command_id, method, params = body.get("id"), body.get("method"), body.get("params") or {}
    if not isinstance(command_id, int) or not isinstance(method, str):
        raise ApiError(422, "a command is {'id': <integer>, 'method': <name>, 'params': {...}}")
    if not isinstance(params, dict):
        return _error(command_id, "invalid_argument", "params: must be an object")
    try:
        if method == "run.start":
            return await _run_start(request, server, thread_id, command_id, params)
        if method == "input.respond":
            return await _respond(request, server, thread_id, command_id, params)
        if method == "state.get":
            state = await blocking(server.state.get, thread_id, None, False)
            result = {"values": state["values"] or {}, "checkpoint": state["checkpoint"]}
            return _success(command_id, result)
    except ApiError as e:
        code = "no_such_run" if e.status == 404 else "invalid_argument"
        return _error(command_id, code, str(e.detail))
    return _error(
        command_id,
        "not_supported" if "." in method else "unknown_command",
        f"{method!r} is not served here (run.start, input.respond and state.get are)",
    )


async def _queue(
    request: Request, server: Any, thread_id: str, command_id: int, body: dict[str, Any]
) -> Response:
    """Queue a run on the thread from the command; its events come after the returned seq."""
    body = {
        **body,
        "stream_mode": RUN_MODES,
        "if_not_exists": "create",
        "multitask_strategy": "enqueue",
    }
    created = await _start(request, body, stateless=False)
    run_id = created["run"]["run_id"]
    ordinal = next(
        i for i, r in enumerate(await blocking(_runs, server, thread_id)) if r["run_id"] == run_id
    )
    return _success(command_id, {"run_id": run_id}, {"applied_through_seq": ordinal << RUN_SHIFT})


async def _run_start(
    request: Request, server: Any, thread_id: str, command_id: int, params: dict[str, Any]
) -> Response:
    if not isinstance(params.get("assistant_id"), str):
        return _error(command_id, "invalid_argument", "assistant_id: the assistant to run")
    keys = ("assistant_id", "input", "config", "metadata")
    body: dict[str, Any] = {k: params[k] for k in keys if k in params}
    return await _queue(request, server, thread_id, command_id, body)


async def _respond(
    request: Request, server: Any, thread_id: str, command_id: int, params: dict[str, Any]
) -> Response:
    entries = params.get("responses") if "responses" in params else [params]
    if not isinstance(entries, list) or not entries:
        return _error(command_id, "invalid_argument", "responses: a non-empty list")
    resume: dict[str, Any] = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("interrupt_id"), str):
            return _error(command_id, "invalid_argument", "interrupt_id: the interrupt answered")
        resume[entry["interrupt_id"]] = entry.get("response")
    thread = await blocking(server.threads.get, thread_id)
    pending = {i.get("id") for waits in (thread.get("interrupts") or {}).values() for i in waits}
    unknown = sorted(set(resume) - pending)
    if unknown:
        return _error(
            command_id,
            "no_such_interrupt",
            f"thread {thread_id!r} has no pending interrupt {unknown[0]!r}",
        )
    assistant = (thread.get("metadata") or {}).get("assistant_id")
    command: dict[str, Any] = {"resume": resume}
    for key in ("update", "goto"):
        if params.get(key) is not None:
            command[key] = params[key]
    body: dict[str, Any] = {"assistant_id": assistant, "command": command}
    for key in ("config", "metadata"):
        if key in params:
            body[key] = params[key]
    return await _queue(request, server, thread_id, command_id, body)


def _event(method: str, data: Any, seq: int, run_id: str) -> bytes:
    event = {
        "type": "event",
        "method": method,
        "params": {"namespace": [], "timestamp": int(time.time() * 1000), "data": data},
        "seq": seq,
        "event_id": f"{run_id}:{seq & ((1 << RUN_SHIFT) - 1)}",
    }
    return sse_frame(method, orjson.dumps(event, default=str), seq)


def _interrupts_of(update: Any) -> list[dict[str, Any]]:
    if not isinstance(update, dict):
        return []
    found = update.get("__interrupt__") or []
    return [
        {"interrupt_id": i.get("id"), "value": i.get("value")}
        for i in found
        if isinstance(i, dict) and i.get("id")
    ]


def _first_run(server: Any, thread_id: str, since: int | None) -> tuple[int, int]:
    """Where a stream starts: (run ordinal, events of it already sent)."""
    runs = _runs(server, thread_id)
    if since is not None:
        ordinal, done = since >> RUN_SHIFT, since & ((1 << RUN_SHIFT) - 1)
        return ordinal, done
    going = [i for i, r in enumerate(runs) if r["status"] in ("pending", "running")]
    if going:
        return going[0], 0
    return (len(runs) - 1, 0) if runs else (0, 0)


def _frames(
    server: Any, thread_id: str, channels: set[str], root: bool, start: tuple[int, int]
) -> AsyncIterator[bytes]:
    async def frames() -> AsyncIterator[bytes]:
        feed = server.streams.follow_thread(thread_id)
        ordinal, done = start
        idle = 0
        try:
            while True:
                runs = await blocking(_runs, server, thread_id)
                if ordinal >= len(runs):
                    changed = feed.changed
                    try:
                        await asyncio.wait_for(asyncio.shield(changed.wait()), IDLE_SECONDS)
                    except TimeoutError:
                        idle += 1
                        if idle % HEARTBEAT_EVERY == 0:
                            yield b": heartbeat\r\n\r\n"
                    continue
                row = runs[ordinal]
                async for frame in _run_frames(server, row, ordinal, done, channels, root):
                    yield frame
                ordinal, done = ordinal + 1, 0
        finally:
            server.streams.unfollow_thread(thread_id)

    return frames()


async def _run_frames(
    server: Any, row: dict[str, Any], ordinal: int, done: int, channels: set[str], root: bool
) -> AsyncIterator[bytes]:
    """One run's protocol events, numbered from 1 within the run; those numbered ``done``
    or below are skipped (already sent before a reconnect)."""
    run_id = str(row["run_id"])
    number = 0
    interrupted = False
    failed: str | None = None

    def emit(method: str, data: Any) -> bytes | None:
        nonlocal number
        number += 1
        channel = "input" if method == "input.requested" else method
        if number <= done or channel not in channels or (not root and channel != "lifecycle"):
            return None
        return _event(method, data, (ordinal << RUN_SHIFT) + number, run_id)

    async for event in run_events(server, run_id, -1):
        if event is None:
            yield b": heartbeat\r\n\r\n"
            continue
        if "|" in event.event:
            continue  # a subgraph's: only the root graph's events are sent
        data = orjson.loads(event.data)
        frames: list[bytes | None] = []
        if event.event == "metadata":
            frames.append(emit("lifecycle", {"event": "running"}))
        elif event.event == "error":
            failed = f"{data.get('error')}: {data.get('message')}"
        elif event.event in RUN_MODES:
            frames.append(emit(event.event, data))
            if event.event == "updates":
                for asked in _interrupts_of(data):
                    interrupted = True
                    frames.append(emit("input.requested", asked))
        for frame in frames:
            if frame is not None:
                yield frame
    ended = await blocking(server.runs.row, run_id)
    status = None if ended is None else ended["status"]
    if failed is None and status in (None, "interrupted"):
        failed = "the run was cancelled"
    if failed is not None:
        end = emit("lifecycle", {"event": "failed", "error": failed})
    else:
        end = emit("lifecycle", {"event": "interrupted" if interrupted else "completed"})
    if end is not None:
        yield end


async def stream_events(request: Request) -> Response:
    server = request.app.state.server
    thread_id = str(request.path_params["thread_id"])
    body = await json_body(request)
    channels = body.get("channels")
    if not isinstance(channels, list) or not all(isinstance(c, str) for c in channels):
        raise ApiError(422, f"channels: a list of channels ({', '.join(CHANNELS)})")
    since = body.get("since")
    if since is not None and (not isinstance(since, int) or since < 0):
        raise ApiError(422, "since: the seq of the last event received (an integer)")
    namespaces = body.get("namespaces")
    root = namespaces is None or any(ns == [] for ns in namespaces if isinstance(ns, list))
    await blocking(server.threads.get, thread_id)  # 404 for a thread not created yet
    start = await blocking(_first_run, server, thread_id, since)
    return StreamingResponse(
        _frames(server, thread_id, set(channels), root, start),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store"},
    )


def routes() -> list[Route]:
    return [
        Route("/threads/{thread_id}/commands", commands, methods=["POST"]),
        Route("/threads/{thread_id}/stream/events", stream_events, methods=["POST"]),
    ]
