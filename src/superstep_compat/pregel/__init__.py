"""`langgraph.pregel`: the compiled-graph runtime, here a view over superstep_core."""

from superstep_compat.pregel._compile import CompiledStateGraph

Pregel = CompiledStateGraph

__all__ = ["CompiledStateGraph", "Pregel"]
