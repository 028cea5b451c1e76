"""Superstep's agent server: the LangGraph server HTTP API (the one the official
``langgraph-sdk`` clients speak) serving LangGraph-style graphs on the Superstep façade.

``superstep serve [--config langgraph.json] [--host 127.0.0.1] [--port 2024] [--db PATH|URL]
[--workers N]`` (`superstep_server.cli`), or `create_app` for an ASGI app of your own.
Modules: routes (``api_*``), tables (``db``, ``assistants``, ``threads``, ``runs``,
``store``), state views (``state``), run execution (``executor``, ``workers``,
``streams``), the checkpoint saver (``saver``), ``langgraph.json`` (``config``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(**kwargs: Any) -> Any:
    """`superstep_server.app.create_app` (imported on first use: Starlette loads only when
    a server is built)."""
    from superstep_server.app import create_app as build

    return build(**kwargs)
