"""Ids in paths and bodies checked as the reference checks them: thread, run, cron and
checkpoint ids are UUIDs, or the request is answered 422 ``{"detail": "Invalid thread ID: must
be a UUID"}`` before anything is read or stored (the reference's ``validate_uuid``). An
assistant id is a UUID or the id of a served graph (standing for its system assistant, as
everywhere in this server); anything else is 422 with the reference's run-creation message
listing the graphs. Never imports the route modules."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from superstep_server.errors import ApiError

__all__ = [
    "PATH_IDS",
    "check_path_ids",
    "is_uuid",
    "require_assistant_id",
    "require_uuid",
    "require_uuids",
    "with_checked_path_ids",
]

PATH_IDS = {"thread_id": "thread", "run_id": "run", "cron_id": "cron"}
"""Path parameters that must be UUIDs, and the name their error gives them. An
``{assistant_id}`` is checked where it is resolved (`require_assistant_id`), as a graph id
may stand for it."""


def is_uuid(value: object) -> bool:
    """Whether ``value`` is a string ``uuid.UUID`` reads (any of its spellings, as the
    reference accepts them)."""
    if not isinstance(value, str):
        return False
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def require_uuid(value: object, what: str) -> str:
    """``value`` if it is a UUID, else `ApiError` 422 ``Invalid {what} ID: must be a UUID``
    (``what``: ``thread``, ``run``, ``cron``, ``assistant``)."""
    if not is_uuid(value):
        raise ApiError(422, f"Invalid {what} ID: must be a UUID")
    return str(value)


def require_uuids(values: Iterable[object], what: str) -> None:
    """`require_uuid` on each of ``values``."""
    for value in values:
        require_uuid(value, what)


def require_assistant_id(value: str, graph_ids: Iterable[str]) -> None:
    """Raise `ApiError` 422 unless ``value`` is a UUID or one of ``graph_ids`` (the
    reference's message for a run's ``assistant_id``: it names the graphs one may use)."""
    graphs = list(graph_ids)
    if value in graphs or is_uuid(value):
        return
    raise ApiError(
        422,
        f"Invalid assistant: '{value}'. Must be either:\n- A valid assistant UUID, or\n"
        f"- One of the registered graphs: {', '.join(graphs)}",
    )


def check_path_ids(path_params: Mapping[str, Any]) -> None:
    """Raise `ApiError` 422 for the first of `PATH_IDS` in ``path_params`` that is not a UUID
    (the thread before the run, as the reference checks them)."""
    for name, what in PATH_IDS.items():
        if name in path_params:
            require_uuid(path_params[name], what)


def with_checked_path_ids(app: ASGIApp) -> Callable[[Scope, Receive, Send], Any]:
    """A route's ASGI app that first checks its path's ids (`check_path_ids`): one check for
    every route, none forgotten by a new one. The `ApiError` it raises is answered by the
    app's handler like any other."""

    async def checked(scope: Scope, receive: Receive, send: Send) -> None:
        check_path_ids(scope.get("path_params") or {})
        await app(scope, receive, send)

    return checked
