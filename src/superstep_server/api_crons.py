"""``/runs/crons`` and ``/threads/{thread_id}/runs/crons``: routes over `Crons`, and
`fire_due_crons`, which the workers call to queue the runs of due crons."""

from __future__ import annotations

import logging
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from superstep_server.bodies import CronCreate, CronPatch, CronSearch, check
from superstep_server.errors import ApiError
from superstep_server.http import blocking, json_body, json_response
from superstep_server.ids import require_uuid
from superstep_server.run_requests import check_run_body, create_run_from_body

__all__ = ["fire_due_crons", "routes"]

log = logging.getLogger("superstep.server")


def _server(request: Request) -> Any:
    return request.app.state.server


def _create(server: Any, thread_id: str | None, body: dict[str, Any]) -> dict[str, Any]:
    assistant_id = body.get("assistant_id")
    if not isinstance(assistant_id, str) or not assistant_id:
        raise ApiError(422, "assistant_id: field required (an assistant id or a graph id)")
    if thread_id is not None:
        server.threads.get(thread_id)
    assistant = server.assistants.get(assistant_id)

    def check(run_body: dict[str, Any]) -> None:
        check_run_body(server, run_body, stateless=thread_id is None)

    return dict(
        server.crons.create(
            body, thread_id=thread_id, assistant_id=assistant["assistant_id"], check_run=check
        )
    )


async def create_stateless(request: Request) -> Response:
    body = check(CronCreate, await json_body(request))
    return json_response(await blocking(_create, _server(request), None, body))


async def create_for_thread(request: Request) -> Response:
    body = check(CronCreate, await json_body(request))
    thread_id = str(request.path_params["thread_id"])
    return json_response(await blocking(_create, _server(request), thread_id, body))


def _search_body(server: Any, body: dict[str, Any]) -> dict[str, Any]:
    """A cron search's body with its ids checked, a graph id standing for its system
    assistant (`Assistants.resolve_id`)."""
    if body.get("thread_id"):
        require_uuid(body["thread_id"], "thread")
    if body.get("assistant_id"):
        body = {**body, "assistant_id": server.assistants.resolve_id(body["assistant_id"])}
    return body


async def search(request: Request) -> Response:
    server = _server(request)
    body = _search_body(server, check(CronSearch, await json_body(request)))
    return json_response(await blocking(server.crons.search, body))


async def count(request: Request) -> Response:
    server = _server(request)
    body = _search_body(server, check(CronSearch, await json_body(request)))
    return json_response(await blocking(server.crons.count, body))


def _patch(server: Any, cron_id: str, body: dict[str, Any]) -> dict[str, Any]:
    current = server.crons.get(cron_id)

    def check(run_body: dict[str, Any]) -> None:
        check_run_body(server, run_body, stateless=current["thread_id"] is None)

    return dict(server.crons.patch(cron_id, body, check))


async def patch(request: Request) -> Response:
    body = check(CronPatch, await json_body(request))
    cron_id = str(request.path_params["cron_id"])
    return json_response(await blocking(_patch, _server(request), cron_id, body))


async def get(request: Request) -> Response:
    cron_id = str(request.path_params["cron_id"])
    return json_response(await blocking(_server(request).crons.get, cron_id))


async def delete(request: Request) -> Response:
    await blocking(_server(request).crons.delete, str(request.path_params["cron_id"]))
    return Response(status_code=204)


def fire_due_crons(server: Any) -> int:
    """Queue a run for each due cron this process won (from a worker thread); how many."""
    fired = 0
    for cron in server.crons.take_due():
        body = {**cron["payload"], "assistant_id": cron["assistant_id"]}
        metadata = dict(body.get("metadata") or {})
        metadata.setdefault("cron_id", cron["cron_id"])
        body["metadata"] = metadata
        if cron["thread_id"] is None:
            body["on_completion"] = cron["on_run_completed"] or "delete"
        else:
            body.setdefault("multitask_strategy", "enqueue")
        try:
            create_run_from_body(server, cron["thread_id"], body)
            fired += 1
        except ApiError as e:  # e.g. its thread or assistant was deleted: skip this firing
            log.warning("cron %s: cannot queue its run: %s", cron["cron_id"], e.detail)
    return fired


def routes() -> list[Route]:
    return [
        Route("/runs/crons", create_stateless, methods=["POST"]),
        Route("/runs/crons/search", search, methods=["POST"]),
        Route("/runs/crons/count", count, methods=["POST"]),
        Route("/runs/crons/{cron_id}", get, methods=["GET"]),
        Route("/runs/crons/{cron_id}", patch, methods=["PATCH"]),
        Route("/runs/crons/{cron_id}", delete, methods=["DELETE"]),
        Route("/threads/{thread_id}/runs/crons", create_for_thread, methods=["POST"]),
    ]
