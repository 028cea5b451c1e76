"""Running one LangGraph task: the work a façade node's effect performs.

A task reads the committed state through its input schema (or takes a `Send` argument),
calls the user's action with the injectables it declares, turns the return value into writes
and gotos, evaluates the node's conditional edges on its local view of the state (committed
state plus its own writes, as LangGraph does), and reports everything as a `TaskOutcome`.
Exceptions never escape: they travel in the outcome, so the caller can re-raise the very
object the user's code raised.

`TaskRunner` runs the action; reading the state and routing the result is its base
`_task_routing.TaskRouting`.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Mapping, Sequence
from contextvars import copy_context
from functools import partial
from typing import Any, Literal, NamedTuple, NoReturn

from superstep_compat._internal._constants import (
    CONFIG_KEY_READ,
    CONFIG_KEY_RUNTIME,
    CONFIG_KEY_SEND,
    CONFIG_KEY_STREAM_MESSAGES_V2,
    PULL,
    START,
)
from superstep_compat._internal._merge import merge_configs
from superstep_compat._internal._policies import TimeoutPolicy, sync_timeout_unsupported
from superstep_compat.errors import (
    GraphBubbleUp,
    GraphDrained,
    GraphInterrupt,
    NodeTimeoutError,
    ParentCommand,
)
from superstep_compat.graph._spec import NodeSpec
from superstep_compat.pregel._callbacks import TaskRun
from superstep_compat.pregel._messages import MessagesHandler, MessagesHandlerV2, attach
from superstep_compat.pregel._start_gate import StepAbandoned
from superstep_compat.pregel._task_config import RunBase, task_config
from superstep_compat.pregel._task_context import (
    CHILD_KEY,
    READ_STATE_KEY,
    SPARE_KEY,
    NodeParentCommand,
    RunContext,
    TaskOutcome,
    _answers,
    _bind,
    _now,
    _TaskContext,
    _unbind,
    task_uuid,
    with_spare_answers,
)
from superstep_compat.pregel._task_routing import TaskRouting
from superstep_compat.pregel._task_support import (
    _RUNNABLE_TYPES,
    _as_tuple,
    _cache_key,
    _close,
    _is_runnable,
    _node_cancelled,
    _noop,
    _noop_heartbeat,
    _own,
    _own_cancellation,
    _ProgressHandler,
    _runtime,
    acall_runnable,
    as_seconds,
    cache_entry,
    first_matching,
    from_cache_entry,
    invoke_steps,
    no_sync_function,
    note_task,
    sequence_steps,
)
from superstep_compat.pregel._timed_attempts import TimedAttempt, start_timed_attempt
from superstep_compat.pregel._tools import ToolsHandler
from superstep_compat.pregel.debug import task_payload
from superstep_compat.runtime import ExecutionInfo
from superstep_compat.types import Command
from superstep_core.host import Clock, current_heartbeat
from superstep_core.host import heartbeat as _heartbeat
from superstep_core.twin import Block, Twin, adrive, drive, picked

__all__ = ["TaskCall", "TaskRunner"]


class TaskCall(NamedTuple):
    """One task for a runner's `TaskRunner.run` or `TaskRunner.arun`: node ``name`` reads
    ``values`` (the committed state) or takes ``arg`` (a `Send`'s argument, the input), with
    ``resume`` the answers to its interrupts so far, in run context ``run``, as activation
    ``task_id`` on attempt ``attempt`` (1-based), given back ``memo`` (its finished `@task`
    calls). A named tuple: one is made per task."""

    name: str
    values: Mapping[str, Any]
    arg: Any
    resume: Sequence[Any]
    run: RunContext
    task_id: str
    attempt: int
    memo: dict[str, Any] | None = None


class TaskRunner(TaskRouting):
    """Builds and runs tasks for the nodes of one compiled graph."""

    def run(self, call: TaskCall) -> TaskOutcome:
        """Run ``call``'s node on this thread (an ``async def`` action fails with LangGraph's
        `TypeError`: it needs ``ainvoke``/``astream``), in a context of its own."""
        return copy_context().run(drive, self._task(call, False, True))

    async def arun(self, call: TaskCall) -> TaskOutcome:
        """Run ``call``'s node on the running event loop."""
        return await adrive(self._task(call, True, False))

    def blocks(self, name: str) -> bool:
        """Whether node ``name``'s task blocks a thread in an async run: a plain function (its
        own; a Runnable's ``ainvoke`` or a coroutine function runs on the loop). The async
        host then performs it on a worker thread, as LangGraph runs such a node in an
        executor."""
        node = self.spec.nodes.get(name)
        return node is not None and not node.is_async and not _is_runnable(node.action)

    def _task(self, call: TaskCall, in_loop: bool, scoped: bool) -> Twin[TaskOutcome]:
        """`run` and `arun`'s core: the start task's writes, or the node's task."""
        if call.name == START:
            return self._start_task(call.values, call.arg, call.run, call.task_id)
        node = self.spec.nodes[call.name]
        return (yield from self._node_task(node, *call[1:], in_loop, scoped))

    _run_base: RunBase | None = None

    def _base_of(self, config: dict[str, Any]) -> RunBase:
        """What every task of a run takes from the run's ``config`` (a run's own dict, never
        changed once its tasks run), worked out once per run config, not per task; the last
        one is kept (replaced whole, so runs on several threads see their own or work it
        out again)."""
        known = self._run_base
        if known is not None and known.config is config:
            return known
        base = RunBase(config)
        if known is not None and base.same_metadata(known):
            base.nodes = known.nodes  # the next invocation's: its nodes' metadata is the same
        self._run_base = base
        return base

    def _task_config(
        self, node: NodeSpec, run: RunContext, uid: str, resume: Sequence[Any]
    ) -> dict[str, Any]:
        """The config a task runs with (`task_config` over this run's `RunBase`)."""
        return task_config(self._base_of(run.config), self, node.name, run, uid, resume)

    def _node_task(
        self,
        node: NodeSpec,
        values: Mapping[str, Any],
        arg: Any,
        resume: Sequence[Any],
        run: RunContext,
        task_id: str,
        attempt: int,
        memo: dict[str, Any] | None,
        in_loop: bool,
        scoped: bool,
    ) -> Twin[TaskOutcome]:
        """Node ``node``'s task, written once for both lanes: `drive` runs it on this thread,
        `adrive` on the running loop (an ``async def`` action or a Runnable's ``ainvoke``
        awaited there). ``in_loop``: the run is an async one (a node's timeout is allowed;
        a sync run refuses it, as LangGraph). ``scoped``: the driver runs in a context of
        its own (``copy_context().run``) that ends with it, so the context variables the
        task binds need no unbinding.

        Two halves split at the start gate: the task's start (its input read, its cache
        looked up, its ``tasks``/``debug`` start announced) comes before the gate; its run
        (the node's callback run opened, its attempt timed, its action called) after it, as
        LangGraph yields a step's start chunks before it launches the step's tasks, whose
        callbacks then see their ``on_chain_start``. Never raises but for `StepAbandoned`
        (the stream closed before the node ran) or a cancellation from outside the task."""
        uid = task_uuid(run, task_id)
        # the run's `RunBase` looked up once per task (its config and its runtime's parts)
        last = self._run_base  # (`_base_of`'s usual case spelled out: no call per task)
        config = run.config
        base = last if last is not None and last.config is config else self._base_of(config)
        config = task_config(base, self, node.name, run, uid, resume)
        # a Send's own limits replace its node's (LangGraph 1.2)
        limits = run.timeout if run.timeout is not None else node.timeout
        run.timeout = limits  # what `get_runtime()` reads (the run context is the task's own)
        if limits is not None and not in_loop:  # LangGraph's check, before any attempt
            return TaskOutcome(error=sync_timeout_unsupported(node.name))
        try:
            state = arg if arg is not None else self.read(node.input_schema, values, run)
        except Exception as e:
            if arg is None:
                # the state failed the node's input schema (a node wrote a value a pydantic
                # state refuses): LangGraph names the task it was preparing
                e.add_note(f"Before task with name '{node.name}' and path '{(PULL, node.name)}'")
            return TaskOutcome(error=e)
        if run.push is not None:
            # A Send task's input is the Send's arg; LangGraph still lets it read the state
            # an edge would have given it (ToolNode does, for a bare list of tool calls).
            read_state = partial(self.read, node.input_schema, values, run)
            config["configurable"][READ_STATE_KEY] = read_state
        cache_key = _cache_key(node, state) if run.cache is not None else None
        hit = None
        if cache_key is not None:
            hit = run.cache.get([cache_key]).get(cache_key)
        announce = None
        emit = run.emit
        modes = run.stream_modes
        # once, not per retry; an error handler's task has a result but no start (LangGraph
        # schedules it inside the failed task's step, past the step's task announcements)
        if (
            emit is not None
            and ("tasks" in modes or "debug" in modes)
            and attempt == 1
            and not node.is_error_handler
        ):
            start = task_payload(
                uid,
                node.name,
                state,
                config["metadata"]["langgraph_triggers"],
                config,
            )
            announce = partial(_announce, emit, modes, start, run.step, run.clock)
        go = None
        if run.started is not None:
            # the run's gate orders the step's starts; a root stream's consumer pulls them
            # all before any node of the step runs (``go``, LangGraph's lazy stream)
            go = run.started(task_id, announce)
        elif announce is not None:
            announce()
        if hit is not None:
            # its writes and its routing, as the call made them; announced above first, as
            # LangGraph announces a step's tasks before it matches their cached writes
            cached = from_cache_entry(hit, self.edge_writes(node.name))
            if cached is not None:
                return cached
        if go is not None:
            # held until the consumer pulled the step's starts (a thread waits: a plain
            # function's task runs on a worker, never the loop's, see `blocks`); raises
            # `StepAbandoned` when the stream closed first: the node never runs
            yield Block(go.wait, go.until)
        # --- the task's run ---------------------------------------------------------------
        if config.get("callbacks"):
            run.trace, config = TaskRun.start(config, node.name, state, run.step, node.trace_policy)
        configurable = config["configurable"]
        info = self._execution_info(node, run, configurable, uid, attempt, base.run_id)
        # (an untimed task is never observed: no call for the usual task)
        timed = run.timed_attempt = (
            None if limits is None else start_timed_attempt(configurable, node.name, info, limits)
        )
        shared = None
        writer: Callable[[Any], None]
        if limits is None and timed is None:  # the usual task: nothing observes its progress
            heartbeat = _noop_heartbeat
            if emit is None or "custom" not in modes:
                writer = _noop
                # the step context's runtime, made once by its first task (its parts are
                # the template's: `_runtime` would compare six of them per task to find it)
                shared = run.shared_runtime
            else:
                writer = self._writer(run)
        else:
            heartbeat = _heartbeat if limits is not None else _noop_heartbeat
            if timed is not None:
                heartbeat = _observed(heartbeat, timed)
            if (
                limits is not None
                and limits.idle_timeout is not None
                and limits.refresh_on == "auto"
            ):
                # LangGraph's "auto": any LangChain callback event inside the node is progress
                beat = current_heartbeat()
                progress = _ProgressHandler(beat if timed is None else _observed(beat, timed))
                config = merge_configs(config, {"callbacks": [progress]})  # type: ignore[arg-type]
                configurable = config["configurable"]
            writer = self._writer(run, limits)
        kwargs: dict[str, Any] = {}
        # the task's runtime, as LangGraph's: injected as ``runtime``, returned by
        # `get_runtime()`, inherited by a graph or a tool run inside the task
        if shared:
            runtime = shared[0]._for_task(info, base.server)
        else:
            made = _runtime(run, writer, heartbeat)
            if shared is not None:
                shared.append(made)
            runtime = made._for_task(info, base.server)
        accepts = node.accepts
        if accepts:
            if "config" in accepts:
                kwargs["config"] = config
            if "writer" in accepts:
                kwargs["writer"] = writer
            if "store" in accepts:
                kwargs["store"] = run.store
            if "previous" in accepts:
                kwargs["previous"] = run.previous
            if "error" in accepts:  # an error handler's `error: NodeError`
                kwargs["error"] = run.node_error
            if "runtime" in accepts:
                kwargs["runtime"] = runtime
        # interrupts are named by LangGraph's task namespace ("<node>:<task id>")
        hook = _TaskContext(
            _answers(resume) if resume else [],  # (the usual task: no call)
            f"{node.name}:{uid}",
            run,
            node.name,
            dict(memo) if memo else {},
        )
        if run.checkpoint_ns:
            hook.parent_ns = run.checkpoint_ns
        if memo and SPARE_KEY in hook.memo:  # answers it took from a parent's spare ones
            hook.resume = with_spare_answers(hook.resume, hook.memo)
        hook.child = config["configurable"][CHILD_KEY]
        if attempt > 1 and hook.ns in self.subgraph_runs:
            # LangGraph's retry keeps the task's count of subgraph runs: a retried
            # subgraph runs afresh under ``ns|<n>``, not from the failed attempt's checkpoint
            hook.child.calls = itertools.count(self.subgraph_runs[hook.ns])
        # LangGraph's private read/send entries (deepagents' StateBackend uses them): writes
        # sent are the task's own, before its return value's; a fresh read sees them.
        configurable[CONFIG_KEY_SEND] = hook.pushed.extend
        configurable[CONFIG_KEY_READ] = partial(
            self.read_local, values, self.spec.channels, hook.pushed
        )
        # The task's runtime (LangGraph's CONFIG_KEY_RUNTIME): a graph invoked inside the task
        # (from a tool, say) inherits its context and store.
        configurable[CONFIG_KEY_RUNTIME] = runtime
        if emit is not None:
            if "messages" in modes:
                v2 = (run.config.get("configurable") or {}).get(CONFIG_KEY_STREAM_MESSAGES_V2)
                handler = (MessagesHandlerV2 if v2 else MessagesHandler)(
                    emit, config, run.subgraphs
                )
                handler.see(arg if arg is not None else values)
                config = attach(config, handler)
                if "config" in kwargs:
                    kwargs["config"] = config
                hook.handler = handler
            if "tools" in modes:
                config = attach(
                    config, ToolsHandler(emit, config["metadata"]["langgraph_checkpoint_ns"])
                )
                if "config" in kwargs:
                    kwargs["config"] = config
        if cache_key is not None:
            hook.cache_key = cache_key
        action = node.action
        tokens = _bind(hook, run, config)
        try:
            known = _RUNNABLE_TYPES.get(type(action))  # (`_is_runnable`'s memo, inline)
            if known if known is not None else _is_runnable(action):
                steps = sequence_steps(action)
                # the plain spelling is the Runnable's own ``invoke``: no frame of ours
                # between the host and a subgraph's run (a nesting level costs what it
                # costs LangGraph of the recursion budget)
                call = action.invoke if steps is None else partial(invoke_steps, steps)
                result = yield Block(call, partial(_ainvoked, action, steps), (state, config))
            elif node.is_async:
                result = yield Block(
                    _no_sync_call, _awaited_call, (node.name, action, state, kwargs)
                )
            else:
                result = action(state, **kwargs)
        except asyncio.CancelledError as e:
            # raised by the node's own code (nothing asked to cancel its task): LangGraph
            # fails the task with NodeCancelledError rather than tearing the run down; a
            # cancellation from outside (a timeout, the caller) goes on
            if not (yield picked(_own, _own_cancellation)):
                raise
            return self._conclude(node, values, run, hook, error=_node_cancelled(node.name, e))
        except StepAbandoned:  # a stream closed before its node ran: nothing to conclude
            raise
        except BaseException as e:
            return self._conclude(node, values, run, hook, error=e)
        else:
            return self._conclude(node, values, run, hook, result=result)
        finally:
            if not scoped:
                _unbind(tokens)

    def _conclude(
        self,
        node: NodeSpec,
        values: Mapping[str, Any],
        run: RunContext,
        hook: _TaskContext,
        *,
        result: Any = None,
        error: BaseException | None = None,
    ) -> TaskOutcome:
        """The outcome of a finished call (inside the task's context: branch functions run
        here), then the returned messages for the messages stream and the cache entry."""
        if error is not None and run.trace is not None:
            _close(run.trace, None, error)
        if (
            isinstance(error, ParentCommand)
            and not isinstance(error, NodeParentCommand)
            and error.args
            and getattr(error.args[0], "graph", Command.PARENT) != Command.PARENT
        ):
            # A subgraph's Command(graph=PARENT) is this node's result in this graph (it
            # left the subgraph's run addressed to it); one the node raised itself goes up.
            outcome = self._parent_command(node, error.args[0], values, run)
        elif error is not None:
            # the namespace of a subgraph the task ran (none: not a subgraph's interrupt)
            child = hook.child
            note_task(error, hook.ns)
            outcome = self._failure(node, error, child.checkpoint_ns if child else "")
        else:
            try:
                outcome = self._outcome(node, result, values, run, hook.pushed)
            except BaseException as e:  # incl. this node's own Command(graph=PARENT)
                note_task(e, hook.ns)
                outcome = self._failure(node, e)
        if error is None and run.trace is not None:
            _close(run.trace, result, outcome)
        if outcome.error is None and not (outcome.interrupts or outcome.stopped):  # `waiting`
            # LangGraph's private hook: told the name of every node that finished
            known = self._run_base  # (`_base_of`'s usual case inline: once per task)
            config = run.config
            base = known if known is not None and known.config is config else self._base_of(config)
            finished = base.finished
            if finished is not None:
                finished(node.name)
        if outcome.interrupts:
            # the body scope of the node's `@task` calls (`func._scope._adopt`), if it made any
            functional = getattr(hook, "_functional_body", None)
            if functional is not None:
                # a `@task` the node called asked: its interrupt gets its answer slot in the
                # node's memo, as an entrypoint's runner gives it, so the node's next run
                # hands the call the resume answer instead of asking again
                functional.root.surfaced(outcome.interrupts)
        outcome.memo = hook.memo or None
        if self.first_attempts and (outcome.retry is None or outcome.error is None):
            self.first_attempts.pop(hook.ns, None)
        if outcome.retry is not None and outcome.error is not None and hook.child is not None:
            self.subgraph_runs[hook.ns] = next(hook.child.calls)  # runs so far, this included
        elif self.subgraph_runs:
            self.subgraph_runs.pop(hook.ns, None)
        # A subgraph's Command(graph=PARENT) becomes this node's writes, but the node did not
        # end (its call raised the command): LangGraph streams none of its messages.
        via_parent = isinstance(error, ParentCommand)
        if outcome.error is None and hook.handler is not None and not via_parent:
            for _, value in outcome.writes:
                hook.handler.emit_returned(value)
        if hook.cache_key is not None and outcome.error is None and not outcome.interrupts:
            ttl = node.cache_policy.ttl if node.cache_policy is not None else None
            entry = cache_entry(outcome, self.edge_writes(node.name))
            run.cache.set({hook.cache_key: (entry, ttl)})
        if run.timed_attempt is not None:
            run.timed_attempt.finish(outcome.error)
        return outcome

    def _parent_command(
        self, node: NodeSpec, command: Command[Any], values: Mapping[str, Any], run: RunContext
    ) -> TaskOutcome:
        # LangGraph hands the command to every writer of the node, as if the node had
        # returned it: its static edges, joins and conditional edges fire as well.
        local = Command(update=command.update, goto=command.goto)
        return self._outcome(node, local, values, run)

    def _execution_info(
        self,
        node: NodeSpec,
        run: RunContext,
        configurable: Mapping[str, Any],
        uid: str,
        attempt: int,
        run_id: str | None,
    ) -> ExecutionInfo:
        """LangGraph's `ExecutionInfo` of a task: the checkpoint its step runs from (its id
        in the ``checkpoint_map`` of the task's ``configurable``), its namespace and id, the
        thread, the graph run's ``run_id`` (a subgraph's config has none), the attempt and
        when the first started."""
        now = run.clock.now()
        if attempt == 1:
            first = now
            if node.retry_policies:
                self.first_attempts[f"{node.name}:{uid}"] = now
        else:
            first = self.first_attempts.get(f"{node.name}:{uid}", now)
        checkpoint_id = run.checkpoint_id
        if not checkpoint_id:
            checkpoints = configurable.get("checkpoint_map")
            checkpoint_id = (checkpoints.get(run.checkpoint_ns) if checkpoints else None) or ""
        # positional, in the fields' order (its generated __init__ takes no keywords faster)
        return ExecutionInfo(
            checkpoint_id,
            configurable.get("checkpoint_ns", ""),
            uid,
            configurable.get("thread_id"),
            run_id,
            attempt,
            first,
        )

    def timed_out(
        self,
        name: str,
        elapsed: float,
        kind: Literal["run", "idle"],
        limits: TimeoutPolicy | None = None,
    ) -> TaskOutcome:
        """The outcome of node ``name``'s task stopped at its ``kind`` timeout after
        ``elapsed`` seconds: LangGraph's `NodeTimeoutError` naming ``limits`` (the task's
        `Send`'s own; None: the node's), with the retry policy that matches it."""
        node = self.spec.nodes[name]
        policy = limits if limits is not None else node.timeout
        error = NodeTimeoutError(
            name,
            elapsed,
            kind=kind,
            run_timeout=as_seconds(policy.run_timeout if policy else None),
            idle_timeout=as_seconds(policy.idle_timeout if policy else None),
        )
        return self._failure(node, error)

    def _failure(self, node: NodeSpec, error: BaseException, subgraph_ns: str = "") -> TaskOutcome:
        if isinstance(error, GraphInterrupt):
            interrupts = tuple(i for group in error.args for i in _as_tuple(group))
            return TaskOutcome(
                interrupts=interrupts, subgraph_ns=subgraph_ns, stopped=not interrupts
            )
        if isinstance(error, GraphDrained):
            # its subgraph drained: the task did not finish and runs again when the thread
            # is continued (the subgraph from its checkpoint); the run drains after the step
            return TaskOutcome(subgraph_ns=subgraph_ns, stopped=True, drained=True)
        if isinstance(error, NodeParentCommand):
            # goes up as any node's Command(graph=PARENT): the graph above takes it
            return TaskOutcome(error=ParentCommand(*error.args))
        if isinstance(error, GraphBubbleUp):  # incl. ParentCommand from this graph's node
            return TaskOutcome(error=error)
        if not isinstance(error, Exception):
            raise error
        try:
            policy = first_matching(node.retry_policies, error)
        except Exception as e:  # a bad `retry_on` fails the task with its TypeError (LangGraph)
            return TaskOutcome(error=e)
        return TaskOutcome(error=error, retry=policy)


