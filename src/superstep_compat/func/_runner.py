"""The task of an entrypoint's node: call the user's function with its input, `previous` and
the injectables it declares, with a `RootScope` bound so its `@task` calls are memoised (and,
with a checkpointer, saved as they finish through the run's `TaskJournal`).

The function's input is the payload of the input event; ``previous`` is the committed value
of the ``__previous__`` channel. A return value is written to ``__end__`` (what the caller
and `get_state` see) and to ``__previous__``; `entrypoint.final` splits the two.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from contextvars import copy_context
from functools import partial
from typing import Any

from langchain_core.runnables.config import var_child_runnable_config

from superstep_compat._internal._constants import CONFIG_KEY_RUNTIME, CONFIG_KEY_STREAM_MESSAGES_V2
from superstep_compat._internal._merge import merge_configs
from superstep_compat._internal.context import task_context_var
from superstep_compat.func._journal import TaskJournal
from superstep_compat.func._scope import RootScope, scope_var
from superstep_compat.graph._spec import GraphSpec
from superstep_compat.pregel._callbacks import TaskRun
from superstep_compat.pregel._messages import MessagesHandler, MessagesHandlerV2, attach
from superstep_compat.pregel._node import outcome_of, settle, task_effect
from superstep_compat.pregel._task import TaskCall, TaskRunner
from superstep_compat.pregel._task_context import (
    RunContext,
    TaskOutcome,
    _answers,
    _current_run,
    task_uuid,
)
from superstep_compat.pregel._task_support import _close as close_run
from superstep_compat.pregel._task_support import (
    _noop_heartbeat,
    _ProgressHandler,
    as_seconds,
    no_sync_function,
    note_task,
)
from superstep_compat.runtime import Runtime
from superstep_compat.types import Interrupt
from superstep_core.channel import MISSING, Channel
from superstep_core.host import current_heartbeat
from superstep_core.host import heartbeat as _heartbeat
from superstep_core.node import (
    Activated,
    Effect,
    EffectCompleted,
    Event,
    External,
    FailActivation,
    NodeContext,
    NodeFn,
    OneShotEffect,
    Reaction,
    RemainActive,
    Resumed,
)
from superstep_core.twin import Block, Twin, adrive, drive

__all__ = ["END_CHANNEL", "PREVIOUS_CHANNEL", "START_CHANNEL", "EntrypointRunner", "entry_node"]

START_CHANNEL = "__start__"
END_CHANNEL = "__end__"
PREVIOUS_CHANNEL = "__previous__"


class EntrypointRunner(TaskRunner):
    """Runs the one node of an entrypoint graph (see the module docstring)."""

    def __init__(
        self,
        spec: GraphSpec,
        strategies: Mapping[str, Channel],
        *,
        durable: bool,
        cache: Any,
        final_type: type,
    ) -> None:
        super().__init__(spec, strategies)
        self.node = next(iter(spec.nodes.values()))
        self.durable = durable
        self.cache = cache
        self.final_type = final_type

    def input_writes(self, value: Any) -> list[tuple[str, Any]]:
        return [(START_CHANNEL, value)]

    def run(self, call: TaskCall, journal: TaskJournal | None = None) -> TaskOutcome:
        if self.node.is_async:
            return TaskOutcome(error=no_sync_function(call.name))
        return copy_context().run(drive, self._body(call, journal))

    def blocks(self, name: str) -> bool:
        """A sync entrypoint's body blocks a thread: the async host runs it on a worker."""
        return not self.node.is_async

    async def arun(self, call: TaskCall, journal: TaskJournal | None = None) -> TaskOutcome:
        if not self.node.is_async:  # the async host performs a sync body with `run` instead
            return copy_context().run(drive, self._body(call, journal))
        body = adrive(self._body(call, journal))
        return await asyncio.get_running_loop().create_task(body, context=copy_context())

    # --- one call ------------------------------------------------------------------------

    def _scope(self, call: TaskCall, journal: TaskJournal | None) -> RootScope:
        """The function's `RootScope` (its run context with the committed ``previous``)."""
        _, values, _, resume, run, task_id, _, memo = call
        previous = values.get(PREVIOUS_CHANNEL, MISSING)
        run = dataclasses.replace(run, previous=None if previous is MISSING else previous)
        return RootScope(
            _answers(resume),  # not the "run again" resumptions: no interrupt takes those
            f"{self.node.name}:{task_uuid(run, task_id)}",  # LangGraph's task namespace
            run,
            self.node.name,
            memo,
            durable=self.durable,
            cache=self.cache,
            journal=journal,
            unslotted=True,
        )

    def _bind(self, root: RootScope, call: TaskCall) -> dict[str, Any]:
        """Open the function's run (its callbacks' ``on_chain_start``) and bind its context
        variables; returns the injectables it declares."""
        run, arg, task_id, resume = root.run, call.arg, call.task_id, call.resume
        node = self.node
        # the function's namespace names its LangGraph task id, as its interrupts' do
        uid = task_uuid(run, task_id)
        config = self._task_config(node, run, uid, resume)
        # the input triggers the function directly (LangGraph's entrypoint node)
        config["metadata"] = {**config["metadata"], "langgraph_triggers": (START_CHANNEL,)}
        if run.emit is not None and "messages" in run.stream_modes:
            # the chat models the function and its task calls run stream their tokens, as a
            # graph node's do (its task calls' configs are made from this one)
            v2 = (run.config.get("configurable") or {}).get(CONFIG_KEY_STREAM_MESSAGES_V2)
            handler = (MessagesHandlerV2 if v2 else MessagesHandler)(
                run.emit, config, run.subgraphs
            )
            handler.see(arg)
            config = attach(config, handler)
            root.handler = handler
        if config.get("callbacks"):
            # the function is a callback run of the graph's, as a node is (`_call_*` end it)
            run.trace, config = TaskRun.start(config, node.name, arg, run.step)
        limits = node.timeout
        run.timeout = limits  # what `get_runtime()` reads (the run context is the task's own)
        if limits is not None and limits.idle_timeout is not None and limits.refresh_on == "auto":
            # as a node's: any LangChain callback event inside the function is progress
            beat = _ProgressHandler(current_heartbeat())
            config = merge_configs(config, {"callbacks": [beat]})  # type: ignore[arg-type]
        writer = self._writer(run, self.node.timeout)
        # the function's runtime, as a graph node's: its execution info (checkpoint, task
        # namespace and id, thread, attempt) too, and under LangGraph's key, where
        # `get_runtime()` and the graphs the function invokes find it
        base = self._base_of(run.config)
        configurable = config["configurable"]
        info = self._execution_info(node, run, configurable, uid, call.attempt, base.run_id)
        runtime: Runtime[Any] = Runtime(
            context=run.context,
            store=run.store,
            stream_writer=writer,
            previous=run.previous,
            control=run.control,
            heartbeat=_heartbeat if node.timeout is not None else _noop_heartbeat,
        )._for_task(info, base.server)
        configurable[CONFIG_KEY_RUNTIME] = runtime
        var_child_runnable_config.set(config)  # type: ignore[arg-type]
        task_context_var.set(root)
        _current_run.set((run, config))
        scope_var.set(root.body)
        return self._kwargs(run, config, writer, runtime)

    def _kwargs(
        self, run: RunContext, config: dict[str, Any], writer: Any, runtime: Runtime[Any]
    ) -> dict[str, Any]:
        accepts = self.node.accepts
        injected: dict[str, Callable[[], Any]] = {
            "config": lambda: config,
            "writer": lambda: writer,
            "store": lambda: run.store,
            "previous": lambda: run.previous,
            "runtime": lambda: runtime,
        }
        return {name: make() for name, make in injected.items() if name in accepts}

    def _body(self, call: TaskCall, journal: TaskJournal | None) -> Twin[TaskOutcome]:
        """One run of the function, written once for a sync body (`drive`n on this thread)
        and an async one (`adrive`n on the loop), in the task's own context: bind the
        task's scope, call the function, wait for the `@task` calls it left running."""
        root = self._scope(call, journal)
        try:
            go = self._started(root, call.arg, call.task_id)
            if go is not None:  # a root stream's consumer pulls the start before the body runs
                yield Block(go.wait, go.until)
            # the function's callback run opens once its start is out, as LangGraph launches
            # (and so calls back) a task only after its start chunk was pulled
            kwargs = self._bind(root, call)
            result: Any = None
            try:
                result = self.node.action(call.arg, **kwargs)
                result = yield Block(_as_is, _awaited, (result,))
                outcome = self._returned(result)
            except BaseException as e:
                note_task(e, f"{self.node.name}:{task_uuid(root.run, call.task_id)}")
                outcome = self._failure(self.node, e)
            streamed = self._stream(root, outcome, result)
            yield Block(root.wait, root.await_all)
            if streamed:
                yield Block(_nothing, _loop_turns)
            return self._settle(root, outcome, result, streamed=streamed)
        finally:
            root.end()

    def _started(self, root: RootScope, arg: Any, task_id: str) -> Any:
        """Announce the task's start (through the run's `StartGate` when it orders them);
        returns what the body waits on before it runs (a `Go`), or None."""
        name = self.node.name
        start = {"id": task_uuid(root.run, task_id), "name": name, "input": arg}
        payload = {**start, "triggers": (START_CHANNEL,)}
        started = root.run.started
        if started is None:
            root.emit_task("task", payload)
            return None
        return started(task_id, partial(root.emit_task, "task", payload))

    def _returned(self, result: Any) -> TaskOutcome:
        if isinstance(result, self.final_type):
            final: Any = result
            value, save = final.value, final.save
        else:
            value = save = result
        return TaskOutcome(writes=[(END_CHANNEL, value), (PREVIOUS_CHANNEL, save)], update=value)

    def _stream(self, root: RootScope, outcome: TaskOutcome, result: Any) -> bool:
        """Stream the function's return value to the callback run as it returns (before its
        leftover task calls are awaited and the run ends), as LangGraph's node stream does;
        whether it did."""
        trace = root.run.trace
        if trace is None or outcome.error is not None or outcome.interrupts:
            return False
        trace.stream(result)
        return True

    def _settle(
        self, root: RootScope, outcome: TaskOutcome, result: Any, *, streamed: bool = False
    ) -> TaskOutcome:
        interrupts: Sequence[Interrupt[Any]] = outcome.interrupts
        if interrupts:
            root.surfaced(interrupts)
        elif outcome.error is None and root.handler is not None:
            for _, value in outcome.writes:  # the messages it returned, as a node's
                root.handler.emit_returned(value)
        if root.run.trace is not None:
            close_run(root.run.trace, result, outcome, streamed=streamed)
        outcome.memo = root.memo or None
        return outcome


