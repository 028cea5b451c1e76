"""A façade node as an engine node: each activation requests one effect, "run this task";
the task's outcome comes back as `EffectCompleted` and becomes writes, control and a
disposition. A sync task alone in its superstep runs inline instead (no effect round trip),
and its outcome reaches the run's observer through `GraphRun.inline_results`. Interrupts
suspend the activation; `Resumed` runs the task again with the answers so far (LangGraph
re-runs an interrupted node from its first line).
"""

from __future__ import annotations

import contextvars
from contextvars import copy_context
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from superstep_compat._internal._constants import START
from superstep_compat.pregel._task import TaskRunner
from superstep_compat.pregel._task_context import TaskOutcome
from superstep_compat.pregel._task_support import as_seconds
from superstep_compat.types import RetryPolicy, Send
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
    NodeFn,
    Reaction,
    RemainActive,
    Resumed,
    Spawn,
    SuspendActivation,
)
from superstep_core.node import RetryPolicy as EngineRetryPolicy

if TYPE_CHECKING:
    from superstep_compat.pregel._run import GraphRun

__all__ = ["current_run_context", "engine_retry", "outcome_of", "task_node"]

current_run_context: contextvars.ContextVar[GraphRun | None] = contextvars.ContextVar(
    "superstep_compat_graph_run", default=None
)


def task_node(name: str, runner: TaskRunner) -> NodeFn:
    """The engine reducer of façade node ``name``."""

    timeout = runner.spec.nodes[name].timeout if name in runner.spec.nodes else None
    run_timeout = as_seconds(timeout.run_timeout) if timeout is not None else None
    idle_timeout = as_seconds(timeout.idle_timeout) if timeout is not None else None

    def react(ctx: NodeContext, event: Event) -> Reaction:
        # One function, not a dispatcher and a helper: a subgraph run inline inside a node
        # pays this frame once per nesting level (LangGraph reaches a depth of 160).
        if isinstance(event, Activated | External):
            # A Send's task takes the Send's arg as its whole input; any other activation
            # (an edge, a join, a goto) reads the state.
            payload = event.payload
            if isinstance(payload, Send):
                arg = payload.arg
                ctx.memory["push"] = _push_index(ctx)
            else:
                arg = payload if name == START else None
            ctx.memory["arg"] = arg
            # answers the activation already has: none, except for a task continued from a
            # checkpoint LangGraph wrote (its ``__resume__`` writes, see `_lgrestore`)
            resume = list(ctx.memory.get("resume") or [])
            ctx.memory["resume"] = resume
        elif isinstance(event, Resumed):
            resume = [*ctx.memory.get("resume", []), event.value]
            ctx.memory["resume"] = resume
            arg = ctx.memory.get("arg")
        elif isinstance(event, EffectCompleted):
            outcome = outcome_of(runner, name, event)
            if outcome is None:
                failure = event.error
                message = failure.message if failure else "task returned no outcome"
                return Reaction(disposition=FailActivation.permanent(message, "TaskError"))
            if outcome.memo:
                ctx.memory["memo"] = outcome.memo
            return settle(outcome)
        else:
            return Reaction(disposition=RemainActive())
        run = current_run_context.get()
        if run is None:
            raise RuntimeError(f"node {name!r} activated outside a façade run")
        run_ctx = run.task_context()
        if "push" in ctx.memory:  # a Send task (task_context() is a new context per task)
            run_ctx.push = ctx.memory["push"]
        values = ctx.state
        task_id = ctx.activation_id
        attempt = ctx.attempt
        memo = ctx.memory.get("memo")
        if run.saved and (saved := run.take_saved(name, task_id, values, arg)) is not None:
            return replay(run, ctx, saved)  # finished before its step failed: not run again
        if ctx.batch_size == 1 and not run.async_mode and ctx.attempt == 1:
            # Alone in its superstep: run the task here rather than as a "call" effect, which
            # would cost a host hand-off and a second superstep for the same result. Not a
            # retry: its result may wait for held siblings, so it must come as an event.
            if name == START:
                outcome = runner.run(name, values, arg, resume, run_ctx, task_id, attempt, memo)
            else:  # `TaskRunner.run` without its frame (see above)
                outcome = copy_context().run(
                    runner._run_node,
                    runner.spec.nodes[name],
                    values,
                    arg,
                    resume,
                    run_ctx,
                    task_id,
                    attempt,
                    False,
                    memo,
                )
            run.inline_results.append((task_id, outcome))
            if outcome.memo:
                ctx.memory["memo"] = outcome.memo
            return settle(outcome)
        if run.async_mode:

            async def call_async() -> TaskOutcome:
                return await runner.arun(name, values, arg, resume, run_ctx, task_id, attempt, memo)

            # the host stops the task at its run timeout, on the host's clock
            effect = Effect(
                "call", call_async, tag=name, timeout=run_timeout, idle_timeout=idle_timeout
            )
        else:

            def call() -> TaskOutcome:
                return runner.run(name, values, arg, resume, run_ctx, task_id, attempt, memo)

            effect = Effect("call", call, tag=name)
        return Reaction(effects=[effect], disposition=RemainActive())

    return react


