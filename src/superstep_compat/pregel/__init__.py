"""`langgraph.pregel`: the compiled-graph runtime, here a view over superstep_core.

`Pregel` is what `StateGraph.compile()` returns (a `CompiledStateGraph`, its subclass, whose
public home is `superstep_compat.graph.state` as in LangGraph, not this module), and
also LangGraph's low-level API: ``Pregel(nodes={name: NodeBuilder()...}, channels={...},
input_channels=..., output_channels=...)``.
"""

from superstep_compat.pregel._compile import Pregel
from superstep_compat.pregel._lowlevel import NodeBuilder

__all__ = ["NodeBuilder", "Pregel"]
