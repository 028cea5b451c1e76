"""Plain functions as graph nodes: the engine's own decorator form of a workflow.

    @functask(on=("doc.received",), emits=("doc.parsed",), writes=("text",))
    def parse(path):
        return TaskResult(updates={"text": read(path)}, emit=[Emit("doc.parsed", path)])

    workflow = entrypoint("docs", [parse, summarise], routes={"doc.received": "parse"})
    graph = build_function_graph(workflow).compile()

A `FuncTask` reacts to the events it listens to (``on``); each event starts one activation,
which asks the host to call the function (one ``"call"`` effect, so the work is recorded and
replayable like any other effect). The function's result becomes the activation's channel
updates and published events. `entrypoint` plans the graph and checks it before anything runs:
task ids are unique, routes name known tasks, every declared emitted event has a listener.
`build_function_graph` returns an ordinary `Graph` builder: a function workflow can be
visualised, persisted and replayed like any other graph.

Owns: `functask`, `FuncTask`, `Emit`, `TaskResult`, `FunctionWorkflow`, `entrypoint`,
`build_function_graph`.
Must never import: the runtime, the host, persistence, llm, compat.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from superstep_core.channel import Channel, LastValue
from superstep_core.errors import GraphValidationError
from superstep_core.graph import Graph
from superstep_core.node import (
    Activated,
    CompleteActivation,
    Effect,
    EffectCompleted,
    Event,
    External,
    FailActivation,
    Failure,
    FailureClass,
    NodeContext,
    NodeFn,
    Publish,
    Reaction,
    RemainActive,
    RequestTimer,
    TimerElapsed,
)

__all__ = [  # noqa: RUF022 - grouped by concept
    # declaring tasks
    "functask",
    "FuncTask",
    # what a task returns
    "Emit",
    "TaskResult",
    # planning and building
    "FunctionWorkflow",
    "entrypoint",
    "build_function_graph",
]

_TIMEOUT_TIMER = "functask-timeout"


@dataclass(frozen=True, slots=True)
class Emit:
    """An event a task publishes: routed to every task listening to ``name``."""

    name: str
    payload: Any = None


@dataclass(frozen=True, slots=True)
class TaskResult:
    """A task's channel ``updates`` plus the events it ``emit``s."""

    updates: Mapping[str, Any] = field(default_factory=dict)
    emit: Sequence[Emit] = ()


@dataclass(frozen=True, slots=True)
class FuncTask:
    """A plain function declared as a task. ``id`` is its node key (default: the function's
    name); ``kind`` a label kept in the node's metadata; ``on`` the event names it reacts to
    (none: it is a start task, activated with the execution's input); ``emits`` the events it
    may publish; ``writes`` the channels it may write (None: any); ``timeout`` seconds before
    an activation fails with ``TimeoutError`` (retryable).

    The task stays an ordinary callable: ``parse(path)`` calls the function.
    """

    fn: Callable[..., Any]
    id: str
    kind: str
    on: tuple[str, ...] = ()
    emits: tuple[str, ...] = ()
    writes: tuple[str, ...] | None = None
    timeout: float | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    @property
    def wants_state(self) -> bool:
        """Whether the function takes the committed state as a second positional argument."""
        try:
            params = inspect.signature(self.fn).parameters.values()
        except (TypeError, ValueError):
            return False
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return len(positional) >= 2


@overload
def functask(fn: Callable[..., Any], /) -> FuncTask: ...


@overload
def functask(
    fn: None = None,
    /,
    *,
    id: str | None = None,
    kind: str | None = None,
    on: Iterable[str] = (),
    emits: Iterable[str] = (),
    writes: Iterable[str] | None = None,
    timeout: float | None = None,
) -> Callable[[Callable[..., Any]], FuncTask]: ...


def functask(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    id: str | None = None,
    kind: str | None = None,
    on: Iterable[str] = (),
    emits: Iterable[str] = (),
    writes: Iterable[str] | None = None,
    timeout: float | None = None,
) -> FuncTask | Callable[[Callable[..., Any]], FuncTask]:
    """Declare a function as a task, bare (``@functask``) or with options.

    The function is called with the triggering event's payload (and the committed state, if
    it takes a second positional argument). It returns a mapping of channel updates, an
    `Emit`, a `TaskResult`, or None.
    """
    if isinstance(on, str) or isinstance(emits, str) or isinstance(writes, str):
        raise TypeError("functask: on=, emits= and writes= take a sequence of names, not a str")
    if timeout is not None and timeout <= 0:
        raise ValueError(f"functask: timeout must be positive seconds, got {timeout!r}")

    def declare(f: Callable[..., Any]) -> FuncTask:
        if not callable(f):
            raise TypeError(f"functask: expected a function, got {f!r}")
        name = id or str(getattr(f, "__name__", ""))
        if not name or name == "<lambda>":
            raise ValueError("functask: a lambda or unnamed callable needs id=")
        return FuncTask(
            fn=f,
            id=name,
            kind=kind or name,
            on=tuple(on),
            emits=tuple(emits),
            writes=None if writes is None else tuple(writes),
            timeout=timeout,
        )

    return declare(fn) if fn is not None else declare


@dataclass(frozen=True, slots=True)
class FunctionWorkflow:
    """A checked plan: the tasks, which event reaches which tasks, and the start tasks."""

    graph_id: str
    tasks: tuple[FuncTask, ...]
    routes: Mapping[str, tuple[str, ...]]
    start: tuple[str, ...]


