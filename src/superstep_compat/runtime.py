"""`langgraph.runtime`: `Runtime`, injected into nodes that declare ``runtime``, and
`get_runtime()`."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

__all__ = ["DEFAULT_RUNTIME", "ExecutionInfo", "Runtime", "ServerInfo", "get_runtime"]

ContextT = TypeVar("ContextT")


def _noop(*_: Any, **__: Any) -> None:
    return None


@dataclass(frozen=True)
class ExecutionInfo:
    """Where a task runs: checkpoint, namespace, task id, thread, attempt."""

    checkpoint_id: str = ""
    checkpoint_ns: str = ""
    task_id: str = ""
    thread_id: str | None = None
    run_id: str | None = None
    node_attempt: int = 1
    node_first_attempt_time: float | None = None


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What the LangGraph server tells a run about itself: the assistant, the graph and the
    authenticated user (``None`` outside a server, as in LangGraph)."""

    assistant_id: str
    graph_id: str
    user: Any = None


@dataclass(frozen=True)
class Runtime(Generic[ContextT]):
    """The run's context object, store, stream writer and previous return value."""

    context: Any = None
    store: Any = None
    stream_writer: Any = field(default=_noop)
    heartbeat: Any = field(default=_noop)
    previous: Any = None
    execution_info: ExecutionInfo | None = None
    server_info: Any = None
    control: Any = None

    def override(self, **changes: Any) -> Runtime[ContextT]:
        return replace(self, **changes)

    def merge(self, other: Runtime[Any]) -> Runtime[ContextT]:
        return replace(
            self,
            context=other.context or self.context,
            store=other.store or self.store,
            previous=other.previous or self.previous,
        )


DEFAULT_RUNTIME: Runtime[Any] = Runtime()
"""The runtime of a run given nothing: no context, no store, writers that do nothing."""


def get_runtime(context_schema: Any = None) -> Runtime[Any]:
    """The `Runtime` of the running node; RuntimeError outside a run."""
    from superstep_compat.pregel._task_context import current_run

    found = current_run()
    if found is None:
        raise RuntimeError("Called get_runtime outside of a runnable context")
    run, _ = found
    writer = (
        (lambda chunk: run.emit("custom", chunk))  # type: ignore[misc]
        if run.emit is not None and "custom" in run.stream_modes
        else _noop
    )
    return Runtime(
        context=run.context, store=run.store, stream_writer=writer, previous=run.previous
    )
