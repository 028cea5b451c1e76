"""The one-shot task: what a task is, the steps its hooks return, and its node reducer.

A task is three hooks over the reducer model. ``run(ctx)`` starts it; ``on_result(ctx,
result)`` gets the result of the effect(s) it asked for; ``on_resume(ctx, value)`` gets the
answer to an `Interrupt` (an approval). Every hook returns a step:

- a mapping of channel updates (or ``None``, or `Done`): write them and complete;
- an `Effect`, or a list of effects (performed together): wait for the result(s);
- `Interrupt(value)`: suspend until someone resumes the execution with an answer;
- `Fail(message)`: fail the activation (retryable or not).

A failed effect fails the activation with the host's classification, so the node's
`RetryPolicy` and the host's backoff retry the whole task (the engine resets its memory; a
host ledger stands in for effects that already succeeded).

Uses only public names of graph-core (`superstep_core.node`). Must never import the runtime,
the host, persistence, llm or compat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeAlias

from superstep_core.node import (
    Activated,
    CompleteActivation,
    Effect,
    EffectCompleted,
    Event,
    FailActivation,
    NodeContext,
    NodeFn,
    Reaction,
    RemainActive,
    Resumed,
    RetryPolicy,
    SuspendActivation,
)

__all__ = [
    "Done",
    "Fail",
    "Interrupt",
    "Step",
    "Task",
    "TaskContext",
    "task_node",
]

Updates: TypeAlias = Mapping[str, Any] | Sequence[tuple[str, Any]]


@dataclass(frozen=True, slots=True)
class Done:
    """Complete the task: commit ``updates``; ``output`` goes to the tasks that run ``after``
    this one (``None``: the updates themselves)."""

    updates: Updates = field(default_factory=dict)
    output: Any = None


@dataclass(frozen=True, slots=True)
class Interrupt:
    """Suspend the task until the execution is resumed; ``value`` says what is asked (an
    approval request: the draft to approve, the action to confirm)."""

    value: Any = None


@dataclass(frozen=True, slots=True)
class Fail:
    """Fail the task. A retryable failure is retried under the task's `RetryPolicy`."""

    message: str
    error_type: str = "TaskError"
    retryable: bool = False


Step: TypeAlias = Mapping[str, Any] | Done | Effect | Sequence[Effect] | Interrupt | Fail | None
"""What a task hook returns (see the module docstring)."""


@dataclass(frozen=True, slots=True)
class TaskContext:
    """What a task hook sees. ``state``: the committed state of the superstep (read-only);
    ``inputs``: the outputs of the tasks this one runs ``after``, by task name; ``payload``:
    the activation's raw payload (the execution's input for a first task); ``attempt``:
    1-based; ``memory``: scratch space kept across this activation's steps and persisted with
    the execution (reset when the task is retried)."""

    task: str
    state: Mapping[str, Any]
    inputs: Mapping[str, Any]
    payload: Any
    attempt: int
    memory: dict[str, Any]


Hook: TypeAlias = Callable[[TaskContext, Any], Step]


def _output(ctx: TaskContext, result: Any) -> Step:
    return Done(output=result)


@dataclass(frozen=True, slots=True)
class Task:
    """A one-shot task: ``name`` (its node key), the hooks, the task names it runs ``after``
    (several: a join that waits for all of them), the engine ``retry`` policy, and the
    channels it ``writes`` (``None``: any). Without ``on_result`` the result becomes the
    output and nothing is written; without ``on_resume`` the answer does."""

    name: str
    run: Callable[[TaskContext], Step]
    on_result: Hook = _output
    on_resume: Hook = _output
    after: tuple[str, ...] = ()
    retry: RetryPolicy | None = None
    writes: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.after, str):
            raise TypeError(
                f"task {self.name!r}: after must be a sequence of task names, not the string "
                f"{self.after!r} (write after=({self.after!r},))"
            )
        object.__setattr__(self, "after", tuple(self.after))


# --- the reducer ---------------------------------------------------------------------------

_KEY = "__task__"  # this library's bookkeeping inside the node's memory


def task_node(task: Task) -> NodeFn:
    """The engine node reducer of ``task``: an ordinary ``(NodeContext, Event) -> Reaction``."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        # Copy on write: the runtime copies memory shallowly, and a superstep that does not
        # commit must leave the committed memory untouched.
        old = ctx.memory.get(_KEY) or {"user": {}, "inputs": {}, "payload": None, "waiting": []}
        own = {**old, "user": dict(old["user"]), "waiting": list(old["waiting"])}
        ctx.memory[_KEY] = own
        if isinstance(event, Activated):
            own["payload"] = event.payload
            own["inputs"] = _inputs(task.after, event.payload)
            return _step(task, own, task.run(_context(task, ctx, own)))
        if isinstance(event, EffectCompleted):
            return _on_effect(task, ctx, own, event)
        if isinstance(event, Resumed):
            return _step(task, own, task.on_resume(_context(task, ctx, own), event.value))
        return Reaction(disposition=RemainActive())

    react.__name__ = task.name
    return react


def _inputs(after: tuple[str, ...], payload: Any) -> dict[str, Any]:
    # One dependency arrives along an edge (payload = its output); several through a join
    # (payload = {source: output}).
    if len(after) == 1:
        return {after[0]: payload}
    if len(after) > 1 and isinstance(payload, Mapping):
        return dict(payload)
    return {}


def _context(task: Task, ctx: NodeContext, own: dict[str, Any]) -> TaskContext:
    return TaskContext(
        task.name, ctx.state, own["inputs"], own["payload"], ctx.attempt, own["user"]
    )


def _on_effect(
    task: Task, ctx: NodeContext, own: dict[str, Any], event: EffectCompleted
) -> Reaction:
    if event.error is not None:
        make = FailActivation.retryable if event.error.retryable else FailActivation.permanent
        message = f"task {task.name!r}: {event.error.message}"
        return Reaction(disposition=make(message, event.error.type))
    waiting: list[Any] = own["waiting"]
    waiting[int(event.tag)] = event.result
    own["left"] -= 1
    if own["left"]:
        return Reaction(disposition=RemainActive())
    result = waiting if own["many"] else waiting[0]
    own["waiting"] = []
    return _step(task, own, task.on_result(_context(task, ctx, own), result))


def _step(task: Task, own: dict[str, Any], step: Step) -> Reaction:
    if step is None:
        step = Done()
    if isinstance(step, Mapping):
        step = Done(step)
    if isinstance(step, Done):
        output = step.updates if step.output is None else step.output
        return Reaction(updates=step.updates, disposition=CompleteActivation(output))
    if isinstance(step, Interrupt):
        return Reaction(disposition=SuspendActivation(step.value))
    if isinstance(step, Fail):
        make = FailActivation.retryable if step.retryable else FailActivation.permanent
        return Reaction(disposition=make(f"task {task.name!r}: {step.message}", step.error_type))
    many = not isinstance(step, Effect)
    items: list[Any] = list(step) if not isinstance(step, Effect) else [step]
    effects = [e for e in items if isinstance(e, Effect)]
    if len(effects) != len(items) or not effects:
        raise TypeError(
            f"task {task.name!r} returned {step!r}: a hook returns updates (a mapping), Done, "
            f"an Effect or a non-empty list of effects, Interrupt or Fail"
        )
    # The tag carries the slot, so results that arrive in any order land in place.
    own.update(waiting=[None] * len(effects), left=len(effects), many=many)
    tagged = [replace(e, tag=str(i)) for i, e in enumerate(effects)]
    return Reaction(effects=tagged, disposition=RemainActive())