def entrypoint(
    graph_id: str,
    tasks: Iterable[FuncTask],
    routes: Mapping[str, str | Sequence[str]] | None = None,
) -> FunctionWorkflow:
    """Plan a function workflow. ``routes`` adds event -> task id(s) deliveries to the ones
    the tasks declare with ``on``. Raises `GraphValidationError` naming the culprit for a
    duplicate or unknown task id, or a declared emitted event that no task listens to."""
    if not graph_id:
        raise GraphValidationError("entrypoint: graph_id must be a non-empty string")
    planned = tuple(tasks)
    if not planned:
        raise GraphValidationError(f"entrypoint {graph_id!r}: no tasks")
    ids: dict[str, FuncTask] = {}
    for t in planned:
        if not isinstance(t, FuncTask):
            raise GraphValidationError(
                f"entrypoint {graph_id!r}: {t!r} is not a task; decorate it with @functask"
            )
        if t.id in ids:
            raise GraphValidationError(f"entrypoint {graph_id!r}: task id {t.id!r} is used twice")
        ids[t.id] = t
    deliveries: dict[str, list[str]] = {}
    for t in planned:
        for event in t.on:
            deliveries.setdefault(event, []).append(t.id)
    for event, targets in (routes or {}).items():
        for target in (targets,) if isinstance(targets, str) else tuple(targets):
            if target not in ids:
                raise GraphValidationError(
                    f"entrypoint {graph_id!r}: route {event!r} -> {target!r} names an unknown "
                    f"task; known: {', '.join(sorted(ids))}"
                )
            if target not in deliveries.setdefault(event, []):
                deliveries[event].append(target)
    for t in planned:
        for event in t.emits:
            if event not in deliveries:
                raise GraphValidationError(
                    f"entrypoint {graph_id!r}: task {t.id!r} emits {event!r}, but no task "
                    "listens to it; add it to a task's on= or to routes="
                )
    routed = {target for targets in deliveries.values() for target in targets}
    start = tuple(t.id for t in planned if not t.on and t.id not in routed)
    return FunctionWorkflow(graph_id, planned, {k: tuple(v) for k, v in deliveries.items()}, start)


def build_function_graph(
    workflow: FunctionWorkflow,
    *,
    channels: Mapping[str, Channel] | None = None,
    version: str = "1",
) -> Graph:
    """The engine `Graph` builder of ``workflow``. ``channels`` declares the state; by
    default every channel a task declares in ``writes`` is a `LastValue`."""
    g = Graph(workflow.graph_id, version=version)
    if channels is None:
        names = sorted({c for t in workflow.tasks for c in (t.writes or ())})
        channels = {name: LastValue() for name in names}
    g.with_channels(channels)
    for t in workflow.tasks:
        g.add_node(
            t.id,
            task_reducer(t),
            writes=t.writes,
            may_activate=(),
            metadata={"kind": t.kind, "on": t.on, "emits": t.emits},
        )
    for event, targets in workflow.routes.items():
        for target in targets:
            g.route(event, None, target)
    if workflow.start:
        g.start_at(*workflow.start)
    return g


def task_reducer(task: FuncTask) -> NodeFn:
    """The node reducer of one task: event -> "call" effect -> updates and published events."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated | External):
            payload, state = event.payload, dict(ctx.state)
            if task.wants_state:

                def call() -> Any:
                    return task.fn(payload, state)

            else:

                def call() -> Any:
                    return task.fn(payload)

            timer = [RequestTimer(_TIMEOUT_TIMER, task.timeout)] if task.timeout is not None else []
            return Reaction(
                effects=[Effect("call", call, tag=task.id)],
                control=timer,
                disposition=RemainActive(),
            )
        if isinstance(event, TimerElapsed) and event.timer_id == _TIMEOUT_TIMER:
            message = f"task {task.id!r} did not finish within {task.timeout}s"
            failure = Failure(FailureClass.RETRYABLE, message, "TimeoutError")
            return Reaction(disposition=FailActivation(failure))
        if isinstance(event, EffectCompleted):
            if event.error is not None:
                cls = FailureClass.RETRYABLE if event.error.retryable else FailureClass.PERMANENT
                failure = Failure(cls, event.error.message, event.error.type)
                return Reaction(disposition=FailActivation(failure))
            return _settle(task, event.result)
        return Reaction(disposition=RemainActive())

    return react


def _settle(task: FuncTask, result: Any) -> Reaction:
    if result is None:
        result = TaskResult()
    elif isinstance(result, Emit):
        result = TaskResult(emit=(result,))
    elif isinstance(result, Mapping):
        result = TaskResult(updates=result)
    if not isinstance(result, TaskResult):
        return _fail(
            task,
            f"task {task.id!r} returned {type(result).__name__}; return a mapping of channel "
            "updates, an Emit, a TaskResult or None",
        )
    undeclared = [e.name for e in result.emit if e.name not in task.emits]
    if undeclared:
        return _fail(
            task,
            f"task {task.id!r} emitted {undeclared[0]!r}, which it does not declare; "
            f"add it to @functask(emits=...) (declared: {', '.join(task.emits) or 'none'})",
        )
    return Reaction(
        updates=dict(result.updates),
        control=[Publish(e.name, e.payload) for e in result.emit],
        disposition=CompleteActivation(),
    )


def _fail(task: FuncTask, message: str) -> Reaction:
    return Reaction(
        disposition=FailActivation(Failure(FailureClass.PERMANENT, message, "TypeError"))
    )
