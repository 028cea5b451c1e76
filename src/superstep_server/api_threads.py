"""``/threads``: routes over `Threads` and the state views (`StateViews`)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from superstep_server.api_thread_stream import state_updated
from superstep_server.bodies import (
    History,
    Prune,
    StateAt,
    StateUpdate,
    ThreadCreate,
    ThreadPatch,
    ThreadSearch,
    check,
)
from superstep_server.errors import ApiError
from superstep_server.http import blocking, json_body, json_response, query_bool, query_int
from superstep_server.ids import is_uuid, require_uuid, require_uuids

__all__ = ["routes"]


def _server(request: Request) -> Any:
    return request.app.state.server


def _thread_id(request: Request) -> str:
    return str(request.path_params["thread_id"])


def _create(server: Any, body: dict[str, Any]) -> dict[str, Any]:
    supersteps = body.get("supersteps")
    if supersteps and body.get("thread_id") and server.threads.row(str(body["thread_id"])):
        raise ApiError(
            409, f"Thread {body['thread_id']!r} already exists: supersteps seed new threads only"
        )
    thread: dict[str, Any] = server.threads.create(body)
    if not supersteps:
        return thread
    try:
        server.state.apply_supersteps(thread["thread_id"], supersteps)
    except Exception:
        server.threads.delete(thread["thread_id"])
        raise
    return dict(server.threads.get(thread["thread_id"]))


async def create(request: Request) -> Response:
    body = check(ThreadCreate, await json_body(request))
    if body.get("thread_id"):
        require_uuid(body["thread_id"], "thread")
    return json_response(await blocking(_create, _server(request), body))


async def search(request: Request) -> Response:
    body = check(ThreadSearch, await json_body(request))
    for thread_id in body.get("ids") or ():
        if not is_uuid(thread_id):  # the reference's status and words for a searched id
            raise ApiError(400, f"Invalid thread ID {thread_id}")
    return json_response(await blocking(_server(request).threads.search, body))


async def count(request: Request) -> Response:
    body = check(ThreadSearch, await json_body(request))
    return json_response(await blocking(_server(request).threads.count, body))


async def get(request: Request) -> Response:
    return json_response(await blocking(_server(request).threads.get, _thread_id(request)))


async def patch(request: Request) -> Response:
    body = check(ThreadPatch, await json_body(request))
    found = await blocking(_server(request).threads.patch, _thread_id(request), body)
    if request.headers.get("prefer") == "return=minimal":
        return Response(status_code=204)
    return json_response(found)


def _delete(server: Any, thread_id: str) -> None:
    server.threads.get(thread_id)
    running = server.runs.inflight(thread_id)
    if running:
        server.runs.request_cancel([r["run_id"] for r in running], "interrupt")
        for run in running:
            server.ctx.cancel_flag(run["run_id"]).set()
    server.threads.delete(thread_id)


def _prune(server: Any, thread_ids: list[str]) -> dict[str, int]:
    pruned = 0
    for thread_id in thread_ids:
        if server.threads.row(thread_id) is not None:
            _delete(server, thread_id)
            pruned += 1
    return {"pruned_count": pruned}


async def prune(request: Request) -> Response:
    body = check(Prune, await json_body(request))
    strategy = body.get("strategy") or "delete"
    server = _server(request)
    ids = [str(t) for t in body["thread_ids"]]
    require_uuids(ids, "thread")
    if strategy == "delete":
        return json_response(await blocking(_prune, server, ids))
    if strategy == "keep_latest":
        return json_response(
            {"pruned_count": await blocking(server.threads.prune_checkpoints, ids)}
        )
    raise ApiError(422, f"strategy: {strategy!r} is not one of delete, keep_latest")


async def copy(request: Request) -> Response:
    return json_response(await blocking(_server(request).threads.copy, _thread_id(request)))


async def delete(request: Request) -> Response:
    await blocking(_delete, _server(request), _thread_id(request))
    return Response(status_code=204)


async def get_state(request: Request) -> Response:
    server = _server(request)
    subgraphs = query_bool(request, "subgraphs")
    checkpoint_id = request.path_params.get("checkpoint_id")
    checkpoint = {"checkpoint_id": checkpoint_id} if checkpoint_id else None
    found = await blocking(server.state.get, _thread_id(request), checkpoint, subgraphs)
    return json_response(found)


async def get_state_at(request: Request) -> Response:
    body = check(StateAt, await json_body(request))
    checkpoint = body.get("checkpoint")
    if not isinstance(checkpoint, dict):
        raise ApiError(422, "checkpoint: field required (an object with checkpoint_id)")
    server = _server(request)
    found = await blocking(
        server.state.get, _thread_id(request), checkpoint, bool(body.get("subgraphs"))
    )
    return json_response(found)


async def update_state(request: Request) -> Response:
    body = check(StateUpdate, await json_body(request))
    if "values" not in body:
        raise ApiError(422, "values: field required (the update, or null)")
    as_node = body.get("as_node")
    if as_node is not None and not isinstance(as_node, str):
        raise ApiError(422, "as_node: must be a node name")
    checkpoint = body.get("checkpoint")
    if body.get("checkpoint_id"):
        checkpoint = {**(checkpoint or {}), "checkpoint_id": body["checkpoint_id"]}
    server = _server(request)
    thread_id = _thread_id(request)
    if await blocking(server.runs.inflight, thread_id):
        raise ApiError(409, f"Thread {thread_id!r} has a run in progress: update it after")
    found = await blocking(
        server.state.update, thread_id, body["values"], as_node=as_node, checkpoint=checkpoint
    )
    await blocking(state_updated, server, thread_id)
    return json_response(found)


async def history(request: Request) -> Response:
    return await _history(request, values=True)


async def steps(request: Request) -> Response:
    """``POST /threads/{id}/history/steps`` (read-only, this server's own, for the viewer's
    timeline): the history's entries with ``values`` ``None``; the same body."""
    return await _history(request, values=False)


