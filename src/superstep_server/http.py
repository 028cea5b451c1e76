"""HTTP plumbing the route modules share: JSON bodies and answers (orjson), error answers
``{"detail": ...}``, blocking work off the event loop, and SSE frames."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from superstep_server import serde
from superstep_server.errors import ApiError

__all__ = [
    "blocking",
    "json_body",
    "json_response",
    "query_bool",
    "query_int",
    "send_detail",
    "sse_frame",
]

T = TypeVar("T")


async def send_detail(send: Any, status: int, detail: str, *, close: bool = False) -> None:
    """An error answer ``{"detail": detail}`` sent straight through ASGI ``send``, by a
    middleware that refuses a request before any route sees it. ``close``: the client must
    not reuse the connection (the rest of its request is never read)."""
    body = serde.dumps({"detail": detail})
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def blocking(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run ``fn`` (database or graph state I/O) in the thread pool."""
    return await run_in_threadpool(fn, *args, **kwargs)


async def json_body(request: Request, *, allow_list: bool = False) -> Any:
    """The request's JSON body: an object (or a list when ``allow_list``); an empty body is
    ``{}``. Raises `ApiError` 422 naming the problem."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise ApiError(422, f"request body is not valid JSON: {e}") from e
    if body is None:
        return {}
    if isinstance(body, dict) or (allow_list and isinstance(body, list)):
        return body
    wanted = "a JSON object or list" if allow_list else "a JSON object"
    raise ApiError(422, f"request body must be {wanted}, not {type(body).__name__}")


def json_response(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        serde.dumps(value), status_code=status, media_type="application/json", headers=headers
    )


def query_bool(request: Request, name: str, default: bool = False) -> bool:
    value = request.query_params.get(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off", ""):
        return False
    raise ApiError(422, f"{name}: {value!r} is not a boolean")


def query_int(request: Request, name: str, default: int) -> int:
    value = request.query_params.get(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise ApiError(422, f"{name}: {value!r} is not an integer") from None


def sse_frame(event: str, data: bytes, event_id: int | str | None = None) -> bytes:
    """One server-sent event as the reference writes it: ``event:``, ``data:`` (and ``id:``
    for resumable streams) lines, CRLF line ends, a blank line after."""
    head = f"event: {event}\r\n".encode()
    if event_id is not None:
        head = f"id: {event_id}\r\n".encode() + head
    return head + b"data: " + data + b"\r\n\r\n"
