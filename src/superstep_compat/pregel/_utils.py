"""LangGraph's ``langgraph.pregel._utils`` names that code outside LangGraph (its tests,
tools that introspect graphs) imports: how a node's subgraph is found."""

from superstep_compat.pregel._subgraphs import find_subgraph as find_subgraph_pregel
from superstep_compat.pregel._subgraphs import get_function_nonlocals

__all__ = ["find_subgraph_pregel", "get_function_nonlocals"]
