"""LangGraph's private typing helpers (`langgraph._internal._typing`), imported by libraries
built on it (langgraph-supervisor, langgraph-swarm)."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

__all__ = ["EMPTY_SEQ", "MISSING", "DeprecatedKwargs"]

MISSING: Any = object()
"""The "not given" sentinel (distinct from ``None``), a plain object as LangGraph's (compared
by identity only). One object for the whole façade, as in LangGraph: a channel's
``from_checkpoint(MISSING)`` / ``checkpoint()`` speak the same sentinel that code importing
it from here (custom channels, LangGraph's own tests) holds."""

EMPTY_SEQ: tuple[str, ...] = ()
"""An empty sequence of strings."""


class DeprecatedKwargs(TypedDict):
    """The type of ``**kwargs`` that only exist to accept deprecated keyword arguments: no key
    is declared, so a type checker flags every use."""