def outcome_of(runner: TaskRunner, name: str, event: EffectCompleted) -> TaskOutcome | None:
    """The task outcome an effect's result stands for: the outcome itself, or for a task the
    host stopped at its timeout, LangGraph's `NodeTimeoutError` (retried as its policies
    say); ``None`` for anything else."""
    if isinstance(event.result, TaskOutcome):
        return event.result
    failure = event.error
    if failure is not None and failure.type == "EffectTimeoutError":
        if failure.timeout == "idle":
            return runner.timed_out(name, failure.elapsed or 0.0, "idle")
        return runner.timed_out(name, failure.elapsed or 0.0, "run")
    return None


def replay(run: GraphRun, ctx: NodeContext, outcome: TaskOutcome) -> Reaction:
    """Hand back a saved outcome the way a run would: inline when the task is alone in its
    superstep, else as its effect's result, so its step still commits as one."""
    if ctx.batch_size == 1:
        run.inline_results.append((ctx.activation_id, outcome))
        return settle(outcome)

    async def saved() -> TaskOutcome:
        return outcome

    effect = Effect("call", saved if run.async_mode else lambda: outcome, tag=ctx.node)
    return Reaction(effects=[effect], disposition=RemainActive())


_push_counters: WeakKeyDictionary[Any, list[int]] = WeakKeyDictionary()


def _push_index(ctx: NodeContext) -> int:
    """The index of this `Send` task among its superstep's (LangGraph's push task path).
    The engine runs a superstep's spawned activations after the others, in the order they
    were spawned, which is the order LangGraph numbers them in."""
    run = current_run_context.get()
    if run is None:
        return 0  # outside a run: `request` reports it
    counter = _push_counters.get(run)
    if counter is None or counter[0] != ctx.step:
        counter = [ctx.step, 0]
        _push_counters[run] = counter
    index = counter[1]
    counter[1] += 1
    return index


def settle(outcome: TaskOutcome) -> Reaction:
    """Turn a task's outcome into the node's reaction."""
    if outcome.error is not None:
        error = outcome.error
        policy = outcome.retry
        if policy is None:
            failure = Failure(FailureClass.PERMANENT, str(error), type(error).__name__)
        else:  # the failure carries the policy that matched it: the engine retries with it
            retry = engine_retry(policy)
            failure = Failure(FailureClass.RETRYABLE, str(error), type(error).__name__, retry)
        return Reaction(disposition=FailActivation(failure))
    if outcome.waiting:
        return Reaction(disposition=SuspendActivation(outcome.interrupts))
    control: list[ControlAction] = [Activate(goto) for goto in outcome.gotos]
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
