"""``/ok``, ``/info`` and ``/assistants``: routes (Starlette) over `Assistants`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from superstep_server.bodies import (
    AssistantCreate,
    AssistantPatch,
    AssistantSearch,
    Latest,
    Versions,
    check,
)
from superstep_server.errors import ApiError
from superstep_server.http import blocking, json_body, json_response, query_bool
from superstep_server.rows import paging

__all__ = ["routes"]


def _server(request: Request) -> Any:
    return request.app.state.server


async def ok(request: Request) -> Response:
    return json_response({"ok": True})


async def info(request: Request) -> Response:
    from importlib.metadata import PackageNotFoundError, version

    try:
        own = version("superstep")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        own = "0"
    return json_response(
        {
            "version": own,
            "langgraph_py_version": None,
            "flags": {"assistants": True, "crons": True, "langsmith": False},
            "host": {"kind": "superstep", "project_id": None, "revision_id": None},
            "graphs": _server(request).graphs.ids(),
        }
    )


async def create(request: Request) -> Response:
    body = check(AssistantCreate, await json_body(request))
    return json_response(await blocking(_server(request).assistants.create, body))


async def search(request: Request) -> Response:
    body = check(AssistantSearch, await json_body(request))
    rows, total = await blocking(_server(request).assistants.search, body)
    limit, offset = paging(body)
    headers = {"X-Pagination-Total": str(total)}
    if offset + limit < total:
        headers["X-Pagination-Next"] = str(offset + limit)
    return json_response(rows, headers=headers)


async def count(request: Request) -> Response:
    body = check(AssistantSearch, await json_body(request))
    return json_response(await blocking(_server(request).assistants.count, body))


async def get(request: Request) -> Response:
    assistant_id = request.path_params["assistant_id"]
    return json_response(await blocking(_server(request).assistants.get, assistant_id))


async def patch(request: Request) -> Response:
    body = check(AssistantPatch, await json_body(request))
    assistant_id = request.path_params["assistant_id"]
    return json_response(await blocking(_server(request).assistants.patch, assistant_id, body))


async def delete(request: Request) -> Response:
    assistant_id = request.path_params["assistant_id"]
    await blocking(_server(request).assistants.delete, assistant_id)
    return Response(status_code=204)


async def versions(request: Request) -> Response:
    body = check(Versions, await json_body(request))
    assistant_id = request.path_params["assistant_id"]
    found = await blocking(_server(request).assistants.versions, assistant_id, body)
    return json_response(found)


async def latest(request: Request) -> Response:
    body = check(Latest, await json_body(request))
    if "version" not in body:
        raise ApiError(422, "version: field required")
    assistant_id = request.path_params["assistant_id"]
    return json_response(
        await blocking(_server(request).assistants.set_latest, assistant_id, body["version"])
    )


@contextlib.contextmanager
def _graph_of(request: Request) -> Iterator[tuple[Any, dict[str, Any]]]:
    """The assistant's graph (a factory's built with the assistant's config) and the
    assistant."""
    server = _server(request)
    assistant = server.assistants.get(request.path_params["assistant_id"])
    config = {**(assistant.get("config") or {})}
    config["configurable"] = {
        **(config.get("configurable") or {}),
        "graph_id": assistant["graph_id"],
        "assistant_id": assistant["assistant_id"],
    }
    with server.graphs.open(assistant["graph_id"], "assistants.read", config) as graph:
        yield graph, assistant


def _drawing(request: Request) -> Any:
    with _graph_of(request) as (graph, assistant):
        return _drawn(request, graph, assistant)


def _drawn(request: Request, graph: Any, assistant: dict[str, Any]) -> Any:
    raw = request.query_params.get("xray", "false").lower()
    if raw in ("true", "false"):
        xray: bool | int = raw == "true"
    elif raw.isdigit():
        xray = int(raw)
    else:
        raise ApiError(422, f"xray: {raw!r} is not a boolean or a depth")
    try:
        drawn = graph.get_graph(assistant.get("config") or None, xray=xray).to_json()
    except Exception as e:  # a graph that cannot be drawn is the request's problem
        raise ApiError(422, f"cannot draw graph {assistant['graph_id']!r}: {e}") from e
    for node in drawn.get("nodes", []):
        # as the reference: a node's data names it, without the class path of its runnable
        if isinstance(node.get("data"), dict):
            node["data"].pop("id", None)
    return drawn


async def drawing(request: Request) -> Response:
    return json_response(await blocking(_drawing, request))


def _type_schema(kind: Any) -> Any:
    """JSON Schema of a state, input or context type; ``None`` when pydantic cannot describe
    it (no schema rather than a wrong one). A ``typing.TypedDict`` (which pydantic refuses
    before Python 3.12) is described through a model of its fields."""
    if kind is None:
        return None
    from typing import get_type_hints

    from pydantic import TypeAdapter, create_model

    try:
        return TypeAdapter(kind).json_schema()
    except Exception:
        pass
    try:
        hints = get_type_hints(kind, include_extras=True)
        fields: dict[str, Any] = {name: (hint, None) for name, hint in hints.items()}
        return create_model(getattr(kind, "__name__", "State"), **fields).model_json_schema()
    except Exception:
        return None


def _graph_schema(graph: Any, method: str, kind: Any) -> Any:
    try:
        return getattr(graph, method)()
    except Exception:  # the façade's schema of a typing.TypedDict fails on Python 3.11
        return _type_schema(kind)


CONFIG_KEYS_NOT_SHOWN = ("thread_id", "checkpoint_id", "checkpoint_ns")
"""Keys of ``configurable`` the server sets itself, left out of ``config_schema``."""


def _config_schema(context_schema: Any) -> Any:
    """The reference's ``config_schema``: LangGraph (1.x) types ``configurable`` by the
    graph's context schema (the deprecated ``config_schema`` is one), so it is that type's
    schema without the keys the server sets, and ``{}`` for a graph without one."""
    if context_schema is None:
        return {}
    schema = _type_schema(context_schema)
    if isinstance(schema, dict):
        for key in CONFIG_KEYS_NOT_SHOWN:
            schema.get("properties", {}).pop(key, None)
    return schema


def _schemas(request: Request) -> dict[str, Any]:
    with _graph_of(request) as (graph, assistant):
        return _schemas_of(graph, assistant)


def _schemas_of(graph: Any, assistant: dict[str, Any]) -> dict[str, Any]:
    builder = getattr(graph, "builder", None)
    own_state = getattr(graph, "get_state_jsonschema", None)  # an engine target's
    state = own_state() if callable(own_state) else None
    if state is None:
        state = _type_schema(getattr(builder, "state_schema", None))
    context = getattr(builder, "context_schema", None)
    return {
        "graph_id": assistant["graph_id"],
        "input_schema": _graph_schema(
            graph, "get_input_jsonschema", getattr(builder, "input_schema", None)
        )
        or state,
        "output_schema": _graph_schema(
            graph, "get_output_jsonschema", getattr(builder, "output_schema", None)
        )
        or state,
        "state_schema": state,
        # an engine target (no builder) has no configurable to describe
        "config_schema": _config_schema(context) if builder is not None else None,
        "context_schema": _type_schema(context),
    }


async def schemas(request: Request) -> Response:
    return json_response(await blocking(_schemas, request))


def _subgraphs(request: Request) -> dict[str, Any]:
    with _graph_of(request) as (graph, _assistant):
        return _subgraphs_of(request, graph)


def _subgraphs_of(request: Request, graph: Any) -> dict[str, Any]:
    namespace = request.path_params.get("namespace")
    recurse = query_bool(request, "recurse")
    found: dict[str, Any] = {}
    get_subgraphs = getattr(graph, "get_subgraphs", None)
    if not callable(get_subgraphs):
        return found
    for name, sub in get_subgraphs(namespace=namespace, recurse=recurse):
        # the reference names a subgraph by its key alone (no ``graph_id`` in its schemas)
        found[name] = _schemas_of(sub, {"graph_id": name})
        del found[name]["graph_id"]
    return found


async def subgraphs(request: Request) -> Response:
    return json_response(await blocking(_subgraphs, request))


def routes() -> list[Route]:
    return [
        Route("/ok", ok, methods=["GET"]),
        Route("/info", info, methods=["GET"]),
        Route("/assistants", create, methods=["POST"]),
        Route("/assistants/search", search, methods=["POST"]),
        Route("/assistants/count", count, methods=["POST"]),
        Route("/assistants/{assistant_id}", get, methods=["GET"]),
        Route("/assistants/{assistant_id}", patch, methods=["PATCH"]),
        Route("/assistants/{assistant_id}", delete, methods=["DELETE"]),
        Route("/assistants/{assistant_id}/graph", drawing, methods=["GET"]),
        Route("/assistants/{assistant_id}/schemas", schemas, methods=["GET"]),
        Route("/assistants/{assistant_id}/subgraphs", subgraphs, methods=["GET"]),
        Route("/assistants/{assistant_id}/subgraphs/{namespace}", subgraphs, methods=["GET"]),
        Route("/assistants/{assistant_id}/versions", versions, methods=["POST"]),
        Route("/assistants/{assistant_id}/latest", latest, methods=["POST"]),
    ]
