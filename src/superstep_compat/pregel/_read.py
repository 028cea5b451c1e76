"""LangGraph's ``langgraph.pregel._read``, where its low-level `PregelNode` lives (the
façade's is in `_lowlevel`, beside `NodeBuilder` and the `Pregel` definition)."""

from superstep_compat.pregel._lowlevel import PregelNode

__all__ = ["PregelNode"]
