"""LangGraph's ``langgraph.pregel._retry`` as far as the façade has it: `_should_retry_on`,
whether a `RetryPolicy`'s ``retry_on`` matches an error (the façade's task runner picks a
node's policy with it); `_ensure_execution_info`, a task's runtime with the execution info
its config names; `_checkpoint_ns_for_parent_command`, the namespace a subgraph's
``Command(graph=PARENT)`` is addressed to; the timed-attempt observer's event types
(`superstep_compat.pregel._timed_attempts`); and `run_with_retry` / `arun_with_retry` /
`_TimedAttemptScope` (`superstep_compat.pregel._retry_run`, loaded on first use: it builds on
the task runner, which imports this module). A graph's own tasks never go through those: the
engine retries a failed activation (it comes back with its attempt number, the host times
the backoff); they run a task by hand as one nested effect of the engine's host.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from superstep_compat._internal._constants import (
    CONF,
    CONFIG_KEY_CHECKPOINT_ID,
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_TASK_ID,
    CONFIG_KEY_THREAD_ID,
    NS_SEP,
)
from superstep_compat.pregel._timed_attempts import _AttemptContext, _AttemptEvent
from superstep_compat.runtime import ExecutionInfo, Runtime
from superstep_compat.types import RetryPolicy

__all__ = [
    "_AttemptContext",
    "_AttemptEvent",
    "_checkpoint_ns_for_parent_command",
    "_ensure_execution_info",
    "_should_retry_on",
]

_RUNNERS = frozenset({"run_with_retry", "arun_with_retry", "_TimedAttemptScope"})


def __getattr__(name: str) -> Any:
    """The runners of `superstep_compat.pregel._retry_run`, imported when first asked for."""
    if name in _RUNNERS:
        from superstep_compat.pregel import _retry_run

        return getattr(_retry_run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def _ensure_execution_info(
    runtime: Runtime[Any], config: Mapping[str, Any], task: Any
) -> Runtime[Any]:
    """``runtime`` itself when it has an `ExecutionInfo`, else a copy with one read from
    ``config`` (a task prepared elsewhere, e.g. by a server, comes without): its
    configurable's checkpoint id and namespace (``""`` when absent), task id (else
    ``task.id``) and thread id, and the config's ``run_id`` as a str (None when absent)."""
    if runtime.execution_info is not None:
        return runtime
    conf = config.get(CONF) or {}
    run_id = config.get("run_id")
    info = ExecutionInfo(
        checkpoint_id=conf.get(CONFIG_KEY_CHECKPOINT_ID) or "",
        checkpoint_ns=conf.get(CONFIG_KEY_CHECKPOINT_NS) or "",
        task_id=conf.get(CONFIG_KEY_TASK_ID) or task.id,
        thread_id=conf.get(CONFIG_KEY_THREAD_ID),
        run_id=str(run_id) if run_id else None,
    )
    return runtime.override(execution_info=info)


def _checkpoint_ns_for_parent_command(ns: str) -> str:
    """The namespace of the graph above the one running at ``ns`` (``"a:1|b:2"`` ->
    ``"a:1"``; the root's is ``""``). Purely numeric segments (``|1``, which tell concurrent
    runs of one task apart) are no level of their own: those right after the current
    frame and right after its parent's are dropped with it."""
    parts = ns.split(NS_SEP)
    while parts and parts[-1].isdigit():
        parts.pop()
    if parts:
        parts.pop()  # the current frame
    while parts and parts[-1].isdigit():
        parts.pop()
    return NS_SEP.join(parts)