def _observed(heartbeat: Callable[[], None], timed: TimedAttempt) -> Callable[[], None]:
    """``heartbeat`` that also tells the timed-attempt observer of the progress."""

    def beat() -> None:
        heartbeat()
        timed.progress()

    return beat


async def _ainvoked(
    action: Any, steps: Sequence[Any] | None, state: Any, config: dict[str, Any]
) -> Any:
    """A Runnable node's call on the running loop: ``ainvoke`` (or streamed,
    `acall_runnable`), a `RunnableSequence`'s steps as the node's own (`sequence_steps`)."""
    if not hasattr(action, "ainvoke"):
        return invoke_steps(steps, state, config) if steps else action.invoke(state, config)
    return await acall_runnable(action, steps, state, config)


def _no_sync_call(name: str, action: Any, state: Any, kwargs: dict[str, Any]) -> NoReturn:
    raise no_sync_function(name)  # an ``async def`` node of a sync run (LangGraph's error)


async def _awaited_call(name: str, action: Any, state: Any, kwargs: dict[str, Any]) -> Any:
    return await action(state, **kwargs)


def _announce(
    emit: Callable[[str, Any], None],
    modes: frozenset[str],
    start: dict[str, Any],
    step: int,
    clock: Clock,
) -> None:
    """A task's start events (LangGraph's ``tasks`` and ``debug`` ``task`` chunks)."""
    if "tasks" in modes:
        emit("tasks", start)
    if "debug" in modes:
        emit("debug", {"step": step, "timestamp": _now(clock), "type": "task", "payload": start})