async def _history(request: Request, *, values: bool) -> Response:
    if request.method == "GET":
        body: dict[str, Any] = {"limit": query_int(request, "limit", 10)}
        if request.query_params.get("before"):
            body["before"] = request.query_params["before"]
    else:
        body = check(History, await json_body(request))
    limit = body.get("limit", 10)
    if not isinstance(limit, int) or limit < 1:
        raise ApiError(422, f"limit: {limit!r} must be a positive integer")
    server = _server(request)
    found = await blocking(server.state.history, _thread_id(request), body, values=values)
    return json_response(found)


async def workflow(request: Request) -> Response:
    """``GET /threads/{id}/workflow`` (read-only, this server's own, for the viewer's workflow
    panel): the run of the served workflow document or plan on the thread, or ``null`` for a
    thread of another graph (`StateViews.workflow`)."""
    server = _server(request)
    return json_response(await blocking(server.state.workflow, _thread_id(request)))


def routes() -> list[Route]:
    return [
        Route("/threads", create, methods=["POST"]),
        Route("/threads/search", search, methods=["POST"]),
        Route("/threads/count", count, methods=["POST"]),
        Route("/threads/prune", prune, methods=["POST"]),
        Route("/threads/{thread_id}", get, methods=["GET"]),
        Route("/threads/{thread_id}", patch, methods=["PATCH"]),
        Route("/threads/{thread_id}", delete, methods=["DELETE"]),
        Route("/threads/{thread_id}/copy", copy, methods=["POST"]),
        Route("/threads/{thread_id}/state", get_state, methods=["GET"]),
        Route("/threads/{thread_id}/state", update_state, methods=["POST"]),
        Route("/threads/{thread_id}/state/checkpoint", get_state_at, methods=["POST"]),
        Route("/threads/{thread_id}/state/{checkpoint_id}", get_state, methods=["GET"]),
        Route("/threads/{thread_id}/history", history, methods=["GET", "POST"]),
        Route("/threads/{thread_id}/history/steps", steps, methods=["POST"]),
        Route("/threads/{thread_id}/workflow", workflow, methods=["GET"]),
    ]
