"""`langgraph.utils`: old import paths kept by LangGraph for backwards compatibility."""
