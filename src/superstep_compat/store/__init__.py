"""`superstep_compat.store`: LangGraph's long-term memory stores, from the real
`langgraph-checkpoint` distribution (under the shim ``langgraph.store`` is the real package)."""
