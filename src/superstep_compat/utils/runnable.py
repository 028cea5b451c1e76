"""`langgraph.utils.runnable`: the old import path of `RunnableCallable` (LangGraph keeps it
for backwards compatibility; langmem, trustcall and langgraph-bigtool import from it)."""

from superstep_compat._internal._runnable import RunnableCallable, RunnableLike

__all__ = ["RunnableCallable", "RunnableLike"]
