"""`superstep_compat.checkpoint`: LangGraph's checkpoint protocol and savers, from the real
`langgraph-checkpoint` distributions (``base``, ``memory``, ``serde``, ``sqlite``, ``postgres``):
under the shim ``langgraph.checkpoint`` is the real package itself."""
