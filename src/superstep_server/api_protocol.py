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
- ``state.get`` (``keys``): ``{"values", "checkpoint": {"id", "ns"}}`` of the thread;
  ``state.listCheckpoints`` (``limit``, ``before``): its checkpoints newest first;
  ``state.fork`` (``checkpoint_id``, ``input``, ``config``): a run from that checkpoint,
  ``{"run_id", "thread_id"}``. State commands serve the root graph's namespace (``[]``).
- The others (``subscription.*``, ``agent.getTree``, ``input.inject``) answer
  ``not_supported`` (the SDK's HTTP transport does not send the subscription ones; its
  streams are the event streams).

Event streams (body ``{"channels", "namespaces", "depth", "since"}``): the thread's runs in
the order they were created, each as protocol events ``{"type": "event", "method",
"params": {"namespace", "timestamp", "data"}, "seq", "event_id"}``: ``lifecycle`` at the
root (``running`` when a run starts; ``completed``, ``failed`` with its ``error``, or
``interrupted`` when it stopped at an interrupt; each with the run's ``graph_name``) and of
each subgraph (``started``, ``completed``: `superstep_server.protocol_namespaces`),
``input.requested`` (``{"interrupt_id", "value"}`` per interrupt, once per id; channel
``input``), and ``values``, ``updates``, ``custom``,
``tasks``, ``checkpoints``, ``tools`` (the graph's own ``tools`` mode: ``tool-started``,
``tool-finished``, ``tool-error`` by tool call id) with the run's chunks as ``data``, and
``messages`` (a chat model's v3 protocol events: ``message-start``, ``content-block-*``,
``message-finish``; a message a node returned whole replayed as such events; each naming
its ``message_id``), of the root graph (namespace ``[]``) and of its subgraphs (namespace
``["<node>:<task id>", ...]``), filtered by ``namespaces`` and ``depth`` as the reference
filters them. The stream stays open,
following the thread's next runs, until the client leaves. ``seq`` is ``(ordinal of the
run on the thread) * 2**20 + (its event's number)``: stable across connections, so
``since`` resumes after any seq; without it, a stream starts at the thread's latest run
(the SDK opens such a stream right after a ``run.start`` answered, and a short run may have
ended already), or with the next run on a thread that has none.
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

from superstep_server.api_runs import _start, _wait_for_end, run_events
from superstep_server.errors import ApiError
from superstep_server.http import blocking, json_body, json_response, sse_frame
from superstep_server.protocol_namespaces import Namespaces, namespace_matches, parse_filter
from superstep_server.streams import HEARTBEAT, Heartbeats

__all__ = ["routes"]

Scope = tuple[list[list[str]] | None, int | None]  # a stream's (namespaces, depth) filter
RUN_SHIFT = 20  # a run's events are numbered below 2**20 within its ordinal's seq range
RUN_MODES = ["values", "updates", "custom", "tasks", "checkpoints", "tools"]
CHANNELS = (*RUN_MODES, "messages", "lifecycle", "input")


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
            return _success(command_id, await blocking(_state_get, server, thread_id, params))
        if method == "state.listCheckpoints":
            found = await blocking(_checkpoints, server, thread_id, params)
            return _success(command_id, {"checkpoints": found})
        if method == "state.fork":
            return await _fork(request, server, thread_id, command_id, params)
    except ApiError as e:
        missing = e.status == 404 and method == "state.fork"
        code = "no_such_checkpoint" if missing else "invalid_argument"
        return _error(command_id, code, str(e.detail))
    return _error(
        command_id,
        "not_supported" if "." in method else "unknown_command",
        f"{method!r} is not served here (run.start, input.respond, state.get, "
        f"state.listCheckpoints and state.fork are)",
    )


def _root_only(params: dict[str, Any]) -> None:
    if params.get("namespace") not in (None, []):
        raise ApiError(422, "namespace: only the root graph's ([]) is served")


def _state_get(server: Any, thread_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """``{"values", "checkpoint": {"id", "ns"}}``; only the ``keys`` asked for, if any."""
    _root_only(params)
    state = server.state.get(thread_id, None, False)
    values = state["values"] or {}
    keys = params.get("keys")
    if isinstance(keys, list):
        values = {k: v for k, v in values.items() if k in keys}
    result: dict[str, Any] = {"values": values}
    checkpoint = state.get("checkpoint") or {}
    if checkpoint.get("checkpoint_id"):
        result["checkpoint"] = {
            "id": checkpoint["checkpoint_id"],
            "ns": checkpoint.get("checkpoint_ns", ""),
        }
    return result


def _checkpoints(server: Any, thread_id: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The thread's checkpoints, newest first (``limit``, default 10; ``before`` a
    checkpoint id), as ``{"id", "timestamp", "step", "metadata"}`` (no ``node_name``: a
    checkpoint's metadata does not name the node that wrote it)."""
    _root_only(params)
    body: dict[str, Any] = {"limit": params.get("limit", 10)}
    if isinstance(params.get("before"), str):
        body["before"] = params["before"]
    found = []
    for state in server.state.history(thread_id, body, values=False):
        metadata = state.get("metadata") or {}
        found.append(
            {
                "id": state["checkpoint"]["checkpoint_id"],
                "timestamp": state.get("created_at"),
                "step": metadata.get("step", -1),
                "metadata": metadata,
            }
        )
    return found


async def _fork(
    request: Request, server: Any, thread_id: str, command_id: int, params: dict[str, Any]
) -> Response:
    """A run on the thread from ``checkpoint_id`` (with ``input`` and ``config``), as a
    run created with that ``checkpoint_id``; result ``{"run_id", "thread_id"}``."""
    if not isinstance(params.get("checkpoint_id"), str):
        return _error(command_id, "invalid_argument", "checkpoint_id: the checkpoint to fork")
    state = await blocking(server.state.get, thread_id, {"checkpoint_id": params["checkpoint_id"]})
    thread = await blocking(server.threads.get, thread_id)
    body: dict[str, Any] = {
        "assistant_id": (thread.get("metadata") or {}).get("assistant_id"),
        "checkpoint_id": state["checkpoint"]["checkpoint_id"],
        "input": params.get("input"),
    }
    if "config" in params:
        body["config"] = params["config"]
    answer = await _queue(request, server, thread_id, command_id, body)
    result = orjson.loads(answer.body)
    result["result"]["thread_id"] = thread_id
    return json_response(result)


async def _queue(
    request: Request, server: Any, thread_id: str, command_id: int, body: dict[str, Any]
) -> Response:
    """Queue a run on the thread from the command; its events come after the returned seq."""
    body = {
        **body,
        "stream_mode": RUN_MODES,
        "stream_subgraphs": True,
        "if_not_exists": "create",
        "multitask_strategy": "enqueue",
    }
    body["stream_mode"] = [*RUN_MODES, "messages-tuple"]
    created = await _start(request, body, stateless=False, extra={"stream_protocol": "v3"})
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


RUN_END_WAIT_SECONDS = 30.0
"""How long an answer waits for the thread's runs to end before its interrupt ids are checked."""


async def _unanswered(
    server: Any, thread_id: str, resume: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The thread's row and the interrupt ids of ``resume`` it has no pending interrupt for.
    A run's ``input.requested`` event streams before the run ends, and the thread records
    its interrupts only when the run ends: an answer that comes in between waits (at most
    `RUN_END_WAIT_SECONDS`) for the thread's in-flight runs to end, then is checked."""

    async def read() -> tuple[dict[str, Any], list[str]]:
        thread = await blocking(server.threads.get, thread_id)
        waits = (thread.get("interrupts") or {}).values()
        return thread, sorted(set(resume) - {i.get("id") for asked in waits for i in asked})

    thread, missing = await read()
    if not missing:
        return thread, missing
    inflight = await blocking(server.runs.inflight, thread_id)
    if not inflight:
        return thread, missing
    ends = [_wait_for_end(server, run["run_id"], missing_ok=True) for run in inflight]
    try:
        await asyncio.wait_for(asyncio.gather(*ends), RUN_END_WAIT_SECONDS)
    except TimeoutError:
        return thread, missing
    return await read()


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
    thread, unknown = await _unanswered(server, thread_id, resume)
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


def _event(method: str, namespace: list[str], data: Any, seq: int, run_id: str) -> bytes:
    event = {
        "type": "event",
        "method": method,
        "params": {"namespace": namespace, "timestamp": int(time.time() * 1000), "data": data},
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


def _message_event(pair: Any, message_ids: dict[str, str]) -> Any:
    """A message event as the SDK routes it: each event of one model call names its
    message (``message_id``; langchain-core names it, as ``id``, on ``message-start``
    only)."""
    event, metadata = pair
    call = str((metadata or {}).get("run_id") or "")
    if event.get("event") == "message-start" and (event.get("id") or event.get("message_id")):
        message_ids[call] = str(event.get("id") or event.get("message_id"))
    if call in message_ids and "message_id" not in event:
        event = {**event, "message_id": message_ids[call]}
    return event


def _first_run(server: Any, thread_id: str, since: int | None) -> tuple[int, int]:
    """Where a stream starts: (run ordinal, events of it already sent)."""
    runs = _runs(server, thread_id)
    if since is not None:
        ordinal, done = since >> RUN_SHIFT, since & ((1 << RUN_SHIFT) - 1)
        return ordinal, done
    # the session's latest run.start: the SDK opens a stream without `since` only for its
    # lifecycle watcher, right after a run.start answered (the run may have ended already)
    return (len(runs) - 1, 0) if runs else (0, 0)


def _frames(
    server: Any, thread_id: str, channels: set[str], scope: Scope, start: tuple[int, int]
) -> AsyncIterator[bytes]:
    async def frames() -> AsyncIterator[bytes]:
        feed = server.streams.follow_thread(thread_id)
        ordinal, done = start
        beats = Heartbeats()
        try:
            while True:
                runs = await blocking(_runs, server, thread_id)
                if ordinal >= len(runs):
                    if not await feed.wait() and beats.due():
                        yield HEARTBEAT
                    continue
                row = runs[ordinal]
                async for frame in _run_frames(server, row, ordinal, done, channels, scope):
                    yield frame
                ordinal, done = ordinal + 1, 0
        finally:
            server.streams.unfollow_thread(thread_id)

    return frames()


async def _run_frames(
    server: Any, row: dict[str, Any], ordinal: int, done: int, channels: set[str], scope: Scope
) -> AsyncIterator[bytes]:
    """One run's protocol events, numbered from 1 within the run; those numbered ``done``
    or below are skipped (already sent before a reconnect). Every event counts, those the
    stream's channels and namespaces filter out too, so numbers are stable across streams."""
    run_id = str(row["run_id"])
    number = 0
    interrupted = False
    failed: str | None = None
    asked: set[str] = set()  # interrupt ids requested (a subgraph's shows at the root too)
    message_ids: dict[str, str] = {}  # a chat model call's run id -> its message's id
    subgraphs = Namespaces()
    graph_name = await blocking(_graph_name, server, row)

    def emit(method: str, namespace: list[str], data: Any) -> bytes | None:
        nonlocal number
        number += 1
        channel = "input" if method == "input.requested" else method
        if number <= done or channel not in channels:
            return None
        if not namespace_matches(namespace, *scope):
            return None
        return _event(method, namespace, data, (ordinal << RUN_SHIFT) + number, run_id)

    def lifecycle(events: list[tuple[list[str], dict[str, Any]]]) -> list[bytes | None]:
        return [emit("lifecycle", ns, data) for ns, data in events]

    async for event in run_events(server, run_id, -1):
        if event is None:
            yield HEARTBEAT
            continue
        mode, *segments = event.event.split("|")
        data = orjson.loads(event.data)
        frames: list[bytes | None] = []
        if mode == "metadata":
            frames.append(emit("lifecycle", [], {"event": "running", "graph_name": graph_name}))
        elif mode == "error":
            failed = f"{data.get('error')}: {data.get('message')}"
        elif mode in RUN_MODES or mode == "messages":
            frames += lifecycle(subgraphs.entered(segments))
            payload = _message_event(data, message_ids) if mode == "messages" else data
            frames.append(emit(mode, segments, payload))
            if mode == "updates":
                for request in _interrupts_of(data):
                    interrupted = True
                    if request["interrupt_id"] not in asked:
                        asked.add(request["interrupt_id"])
                        frames.append(emit("input.requested", segments, request))
                for node in data if isinstance(data, dict) else ():
                    frames += lifecycle(subgraphs.node_done(segments, str(node)))
        for frame in frames:
            if frame is not None:
                yield frame
    for frame in lifecycle(subgraphs.ended()):
        if frame is not None:
            yield frame
    ended = await blocking(server.runs.row, run_id)
    status = None if ended is None else ended["status"]
    if failed is None and status in (None, "interrupted"):
        failed = "the run was cancelled"
    if failed is not None:
        end = emit("lifecycle", [], {"event": "failed", "graph_name": graph_name, "error": failed})
    else:
        outcome = "interrupted" if interrupted else "completed"
        end = emit("lifecycle", [], {"event": outcome, "graph_name": graph_name})
    if end is not None:
        yield end


def _graph_name(server: Any, row: dict[str, Any]) -> str:
    """The root's ``graph_name`` in lifecycle events: the run's graph id (the reference's)."""
    try:
        return str(server.assistants.get(row["assistant_id"])["graph_id"])
    except ApiError:  # its assistant deleted since
        return str(row["assistant_id"])


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
    try:
        scope = parse_filter(body)
    except ValueError as e:
        raise ApiError(422, str(e)) from e
    await blocking(server.threads.get, thread_id)  # 404 for a thread not created yet
    start = await blocking(_first_run, server, thread_id, since)
    return StreamingResponse(
        _frames(server, thread_id, set(channels), scope, start),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store"},
    )


def routes() -> list[Route]:
    return [
        Route("/threads/{thread_id}/commands", commands, methods=["POST"]),
        Route("/threads/{thread_id}/stream/events", stream_events, methods=["POST"]),
    ]
