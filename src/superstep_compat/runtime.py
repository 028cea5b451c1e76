"""`langgraph.runtime`: `Runtime`, injected into nodes that declare ``runtime``, and
`get_runtime()`; `RunControl`, a run's cooperative drain switch."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Generic, Protocol, TypeVar, cast

from superstep_compat._internal._constants import CONF, CONFIG_KEY_RUNTIME
from superstep_core.frozen import quick_init
from superstep_core.host import StopRequest, heartbeat
from superstep_core.host.deadlines import deadline_stop

# CONFIG_KEY_RUNTIME is importable from here as in LangGraph (deepagents' tests set a
# node's runtime in a config by it), not part of __all__ there either.
__all__ = [
    "DEFAULT_RUNTIME",
    "ExecutionInfo",
    "RunControl",
    "Runtime",
    "ServerInfo",
    "get_runtime",
]

ContextT = TypeVar("ContextT")


class CancelEvent(Protocol):
    """What cancels a `RunControl` made with it once set (a `threading.Event`)."""

    def is_set(self) -> bool: ...


def _noop(*_: Any, **__: Any) -> None:
    return None


@quick_init
@dataclass(frozen=True, slots=True)
class ExecutionInfo:
    """Where a task runs (LangGraph's read-only execution info): the checkpoint its step
    runs from, its namespace (``node:<task id>``, its subgraphs' joined by ``|``), its task
    id, the thread (None without a checkpointer), the config's ``run_id``, its attempt
    (1-based) and when its first attempt started (seconds since the epoch)."""

    checkpoint_id: str
    checkpoint_ns: str
    task_id: str
    thread_id: str | None = None
    run_id: str | None = None
    node_attempt: int = 1
    node_first_attempt_time: float | None = None

    def patch(self, **overrides: Any) -> ExecutionInfo:
        """A copy with ``overrides`` replaced."""
        return replace(self, **overrides)


class RunControl(StopRequest):
    """One run's drain switch (pass it as ``control=`` to invoke/stream and their async
    twins; nodes read it as ``runtime.control``). After `request_drain` the run finishes the
    step in progress, saves its checkpoint and raises `GraphDrained`; ``invoke(None,
    config)`` continues the thread later. It is the engine's `StopRequest`: the host checks it
    between supersteps. Safe to call from any thread; a control stays drained, so give each
    run a new one.

    Superstep adds a cancel (`request_cancel`, or setting the ``cancel`` event it was made
    with, as the server's run cancel does): whoever drives the run is abandoning it. A
    cancel does not stop the run by itself (its driver does: closes its stream, cancels its
    task); it decides what stopping keeps. A run stopped inside a step keeps the writes of
    the step's tasks that finished (pending writes: continuing the thread does not run them
    again), but not of those that finished after the cancel, as if they had been cancelled
    with it (LangGraph's server cancels a run's asyncio task: such a task never ends)."""

    __slots__ = ("_cancel", "_cancelled")

    def __init__(self, cancel: CancelEvent | None = None) -> None:
        super().__init__()
        self._cancel = cancel  # an event set elsewhere (a server's cancel flag), or None
        self._cancelled = False

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

    def request_cancel(self) -> None:
        """Cancel the run: a task of its step in progress that ends from now on is not the
        run's (see the class's docstring). Its driver still has to stop it."""
        self._cancelled = True  # one attribute written once: no lock, as `request_drain`

    @property
    def cancel_requested(self) -> bool:
        """Whether the run was cancelled (`request_cancel`, or its ``cancel`` event set)."""
        cancel = self._cancel
        return self._cancelled or (cancel is not None and cancel.is_set())


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

    @property
    def drain_requested(self) -> bool:
        """Whether the run's `RunControl` was asked to drain (False without a control): a
        node polls it to stop long work early, as with LangGraph's runtime."""
        control = self.control
        return bool(control.drain_requested) if control is not None else False

    @property
    def drain_reason(self) -> str | None:
        """The reason the run's `RunControl` was given to drain; None when it was not (or
        there is no control)."""
        control = self.control
        return control.drain_reason if control is not None else None

    def override(self, **changes: Any) -> Runtime[ContextT]:
        """A copy with ``changes`` (field names) replaced; TypeError for a name that is not
        a field, as `dataclasses.replace` gives."""
        if type(self) is not Runtime or not _RUNTIME_FIELDS.issuperset(changes):
            return replace(self, **changes)
        # a frozen instance's attributes live in its __dict__: copied at C level, where
        # `replace` gathers every field by name and runs the generated __init__ (each task
        # overrides the run's shared runtime: a few percent of a plain node)
        new = object.__new__(Runtime)
        attrs = new.__dict__
        attrs.update(self.__dict__)
        attrs.update(changes)
        return new

    def _for_task(self, info: ExecutionInfo, server: Any) -> Runtime[ContextT]:
        """``override(execution_info=info, server_info=server)``, as each task makes its own
        from the run's shared runtime (a copy of the attributes, without keyword handling)."""
        if type(self) is not Runtime:
            return replace(self, execution_info=info, server_info=server)
        new = object.__new__(Runtime)
        attrs = new.__dict__
        attrs.update(self.__dict__)
        attrs["execution_info"] = info
        attrs["server_info"] = server
        return new

    def merge(self, other: Runtime[Any]) -> Runtime[ContextT]:
        return replace(
            self,
            context=other.context or self.context,
            store=other.store or self.store,
            previous=other.previous or self.previous,
            execution_info=other.execution_info or self.execution_info,
            server_info=other.server_info or self.server_info,
            control=other.control or self.control,
        )

    def patch_execution_info(self, **overrides: Any) -> Runtime[ContextT]:
        """A copy whose `execution_info` has ``overrides`` replaced; ValueError before it
        was set."""
        if self.execution_info is None:
            raise ValueError("Cannot patch execution_info before it has been set")
        return replace(self, execution_info=self.execution_info.patch(**overrides))


