"""LangGraph's ``langgraph._internal._timeout``: normalising a node's timeout and the error
for a timeout on sync code (both live in `_policies` beside the other policies)."""

from superstep_compat._internal._policies import coerce_timeout_policy, sync_timeout_unsupported

__all__ = ["coerce_timeout_policy", "sync_timeout_unsupported"]
