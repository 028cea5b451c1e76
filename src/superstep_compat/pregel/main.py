"""`langgraph.pregel.main`: the module LangGraph's `Pregel` and `NodeBuilder` live in (and
the one a compiled graph's class names, see `superstep_compat._internal._names`), and its
check of ``stream_events(version="v3")``'s transformer specs under LangGraph's private name
(classes or ``factory(scope)`` callables; a pre-built instance is a TypeError)."""

from superstep_compat.pregel._compile import Pregel
from superstep_compat.pregel._lowlevel import NodeBuilder
from superstep_compat.stream._graph import (
    normalize_transformers as _normalize_stream_transformer_factories,
)

__all__ = ("NodeBuilder", "Pregel", "_normalize_stream_transformer_factories")
