"""LangGraph's ``langgraph.pregel._retry`` as far as the façade has it: `_should_retry_on`,
whether a `RetryPolicy`'s ``retry_on`` matches an error (the façade's task runner picks a
node's policy with it). The retrying itself is the engine's (a failed activation comes back
with its attempt number, the host times the backoff), so LangGraph's ``run_with_retry``
loops have no counterpart here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from superstep_compat.types import RetryPolicy

__all__ = ["_should_retry_on"]


def _should_retry_on(retry_policy: RetryPolicy, exc: Exception) -> bool:
    """Whether ``retry_policy.retry_on`` matches ``exc``: an exception class (subclasses
    match), a sequence of them (empty: nothing matches) or a predicate. Raises LangGraph's
    `TypeError` for anything else."""
    retry_on: Any = retry_policy.retry_on
    if isinstance(retry_on, Sequence):
        return isinstance(exc, tuple(retry_on))
    if isinstance(retry_on, type) and issubclass(retry_on, Exception):
        return isinstance(exc, retry_on)
    if callable(retry_on):
        return bool(retry_on(exc))
    raise TypeError(
        "retry_on must be an Exception class, a list or tuple of Exception classes, or a callable"
    )