_RUNTIME_FIELDS = frozenset(f.name for f in fields(Runtime))


def server_info_of(configurable: Mapping[str, Any]) -> ServerInfo | None:
    """LangGraph's `ServerInfo` of a run: the ``assistant_id``/``graph_id`` the server puts
    in the configurable and its authenticated user (``langgraph_auth_user``, anything with an
    ``identity``); None when none of them is there."""
    assistant_id = configurable.get("assistant_id")
    graph_id = configurable.get("graph_id")
    user = configurable.get("langgraph_auth_user")
    if user is not None and not hasattr(user, "identity"):
        user = None
    if assistant_id is None and graph_id is None and user is None:
        return None
    return ServerInfo(
        assistant_id=str(assistant_id) if assistant_id else "",
        graph_id=str(graph_id) if graph_id else "",
        user=user,
    )


DEFAULT_RUNTIME: Runtime[Any] = Runtime()
"""The runtime of a run given nothing: no context, no store, writers that do nothing."""


def get_runtime(context_schema: Any = None) -> Runtime[Any]:
    """The `Runtime` of the running node, as the one a node declaring ``runtime`` gets: its
    heartbeat and execution info, and under an idle limit refreshed "auto"matically its
    stream writer's chunks are progress. Outside a run, as LangGraph: the one under
    ``CONFIG_KEY_RUNTIME`` in the context's runnable config (None if it has none, KeyError
    if that config has no ``configurable``); RuntimeError without such a config."""
    from superstep_compat.pregel._task_context import current_run

    found = current_run()
    if found is None:
        # Outside a run LangGraph reads the runnable config set in the context (tests of
        # libraries set one by hand): the runtime under its key, None without one.
        from langchain_core.runnables.config import var_child_runnable_config

        outer = var_child_runnable_config.get()
        if not outer:
            # LangGraph reads the runtime through get_config, whose error names get_config
            raise RuntimeError("Called get_config outside of a runnable context")
        return cast(Runtime[Any], outer[CONF].get(CONFIG_KEY_RUNTIME))
    run, config = found
    limits = run.timeout
    progress = limits is not None and limits.refresh_on == "auto"
    writer: Any = _progress if progress else _noop
    if run.emit is not None and "custom" in run.stream_modes:
        from superstep_compat.func._scope import call_namespace

        # without subgraphs=True the chunk is shown as it is (a namespace would hide it)
        caller_ns = (config.get("configurable") or {}).get("checkpoint_ns") or ""
        ns = call_namespace(caller_ns) if run.subgraphs else ()

        # `run.emit` is read at each write: the run may rebind it while the node runs
        def writer(chunk: Any) -> None:
            if limits is not None and deadline_stop() is not None:
                return  # written after the host stopped the attempt at its limit: dropped
            if progress:
                _progress(chunk)
            if ns:
                run.emit("custom", chunk, ns)  # type: ignore[misc,call-arg]
            else:
                run.emit("custom", chunk)  # type: ignore[misc]

    task_runtime = (config.get("configurable") or {}).get(CONFIG_KEY_RUNTIME)
    if not isinstance(task_runtime, Runtime):
        task_runtime = DEFAULT_RUNTIME
    info = task_runtime.execution_info
    if info is not None:
        from superstep_compat.func._scope import CallScope, scope_var

        scope = scope_var.get(None)
        if isinstance(scope, CallScope):  # inside a `@task` call: that task's own
            info = scope.execution_info(info)
    return Runtime(
        context=run.context,
        store=run.store,
        stream_writer=writer,
        heartbeat=task_runtime.heartbeat,
        previous=run.previous,
        control=run.control,
        execution_info=info,
        server_info=task_runtime.server_info,
    )


def _progress(_: Any) -> None:
    """A custom chunk written under an idle limit refreshed "auto"matically: progress."""
    heartbeat()