def _as_is(value: Any) -> Any:
    return value


def _nothing() -> None:
    return None


async def _loop_turns() -> None:
    """Let the event loop run a few turns between streaming an async function's return
    value and ending its run. LangGraph streams a node's output through LangChain's
    Runnable stream machinery (a task per chunk), so what the run's stream consumer was
    woken for just before the function returned (the update of the task call it awaited
    last) reaches the caller before the node's run ends; these turns keep that order."""
    for _ in range(_TURNS):
        await asyncio.sleep(0)


_TURNS = 2


async def _awaited(value: Any) -> Any:
    """An async body's return value: awaited when it is awaitable."""
    return await value if inspect.isawaitable(value) else value


def entry_node(runner: EntrypointRunner) -> NodeFn:
    """The engine reducer of an entrypoint's node: the input event's payload is the
    function's input; each activation requests one effect of the registered task kind (see
    `_work`), "run the function"; `Resumed` runs it again with the answers so far and the
    memo of finished task calls. The entrypoint's timeout limits each run of the function
    as a node's does (the host stops it; LangGraph's `NodeTimeoutError`)."""

    node = runner.node
    limits = node.timeout
    run_timeout = as_seconds(limits.run_timeout) if limits is not None else None
    idle_timeout = as_seconds(limits.idle_timeout) if limits is not None else None

    def request(ctx: NodeContext, event: Event) -> Effect | Reaction:
        if isinstance(event, Activated | External):
            ctx.memory["arg"] = event.payload
            # none on a first attempt; a retry keeps the answers already given
            resume = ctx.memory["resume"] = list(ctx.memory.get("resume") or ())
            return task_effect(
                ctx, event.payload, resume, timeout=run_timeout, idle_timeout=idle_timeout
            )
        if isinstance(event, Resumed):
            resume = [*ctx.memory.get("resume", []), event.value]
            ctx.memory["resume"] = resume
            return task_effect(
                ctx, ctx.memory.get("arg"), resume, timeout=run_timeout, idle_timeout=idle_timeout
            )
        return Reaction(disposition=RemainActive())

    def settled(ctx: NodeContext, event: EffectCompleted) -> Reaction:
        outcome = outcome_of(runner, node.name, event)
        if outcome is None:
            failure = event.error
            message = failure.message if failure else "entrypoint returned no outcome"
            return Reaction(disposition=FailActivation.permanent(message, "TaskError"))
        if outcome.memo:
            ctx.memory["memo"] = outcome.memo
        return settle(outcome)

    return OneShotEffect(request, settled)
