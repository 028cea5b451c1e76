"""`langgraph.runtime`: `Runtime`, injected into nodes that declare ``runtime``, and
`get_runtime()`; `RunControl`, a run's cooperative drain switch."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from superstep_core.host import StopRequest

__all__ = [
    "DEFAULT_RUNTIME",
    "ExecutionInfo",
    "RunControl",
    "Runtime",
    "ServerInfo",
    "get_runtime",
]

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


class RunControl(StopRequest):
    """One run's drain switch (pass it as ``control=`` to invoke/stream and their async
    twins; nodes read it as ``runtime.control``). After `request_drain` the run finishes the
    step in progress, saves its checkpoint and raises `GraphDrained`; ``invoke(None,
    config)`` continues the thread later. It is the engine's `StopRequest`: the host checks it
    between supersteps. Safe to call from any thread; a control stays drained, so give each
    run a new one."""

    __slots__ = ()

    def request_drain(self, reason: str = "shutdown") -> None:
        """Stop the run after its current step (``reason`` names why, in `GraphDrained`)."""
        self.request(reason)

    @property
    def drain_requested(self) -> bool:
        """Whether `request_drain` was called."""
        return self.requested

    @property
    def drain_reason(self) -> str | None:
        """The reason given to `request_drain`, None before it was called."""
        return self.reason


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
            control=other.control or self.control,
        )


DEFAULT_RUNTIME: Runtime[Any] = Runtime()
"""The runtime of a run given nothing: no context, no store, writers that do nothing."""


def get_runtime(context_schema: Any = None) -> Runtime[Any]:
    """The `Runtime` of the running node; RuntimeError outside a run."""
    from superstep_compat.pregel._task_context import current_run

    found = current_run()
    if found is None:
        raise RuntimeError("Called get_runtime outside of a runnable context")
    run, config = found
    writer: Any = _noop
    if run.emit is not None and "custom" in run.stream_modes:
        from superstep_compat.func._scope import call_namespace

        # without subgraphs=True the chunk is shown as it is (a namespace would hide it)
        caller_ns = (config.get("configurable") or {}).get("checkpoint_ns") or ""
        ns = call_namespace(caller_ns) if run.subgraphs else ()
        # `run.emit` is read at each write: the run may rebind it while the node runs
        writer = (
            (lambda chunk: run.emit("custom", chunk, ns))  # type: ignore[misc,call-arg]
            if ns
            else (lambda chunk: run.emit("custom", chunk))  # type: ignore[misc]
        )
    return Runtime(
        context=run.context,
        store=run.store,
        stream_writer=writer,
        previous=run.previous,
        control=run.control,
    )
