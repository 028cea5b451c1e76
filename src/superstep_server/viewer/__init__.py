"""The web run viewer: static files (``static/``: HTML, ES modules, CSS and the vendored
dagre layout library with its licence) served under ``/viewer/`` by `superstep serve` and
`superstep view`.

The viewer's browser code talks only to the server's public HTTP API (the same calls the
``langgraph-sdk`` makes: ``/threads/search``, ``/threads/{id}/history``, ``/threads/{id}/state``,
``/threads/{id}/runs/stream``, ``/assistants/{id}/graph``, ...); it needs no endpoint of its
own. Nothing here is built at install time: the wheel ships the files as they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Starlette loads with the routes: `superstep view`'s parser imports this
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import BaseRoute

__all__ = ["STATIC", "routes"]

STATIC = Path(__file__).resolve().parent / "static"
"""The viewer's files (``index.html`` is the page)."""


async def _to_page(request: Request) -> Response:
    from starlette.responses import RedirectResponse

    # `/viewer` without its slash: the page's relative asset URLs need the slash.
    return RedirectResponse(url=str(request.url.replace(path="/viewer/")), status_code=308)


def routes() -> list[BaseRoute]:
    """``GET /viewer`` (a redirect) and ``/viewer/...`` (the static files)."""
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    return [
        Route("/viewer", _to_page, methods=["GET", "HEAD"]),
        Mount("/viewer", app=StaticFiles(directory=STATIC, html=True), name="viewer"),
    ]
