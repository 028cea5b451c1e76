"""A façade node as an engine node: each activation requests one effect of the registered
kind `TASK_KIND`, described by a plain-data `TaskRequest` (see `_work`); the task's outcome
comes back as `EffectCompleted` and becomes writes, control and a disposition. The reducer
runs no user code and needs nothing from the run that drives it, so a replay of the engine's
input log rebuilds the run without calling the node again. Interrupts suspend the
activation; `Resumed` runs the task again with the answers so far (LangGraph re-runs an
interrupted node from its first line).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Literal

from superstep_compat._internal._constants import START
from superstep_compat.errors import NodeError
from superstep_compat.pregel._task import TaskRunner
from superstep_compat.pregel._task_context import TaskOutcome
from superstep_compat.pregel._task_support import as_seconds
from superstep_compat.pregel._work import TASK_KIND, TaskRequest
from superstep_compat.types import RetryPolicy, Send, TimeoutPolicy
from superstep_core.node import (
    Activate,
    Activated,
    CompleteActivation,
    ControlAction,
    Effect,
    EffectCompleted,
    EndBranch,
    Event,
    External,
    FailActivation,
    Failure,
    FailureClass,
    NodeContext,
    NodeFailed,
    NodeFn,
    OneShotEffect,
    Reaction,
    RemainActive,
    Resumed,
    Spawn,
    SuspendActivation,
)
from superstep_core.node import RetryPolicy as EngineRetryPolicy

__all__ = [
    "TASK_RETRY_KEEPS",
    "engine_retry",
    "outcome_of",
    "settle",
    "task_effect",
    "task_node",
]

TASK_RETRY_KEEPS = frozenset({"resume"})
"""What a façade task's next attempt after a failure keeps of its activation's memory
(`NodeSpec.retry_keeps`): the answers its interrupts were given. LangGraph keeps a task's
resume values across its attempts, so an answered interrupt is not asked again."""


def task_node(name: str, runner: TaskRunner) -> NodeFn:
    """The engine reducer of façade node ``name``: a one-shot effect node (each activation
    asks for its task, and settles on the task's outcome)."""

    timeout = runner.spec.nodes[name].timeout if name in runner.spec.nodes else None
    run_timeout = as_seconds(timeout.run_timeout) if timeout is not None else None
    idle_timeout = as_seconds(timeout.idle_timeout) if timeout is not None else None

    def request(ctx: NodeContext, event: Event) -> Effect | Reaction:
        # One function, not a dispatcher and a helper: a subgraph run inside a node pays
        # this frame once per nesting level (LangGraph reaches a depth of 160).
        memory = ctx.memory
        # (a tuple, not `Activated | External`: the union is a new object at every
        # evaluation, about 700 instructions per call)
        if isinstance(event, (Activated, External)):
            # A Send's task takes the Send's arg as its whole input; any other activation
            # (an edge, a join, a goto) reads the state.
            payload = event.payload
            if isinstance(payload, NodeFailed):
                # an error handler: the failed node's activation goes on as this node's
                # (see the engine's failure route), on the failed task's own input
                memory["failed"] = NodeError(payload.node, _cause(payload))
                payload = payload.payload
            if isinstance(payload, Send):
                arg = payload.arg
                memory["push"] = _push_index(ctx)
                if payload.timeout is not None:  # LangGraph: it replaces the node's limits
                    memory["timeout"] = payload.timeout
            else:
                arg = payload if name == START else None
            memory["arg"] = arg
            # answers the activation already has: none, except for a task continued from a
            # checkpoint LangGraph wrote (its ``__resume__`` writes, see `_lgrestore`)
            resume = list(memory.get("resume") or [])
            memory["resume"] = resume
        elif isinstance(event, Resumed):
            resume = [*memory.get("resume", []), event.value]
            memory["resume"] = resume
            arg = memory.get("arg")
        else:
            return Reaction(disposition=_REMAIN)
        # the host stops an async task at its run timeout, on the host's clock (a sync task
        # with a timeout fails before its first attempt, as in LangGraph)
        own = memory.get("timeout")
        if own is not None:  # a Send's own limits
            return task_effect(
                ctx,
                arg,
                resume,
                timeout=as_seconds(own.run_timeout),
                idle_timeout=as_seconds(own.idle_timeout),
            )
        return task_effect(ctx, arg, resume, timeout=run_timeout, idle_timeout=idle_timeout)

    def settled(ctx: NodeContext, event: EffectCompleted) -> Reaction:
        memory = ctx.memory
        outcome = event.result  # the usual result (`outcome_of`'s first case, inline)
        if type(outcome) is not TaskOutcome:
            outcome = outcome_of(runner, name, event, memory.get("timeout"))
        if outcome is None:
            failure = event.error
            message = failure.message if failure else "task returned no outcome"
            return Reaction(disposition=FailActivation.permanent(message, "TaskError"))
        if outcome.memo:
            memory["memo"] = outcome.memo
        return settle(outcome)

    return OneShotEffect(request, settled)


def _cause(failed: NodeFailed) -> BaseException:
    """The exception a handler sees: the failed task's own, or (a failure whose exception
    was not kept) one standing for it, with its message."""
    if isinstance(failed.cause, BaseException):
        return failed.cause
    return Exception(failed.message)


def task_effect(
    ctx: NodeContext,
    arg: Any,
    resume: list[Any],
    *,
    timeout: float | None = None,
    idle_timeout: float | None = None,
) -> Effect:
    """The effect that asks the host to perform the activation's task, within the superstep
    (one LangGraph step is one engine superstep: the task's outcome is settled and committed
    in the superstep that started it)."""
    memory = ctx.memory
    request = TaskRequest(
        ctx.node,
        ctx.activation_id,
        ctx.state,
        arg,
        tuple(resume),
        ctx.attempt,
        memory.get("memo"),
        memory.get("push"),
        memory.get("failed"),
        memory.get("timeout"),
    )
    return Effect(TASK_KIND, request, ctx.node, timeout, idle_timeout, within_step=True)


_REMAIN = RemainActive()  # immutable: one instance serves every waiting activation


def outcome_of(
    runner: TaskRunner, name: str, event: EffectCompleted, limits: TimeoutPolicy | None = None
) -> TaskOutcome | None:
    """The task outcome an effect's result stands for: the outcome itself, or for a task the
    host stopped at its timeout, LangGraph's `NodeTimeoutError` (retried as its policies
    say) naming ``limits`` (a `Send`'s own; None: the node's); ``None`` for anything else."""
    if isinstance(event.result, TaskOutcome):
        return event.result
    failure = event.error
    if failure is not None and failure.type == "EffectTimeoutError":
        kind: Literal["run", "idle"] = "idle" if failure.timeout == "idle" else "run"
        return runner.timed_out(name, failure.elapsed or 0.0, kind, limits)
    return None


class _PushCounter(threading.local):
    """The `Send` tasks numbered so far in the superstep whose reducers this thread runs."""

    state: Mapping[str, Any] | None = None
    step = -1
    count = 0


_push_counter = _PushCounter()


def _push_index(ctx: NodeContext) -> int:
    """The index of this `Send` task among its superstep's (LangGraph's push task path).
    The engine runs a superstep's spawned activations after the others, in the order they
    were spawned, which is the order LangGraph numbers them in. A superstep's reducers all
    run on one thread, one after the other, and all see the same committed state object:
    that object and the step number tell the superstep apart from any other."""
    counter = _push_counter
    if counter.state is not ctx.state or counter.step != ctx.step:
        counter.state, counter.step, counter.count = ctx.state, ctx.step, 0
    index = counter.count
    counter.count += 1
    return index


def settle(outcome: TaskOutcome) -> Reaction:
    """Turn a task's outcome into the node's reaction."""
    if outcome.error is not None:
        error = outcome.error
        policy = outcome.retry
        # the exception travels as the failure's cause: an error handler receives it
        if policy is None:
            failure = Failure(FailureClass.PERMANENT, str(error), type(error).__name__, cause=error)
        else:  # the failure carries the policy that matched it: the engine retries with it
            retry = engine_retry(policy)
            failure = Failure(
                FailureClass.RETRYABLE, str(error), type(error).__name__, retry, cause=error
            )
        return Reaction(disposition=FailActivation(failure))
    if outcome.interrupts or outcome.stopped:  # `waiting`, without a property call
        return Reaction(disposition=SuspendActivation(outcome.interrupts))
    # (no comprehension for the usual task, which routes by its node's edges: no gotos)
    control: list[ControlAction] = (
        [Activate(goto) for goto in outcome.gotos] if outcome.gotos else []
    )
    if outcome.sends:
        control.extend(Spawn(send.node, send, new_lineage=False) for send in outcome.sends)
    if outcome.skip_edges:
        control.append(EndBranch())
    return Reaction(updates=outcome.writes, control=control, disposition=_COMPLETE)


_COMPLETE = CompleteActivation()  # immutable: one instance serves every activation

LANGGRAPH_JITTER = 1.0
"""LangGraph's jitter: up to one second added at random to each retry's wait."""


def engine_retry(policy: RetryPolicy) -> EngineRetryPolicy:
    """The engine's form of a LangGraph `RetryPolicy` (``retry_on`` stays with the façade,
    which picks the policy that matches a failure: LangGraph's "first match decides")."""
    return EngineRetryPolicy(
        max_attempts=policy.max_attempts,
        initial_interval=policy.initial_interval,
        backoff_factor=policy.backoff_factor,
        max_interval=policy.max_interval,
        jitter=LANGGRAPH_JITTER if policy.jitter else 0.0,
    )
