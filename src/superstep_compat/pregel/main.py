"""`langgraph.pregel.main`: the module LangGraph's `Pregel` and `NodeBuilder` live in (and
the one a compiled graph's class names, see `superstep_compat._internal._names`)."""

from superstep_compat.pregel._compile import Pregel
from superstep_compat.pregel._lowlevel import NodeBuilder

__all__ = ("NodeBuilder", "Pregel")
