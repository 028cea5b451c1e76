"""`superstep_compat.cache`: LangGraph's node-result caches, from the real
`langgraph-checkpoint` distribution (under the shim ``langgraph.cache`` is the real package)."""
