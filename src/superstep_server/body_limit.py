"""The request body size limit: a body over it is answered 413 ``{"detail": "Request body too
large (limit: N bytes)"}``, as the reference answers past its ``HTTP_MAX_REQUEST_BODY_BYTES``,
and nothing of it is parsed or stored.

A body that declares its length (``Content-Length``) is refused before a byte of it is read;
one sent in chunks is counted as it arrives and refused once the count passes the limit (the
route reading it gets `BodyTooLarge`, an `ApiError`). Never imports the route modules.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from superstep_server.errors import ApiError
from superstep_server.http import send_detail

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "ENV_VARS",
    "BodyLimitMiddleware",
    "BodyTooLarge",
    "max_body_bytes_from_env",
    "parse_size",
]

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
"""32 MiB: far above any chat turn with a few images, far below what fills a disk by
accident. The reference's default is 300 MB; raise it with ``--max-body-bytes``."""

ENV_VARS = ("SUPERSTEP_MAX_BODY_BYTES", "HTTP_MAX_REQUEST_BODY_BYTES")
"""Read in this order when ``--max-body-bytes`` is not given; the second is the reference
server's own name, so a deployment's setting carries over."""


class BodyTooLarge(ApiError):
    """A request body over the server's limit (413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"Request body too large (limit: {limit} bytes)")


def parse_size(text: str) -> int:
    """A byte count from ``text``: digits with an optional ``K``/``M``/``G`` suffix (powers of
    1024, ``KB``/``MiB`` spellings too), e.g. ``"64M"``. Raises `ValueError` naming the text."""
    cleaned = text.strip().upper().removesuffix("B").removesuffix("I")
    factor = 1
    for suffix, size in (("K", 1024), ("M", 1024**2), ("G", 1024**3)):
        if cleaned.endswith(suffix):
            cleaned, factor = cleaned[:-1], size
            break
    try:
        value = int(cleaned.strip()) * factor
    except ValueError:
        raise ValueError(f"{text!r} is not a size in bytes (e.g. 1048576, 512K, 64M)") from None
    if value < 1:
        raise ValueError(f"{text!r}: a size of 1 byte or more")
    return value


def max_body_bytes_from_env(environ: Mapping[str, str] | None = None) -> int:
    """The limit the environment sets (`ENV_VARS`, first one set wins), else the default.
    Raises `ValueError` naming the variable when its value is not a size."""
    env = os.environ if environ is None else environ
    for name in ENV_VARS:
        value = env.get(name)
        if value:
            try:
                return parse_size(value)
            except ValueError as e:
                raise ValueError(f"{name}: {e}") from None
    return DEFAULT_MAX_BODY_BYTES


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the HTTP server refuses a malformed one itself
    return None


class BodyLimitMiddleware:
    """ASGI middleware refusing request bodies over ``max_bytes`` (see the module)."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            await _refuse(send, limit)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, counted, send)


async def _refuse(send: Send, limit: int) -> None:
    await send_detail(send, 413, BodyTooLarge(limit).detail, close=True)
