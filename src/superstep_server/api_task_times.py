"""``GET /threads/{thread_id}/runs/{run_id}/tasks``: a read-only endpoint of this server,
not the reference's (the viewer's step timeline reads it): each task the run ran, when it
started, how long it took, its error (`superstep_server.task_times`). 404 for a run that is
not the thread's."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from superstep_server.errors import not_found
from superstep_server.http import blocking, json_response
from superstep_server.task_times import of_run

__all__ = ["routes"]


async def run_tasks(request: Request) -> Response:
    server = request.app.state.server
    thread_id = str(request.path_params["thread_id"])
    run_id = str(request.path_params["run_id"])
    row = await blocking(server.runs.row, run_id)
    if row is None or row["thread_id"] != thread_id:
        raise not_found(f"Run {run_id!r} not found on thread {thread_id!r}")
    return json_response(await blocking(of_run, server.db, thread_id, run_id))


def routes() -> list[Route]:
    return [Route("/threads/{thread_id}/runs/{run_id}/tasks", run_tasks, methods=["GET"])]
