"""`langgraph.version`: ``__version__``, the LangGraph release whose behaviour the façade
follows (what code that checks LangGraph's version should see when it runs on Superstep)."""

__all__ = ("__version__",)

__version__ = "1.2.24"
