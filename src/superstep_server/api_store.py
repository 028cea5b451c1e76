"""``/store``: routes over `Store`."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from superstep_server.bodies import StoreDelete, StoreNamespaces, StorePut, StoreSearch, check
from superstep_server.errors import ApiError
from superstep_server.http import blocking, json_body, json_response, query_bool

__all__ = ["routes"]


def _store(request: Request) -> Any:
    return request.app.state.server.store


async def put_item(request: Request) -> Response:
    body = check(StorePut, await json_body(request))
    await blocking(_store(request).put, body)
    return Response(status_code=204)


async def get_item(request: Request) -> Response:
    key = request.query_params.get("key")
    if not key:
        raise ApiError(422, "key: query parameter required")
    raw = request.query_params.get("namespace", "")
    namespace = raw.split(".") if raw else []
    refresh: bool | None = None
    if "refresh_ttl" in request.query_params:
        refresh = query_bool(request, "refresh_ttl")
    # no such item (or an expired one) is a 200 ``null``, as the reference answers it: the
    # SDK's get_item then returns None
    return json_response(await blocking(_store(request).find, namespace, key, refresh))


async def delete_item(request: Request) -> Response:
    body = check(StoreDelete, await json_body(request))
    await blocking(_store(request).delete, body)
    return Response(status_code=204)


async def search(request: Request) -> Response:
    body = check(StoreSearch, await json_body(request))
    return json_response(await blocking(_store(request).search, body))


async def namespaces(request: Request) -> Response:
    body = check(StoreNamespaces, await json_body(request))
    return json_response(await blocking(_store(request).namespaces, body))


def routes() -> list[Route]:
    return [
        Route("/store/items", put_item, methods=["PUT"]),
        Route("/store/items", get_item, methods=["GET"]),
        Route("/store/items", delete_item, methods=["DELETE"]),
        Route("/store/items/search", search, methods=["POST"]),
        Route("/store/namespaces", namespaces, methods=["POST"]),
    ]
