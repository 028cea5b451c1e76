"""Optional API-key auth: with a key configured, every request but ``/ok`` and the viewer's
static files (``/viewer/...``) must carry it in the ``x-api-key`` header (what the
``langgraph-sdk`` clients send for ``api_key=``); others are answered 401 ``{"detail": ...}``.
Compared in constant time; the key is never logged."""

from __future__ import annotations

import hmac
from typing import Any

from superstep_server.http import send_detail

__all__ = ["ApiKeyMiddleware"]

OPEN_PATHS = frozenset({"/ok", "/viewer"})
OPEN_PREFIXES = ("/viewer/",)
"""The viewer's static files (`superstep_server.viewer`) hold no data: the page loads without
the key and asks for it when the API answers 401."""


class ApiKeyMiddleware:
    """ASGI middleware (plain ASGI, so streamed answers pass through untouched)."""

    def __init__(self, app: Any, api_key: str) -> None:
        self.app = app
        self.key = api_key.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        path = scope.get("path", "")  # a lifespan scope has none
        if scope["type"] != "http" or path in OPEN_PATHS or path.startswith(OPEN_PREFIXES):
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or ()).get(b"x-api-key")
        if given is not None and hmac.compare_digest(given, self.key):
            await self.app(scope, receive, send)
            return
        detail = "missing x-api-key header" if given is None else "invalid x-api-key"
        await send_detail(send, 401, f"Unauthorized: {detail}")
