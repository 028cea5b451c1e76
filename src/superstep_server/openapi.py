"""The OpenAPI document of the served API (``/openapi.json``) and a page that shows it
(``/docs``, Swagger UI loaded by the browser from its CDN). Built from the routes and the
request body shapes of `superstep_server.bodies`, so it cannot drift from what is checked."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from superstep_server import bodies
from superstep_server.http import json_response

__all__ = ["document", "routes"]

BODIES: dict[tuple[str, str], type[BaseModel]] = {
    ("POST", "/assistants"): bodies.AssistantCreate,
    ("POST", "/assistants/search"): bodies.AssistantSearch,
    ("POST", "/assistants/count"): bodies.AssistantSearch,
    ("PATCH", "/assistants/{assistant_id}"): bodies.AssistantPatch,
    ("POST", "/assistants/{assistant_id}/versions"): bodies.Versions,
    ("POST", "/assistants/{assistant_id}/latest"): bodies.Latest,
    ("POST", "/threads"): bodies.ThreadCreate,
    ("POST", "/threads/search"): bodies.ThreadSearch,
    ("POST", "/threads/count"): bodies.ThreadSearch,
    ("POST", "/threads/prune"): bodies.Prune,
    ("PATCH", "/threads/{thread_id}"): bodies.ThreadPatch,
    ("POST", "/threads/{thread_id}/state"): bodies.StateUpdate,
    ("POST", "/threads/{thread_id}/state/checkpoint"): bodies.StateAt,
    ("POST", "/threads/{thread_id}/history"): bodies.History,
    ("POST", "/threads/{thread_id}/history/steps"): bodies.History,
    ("POST", "/runs"): bodies.RunCreate,
    ("POST", "/runs/stream"): bodies.RunCreate,
    ("POST", "/runs/wait"): bodies.RunCreate,
    ("POST", "/runs/cancel"): bodies.CancelMany,
    ("POST", "/threads/{thread_id}/runs"): bodies.RunCreate,
    ("POST", "/threads/{thread_id}/runs/stream"): bodies.RunCreate,
    ("POST", "/threads/{thread_id}/runs/wait"): bodies.RunCreate,
    ("PUT", "/store/items"): bodies.StorePut,
    ("DELETE", "/store/items"): bodies.StoreDelete,
    ("POST", "/store/items/search"): bodies.StoreSearch,
    ("POST", "/store/namespaces"): bodies.StoreNamespaces,
    ("POST", "/runs/crons"): bodies.CronCreate,
    ("POST", "/threads/{thread_id}/runs/crons"): bodies.CronCreate,
    ("POST", "/runs/crons/search"): bodies.CronSearch,
    ("POST", "/runs/crons/count"): bodies.CronSearch,
    ("PATCH", "/runs/crons/{cron_id}"): bodies.CronPatch,
}

_ERROR = {
    "type": "object",
    "properties": {"detail": {"type": "string", "description": "what is wrong"}},
    "required": ["detail"],
}


def _tag(path: str) -> str:
    if "/crons" in path:
        return "Crons"
    if "/runs" in path:
        return "Runs"
    return {"assistants": "Assistants", "threads": "Threads", "store": "Store"}.get(
        path.strip("/").split("/")[0], "System"
    )


def document(app_routes: list[Any], version: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``app_routes`` (Starlette routes)."""
    paths: dict[str, dict[str, Any]] = {}
    schemas: dict[str, Any] = {"Error": _ERROR}
    for route in app_routes:
        if not isinstance(route, Route) or route.path in ("/openapi.json", "/docs"):
            continue
        for method in sorted((route.methods or set()) - {"HEAD"}):
            doc = (route.endpoint.__doc__ or "").strip().split("\n")[0]
            operation: dict[str, Any] = {
                "tags": [_tag(route.path)],
                "summary": doc or route.endpoint.__name__.replace("_", " "),
                "operationId": f"{method.lower()}{route.path.replace('/', '_')}",
                "responses": {
                    "200": {"description": "OK"},
                    "404": {"description": "not found", "content": _json("Error")},
                    "422": {"description": "a bad request", "content": _json("Error")},
                },
            }
            params = [p.strip("{}") for p in route.path.split("/") if p.startswith("{")]
            if params:
                operation["parameters"] = [
                    {"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                    for p in params
                ]
            model = BODIES.get((method, route.path))
            if model is not None:
                found = model.model_json_schema(ref_template="#/components/schemas/{model}")
                schemas.update(found.pop("$defs", {}))
                schemas[model.__name__] = found
                operation["requestBody"] = {"required": True, "content": _json(model.__name__)}
            paths.setdefault(route.path, {})[method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Superstep agent server (the LangGraph server API)",
            "version": version,
        },
        "paths": paths,
        "components": {"schemas": schemas},
    }


def _json(name: str) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}


async def openapi_json(request: Request) -> Response:
    from importlib.metadata import PackageNotFoundError, version

    try:
        own = version("superstep")
    except PackageNotFoundError:  # pragma: no cover - a source tree
        own = "0"
    return json_response(document(list(request.app.routes), own))


_DOCS = """<!doctype html>
<html><head><meta charset="utf-8"><title>Superstep agent server API</title>
<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui.css">
</head><body><div id="ui"></div>
<script src="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({url: "openapi.json", dom_id: "#ui"});</script>
</body></html>
"""


async def docs(request: Request) -> Response:
    return HTMLResponse(_DOCS)


def routes() -> list[Route]:
    return [
        Route("/openapi.json", openapi_json, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
    ]
