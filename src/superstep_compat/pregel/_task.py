"""Running one LangGraph task: the work a façade node's effect performs.

A task reads the committed state through its input schema (or takes a `Send` argument),
calls the user's action with the injectables it declares, turns the return value into writes
and gotos, evaluates the node's conditional edges on its local view of the state (committed
state plus its own writes, as LangGraph does), and reports everything as a `TaskOutcome`.
Exceptions never escape: they travel in the outcome, so the caller can re-raise the very
object the user's code raised.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import itertools
import logging
import random
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any, Literal

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables.config import var_child_runnable_config

from superstep_compat._internal._constants import (
    CONFIG_KEY_READ,
    CONFIG_KEY_RUNTIME,
    CONFIG_KEY_SEND,
    CONFIG_KEY_STREAM_MESSAGES_V2,
    END,
    PRIVATE,
    PULL,
    PUSH,
    ROOT_KEY,
    START,
    TAG_HIDDEN,
)
from superstep_compat._internal._merge import merge_configs
from superstep_compat._internal._policies import sync_timeout_unsupported
from superstep_compat._internal.context import task_context_var
from superstep_compat.errors import (
    GraphBubbleUp,
    GraphInterrupt,
    InvalidUpdateError,
    NodeTimeoutError,
    ParentCommand,
)
from superstep_compat.graph._schema import coerce_state
from superstep_compat.graph._spec import BranchSpec, GraphSpec, NodeSpec
from superstep_compat.graph._writes import node_writes
from superstep_compat.managed.base import StepInfo
from superstep_compat.pregel._callbacks import TaskRun
from superstep_compat.pregel._messages import MessagesHandler, MessagesHandlerV2, attach
from superstep_compat.pregel._resume import resume_adapter, validated_resume
from superstep_compat.pregel._tools import ToolsHandler
from superstep_compat.pregel.debug import task_payload
from superstep_compat.types import Command, Interrupt, RetryPolicy, Send, interrupt_id_from_ns
from superstep_core.channel import MISSING, Channel
from superstep_core.host import Clock, NestedEffects, WallClock, current_heartbeat
from superstep_core.host import heartbeat as _heartbeat

__all__ = ["RunContext", "TaskOutcome", "TaskRunner"]

logger = logging.getLogger("langgraph")  # LangGraph's logger for these warnings


@dataclass
class TaskOutcome:
    """What one task did. ``update`` is the value of its ``updates`` stream chunk."""

    writes: list[tuple[str, Any]] = field(default_factory=list)
    gotos: list[str] = field(default_factory=list)
    sends: list[Send] = field(default_factory=list)
    update: Any = None
    interrupts: tuple[Interrupt[Any], ...] = ()
    error: BaseException | None = None
    retry: RetryPolicy | None = None
    skip_edges: bool = False
    parent_command: Command[Any] | None = None
    memo: dict[str, Any] | None = None
    subgraph_ns: str = ""
    cached: bool = False


@dataclass
class RunContext:
    """Per-invocation facts a task needs: config, context, store, step budget, streams."""

    config: dict[str, Any]
    context: Any = None
    store: Any = None
    step: int = 0
    stop: int = 10_007
    emit: Callable[[str, Any], None] | None = None
    stream_modes: frozenset[str] = frozenset()
    checkpoint_ns: str = ""
    previous: Any = None
    saver: Any = None
    subgraphs: bool = False
    cache: Any = None
    checkpoint_id: str | None = None  # the checkpoint the step runs from (its pending writes)
    push: int | None = None
    """A `Send` task's index among the step's pushed tasks (LangGraph's push path)."""
    task_ids: Mapping[str, str] = field(default_factory=dict)
    """LangGraph's id of each task of the checkpoint the step runs from, by engine key (an
    activation id, or a node name for a task not numbered yet)."""
    trace: TaskRun | None = None
    """The task's callback run, when the config carries callbacks."""
    clock: Clock = field(default_factory=WallClock)
    """The run's clock (seconds since the epoch): timestamps, and the waits of @task retries."""
    rng: random.Random = field(default_factory=random.Random)
    """The run's random source (the jitter of @task retries)."""
    nested: NestedEffects | None = None
    """The run's host's performer of nested effects (the functional API's @task calls)."""


class _TaskContext:
    """The `interrupt()` / `push_message()` hook of one task call."""

    def __init__(self, resume: Sequence[Any], ns: str, run: RunContext, node: str) -> None:
        self.resume = resume
        self.index = 0
        self.ns = ns
        self.run = run
        self.node = node
        # Results of work done inside this task (the functional API's @task calls), kept
        # in the activation's memory so a re-run after an interrupt does not redo them.
        self.memo: dict[str, Any] = {}
        self.subgraph_ns = ""
        self.handler: MessagesHandler | None = None
        self.cache_key: tuple[tuple[str, ...], str] | None = None
        self.pushed: list[tuple[str, Any]] = []  # push_message writes, before the return's

    def interrupt(self, value: Any, response_schema: Any) -> Any:
        i = self.index
        self.index += 1
        adapter = resume_adapter(response_schema)
        if i < len(self.resume):
            answer = self.resume[i]
            return answer if adapter is None else validated_resume(adapter, answer)
        # LangGraph's id: the task's namespace (its task id differs per thread and checkpoint),
        # suffixed by the answers it already has
        schema = response_schema if adapter is None else adapter.json_schema()
        ns = f"{self.ns}|{i}" if i else self.ns
        raise GraphInterrupt((Interrupt(value, interrupt_id_from_ns(ns), response_schema=schema),))

    def push_message(self, message: Any, state_key: str | None) -> None:
        if self.handler is not None:
            self.handler.emit_pushed(message)
        elif self.run.emit is not None and "messages" in self.run.stream_modes:
            self.run.emit("messages", (message, {"langgraph_node": self.node}))
        if state_key:
            self.pushed.append((state_key, message))


class TaskRunner:
    """Builds and runs tasks for the nodes of one compiled graph."""

    def __init__(self, spec: GraphSpec, strategies: Mapping[str, Channel]) -> None:
        self.spec = spec
        self.strategies = strategies
        self.channel_keys = frozenset(spec.channels)
        self.node_names = frozenset(spec.nodes)
        self.state_keys = self._keys_of(spec.state_schema)

    def _keys_of(self, schema: Any) -> tuple[tuple[str, ...], tuple[tuple[str, Any], ...]]:
        info = self.spec.schemas.get(schema)
        if info is None:
            return tuple(self.spec.channels), ()
        return tuple(info.channels), tuple(info.managed.items())

    # --- reading state ---------------------------------------------------------------------

    def read(self, schema: Any, values: Mapping[str, Any], run: RunContext) -> Any:
        """The state as a node with input ``schema`` sees it."""
        channels, managed = self._keys_of(schema)
        view: dict[str, Any] = {}
        for key in channels:
            value = values.get(key, MISSING)
            if value is not MISSING:
                view[key] = value
        if managed:
            info = StepInfo(run.step, run.stop)
            for key, manager in managed:
                view[key] = manager.get(info)
        return coerce_state(schema, view)

    # --- running a task ----------------------------------------------------------------------

    def run(
        self,
        name: str,
        values: Mapping[str, Any],
        arg: Any,
        resume: Sequence[Any],
        run: RunContext,
        task_id: str,
        attempt: int,
        memo: dict[str, Any] | None = None,
    ) -> TaskOutcome:
        """Run node ``name`` on this thread (an ``async def`` action fails with LangGraph's
        `TypeError`: it needs ``ainvoke``/``astream``)."""
        if name == START:
            return self._start_task(values, arg, run, task_id)
        node = self.spec.nodes[name]
        ctx = copy_context()
        outcome: TaskOutcome = ctx.run(
            self._run_node, node, values, arg, resume, run, task_id, attempt, False, memo
        )
        return outcome

    async def arun(
        self,
        name: str,
        values: Mapping[str, Any],
        arg: Any,
        resume: Sequence[Any],
        run: RunContext,
        task_id: str,
        attempt: int,
        memo: dict[str, Any] | None = None,
    ) -> TaskOutcome:
        """Run node ``name`` on the running event loop."""
        if name == START:
            return self._start_task(values, arg, run, task_id)
        node = self.spec.nodes[name]
        result = self._run_node(node, values, arg, resume, run, task_id, attempt, True, memo)
        if inspect.isawaitable(result):
            result = await result
        assert isinstance(result, TaskOutcome)
        return result

    def _task_config(
        self, node: NodeSpec, run: RunContext, task_id: str, resume: Sequence[Any]
    ) -> dict[str, Any]:
        """The config a task runs with: LangGraph's task metadata, its namespace (the path
        from the root graph: "sub:<task>|inner:<task>"), and the link any compiled graph
        invoked while it runs takes as its parent (see `ChildLink`)."""
        config = dict(run.config)
        ns = _join_ns(run.checkpoint_ns, f"{node.name}:{task_id}")
        push = run.push
        metadata = dict(config.get("metadata") or {})
        metadata.update(
            langgraph_step=run.step,
            langgraph_node=node.name,
            langgraph_triggers=(PUSH,) if push is not None else (f"branch:to:{node.name}",),
            langgraph_path=task_path(node.name, push),
            langgraph_checkpoint_ns=ns,
        )
        configurable = dict(config.get("configurable") or {})
        if "thread_id" not in metadata and (thread := configurable.get("thread_id")):
            metadata["thread_id"] = thread  # LangGraph propagates the thread to run metadata
        configurable["checkpoint_ns"] = ns
        configurable.pop("checkpoint_id", None)
        configurable[CHILD_KEY] = ChildLink(
            run.saver, list(resume), run.emit, run.stream_modes, run.subgraphs, ns
        )
        config["metadata"] = metadata
        config["configurable"] = configurable
        return config

    def _run_node(
        self,
        node: NodeSpec,
        values: Mapping[str, Any],
        arg: Any,
        resume: Sequence[Any],
        run: RunContext,
        task_id: str,
        attempt: int,
        in_loop: bool,
        memo: dict[str, Any] | None = None,
    ) -> Any:
        config = self._task_config(node, run, task_id, resume)
        if node.timeout is not None and not in_loop:  # LangGraph's check, before any attempt
            return TaskOutcome(error=sync_timeout_unsupported(node.name))
        try:
            state = arg if arg is not None else self.read(node.input_schema, values, run)
        except Exception as e:
            return TaskOutcome(error=e)
        if run.push is not None:
            # A Send task's input is the Send's arg; LangGraph still lets it read the state
            # an edge would have given it (ToolNode does, for a bare list of tool calls).
            read_state = partial(self.read, node.input_schema, values, run)
            config["configurable"][READ_STATE_KEY] = read_state
        cache_key = _cache_key(node, state) if run.cache is not None else None
        if cache_key is not None:
            hit = run.cache.get([cache_key]).get(cache_key)
            if hit is not None:
                out = TaskOutcome(writes=list(hit), cached=True)
                out.update = _update_chunk(out.writes)
                branches = self.spec.branches.get(node.name)
                if branches:
                    try:
                        self._branch(branches, values, out, run)
                    except Exception as e:
                        return self._failure(node, e)
                return out
        streams_tasks = "tasks" in run.stream_modes or "debug" in run.stream_modes
        if run.emit is not None and streams_tasks and attempt == 1:  # once, not per retry
            start = task_payload(
                task_uuid(run, task_id),
                node.name,
                state,
                config["metadata"]["langgraph_triggers"],
                config,
            )
            if "tasks" in run.stream_modes:
                run.emit("tasks", start)
            if "debug" in run.stream_modes:
                run.emit(
                    "debug",
                    {
                        "step": run.step,
                        "timestamp": _now(run.clock),
                        "type": "task",
                        "payload": start,
                    },
                )
        if config.get("callbacks"):
            run.trace, config = TaskRun.start(config, node.name, state, run.step)
        limits = node.timeout
        if limits is not None and limits.idle_timeout is not None and limits.refresh_on == "auto":
            # LangGraph's "auto": any LangChain callback event inside the node is progress
            beat = _ProgressHandler(current_heartbeat())
            config = merge_configs(config, {"callbacks": [beat]})  # type: ignore[arg-type]
        kwargs: dict[str, Any] = {}
        writer = self._writer(run, node)
        if node.accepts:
            if "config" in node.accepts:
                kwargs["config"] = config
            if "writer" in node.accepts:
                kwargs["writer"] = writer
            if "store" in node.accepts:
                kwargs["store"] = run.store
            if "previous" in node.accepts:
                kwargs["previous"] = run.previous
            if "runtime" in node.accepts:
                kwargs["runtime"] = _runtime(
                    run, writer, _heartbeat if node.timeout is not None else _noop_heartbeat
                )
        # interrupts are named by LangGraph's task namespace ("<node>:<task id>")
        hook = _TaskContext(resume, f"{node.name}:{task_uuid(run, task_id)}", run, node.name)
        hook.memo = dict(memo or {})
        hook.subgraph_ns = config["configurable"]["checkpoint_ns"]
        # LangGraph's private read/send entries (deepagents' StateBackend uses them): writes
        # sent are the task's own, before its return value's; a fresh read sees them.
        configurable = config["configurable"]
        configurable[CONFIG_KEY_SEND] = hook.pushed.extend
        configurable[CONFIG_KEY_READ] = partial(self.read_local, values, hook.pushed)
        # The task's runtime (LangGraph's CONFIG_KEY_RUNTIME): a graph invoked inside the task
        # (from a tool, say) inherits its context and store.
        configurable[CONFIG_KEY_RUNTIME] = kwargs.get("runtime") or _runtime(run, writer)
        handler = None
        if run.emit is not None and "messages" in run.stream_modes:
            v2 = (run.config.get("configurable") or {}).get(CONFIG_KEY_STREAM_MESSAGES_V2)
            handler = (MessagesHandlerV2 if v2 else MessagesHandler)(
                run.emit, config, run.subgraphs
            )
            handler.see(arg if arg is not None else values)
            config = attach(config, handler)
            if "config" in kwargs:
                kwargs["config"] = config
        hook.handler = handler
        if run.emit is not None and "tools" in run.stream_modes:
            config = attach(
                config, ToolsHandler(run.emit, config["metadata"]["langgraph_checkpoint_ns"])
            )
            if "config" in kwargs:
                kwargs["config"] = config
        hook.cache_key = cache_key
        action = node.action
        tokens = _bind(hook, run, config)
        try:
            if _is_runnable(action):
                if in_loop and hasattr(action, "ainvoke"):
                    pending = action.ainvoke(state, config)
                    return self._finish_async(pending, node, values, run, hook, config)
                result = action.invoke(state, config)
            elif node.is_async:
                if not in_loop:
                    raise no_sync_function(node.name)
                coro = action(state, **kwargs)
                return self._finish_async(coro, node, values, run, hook, config)
            else:
                result = action(state, **kwargs)
        except BaseException as e:
            return self._conclude(node, values, run, hook, error=e)
        else:
            return self._conclude(node, values, run, hook, result=result)
        finally:
            _unbind(tokens)

    async def _finish_async(
        self,
        pending: Any,
        node: NodeSpec,
        values: Mapping[str, Any],
        run: RunContext,
        hook: _TaskContext,
        config: dict[str, Any] | None = None,
    ) -> TaskOutcome:
        # The coroutine's body runs here, not in _run_node: bind the task's context again.
        tokens = _bind(hook, run, config)
        try:
            result = await pending
        except BaseException as e:
            return self._conclude(node, values, run, hook, error=e)
        else:
            return self._conclude(node, values, run, hook, result=result)
        finally:
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
        if isinstance(error, ParentCommand):
            # A subgraph's Command(graph=PARENT) is this node's result in this graph.
            outcome = self._parent_command(node, error.args[0], values, run)
        elif error is not None:
            outcome = self._failure(node, error, hook.subgraph_ns)
        else:
            try:
                outcome = self._outcome(node, result, values, run, hook.pushed)
            except BaseException as e:  # incl. this node's own Command(graph=PARENT)
                outcome = self._failure(node, e)
        if error is None and run.trace is not None:
            _close(run.trace, result, outcome)
        outcome.memo = hook.memo or None
        if outcome.error is None and hook.handler is not None:
            for _, value in outcome.writes:
                hook.handler.emit_returned(value)
        if hook.cache_key is not None and outcome.error is None and not outcome.interrupts:
            ttl = node.cache_policy.ttl if node.cache_policy is not None else None
            run.cache.set({hook.cache_key: (list(outcome.writes), ttl)})
        return outcome

    def _parent_command(
        self, node: NodeSpec, command: Command[Any], values: Mapping[str, Any], run: RunContext
    ) -> TaskOutcome:
        # LangGraph hands the command to every writer of the node, as if the node had
        # returned it: its static edges, joins and conditional edges fire as well.
        local = Command(update=command.update, goto=command.goto)
        return self._outcome(node, local, values, run)

    def timed_out(self, name: str, elapsed: float, kind: Literal["run", "idle"]) -> TaskOutcome:
        """The outcome of node ``name``'s task stopped at its ``kind`` timeout after
        ``elapsed`` seconds: LangGraph's `NodeTimeoutError`, with the retry policy that
        matches it."""
        node = self.spec.nodes[name]
        policy = node.timeout
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
            return TaskOutcome(interrupts=interrupts, subgraph_ns=subgraph_ns)
        if isinstance(error, GraphBubbleUp):  # incl. ParentCommand from this graph's node
            return TaskOutcome(error=error)
        if not isinstance(error, Exception):
            raise error
        return TaskOutcome(error=error, retry=first_matching(node.retry_policy or (), error))

    def _writer(self, run: RunContext, node: NodeSpec | None = None) -> Callable[[Any], None]:
        # under an idle timeout refreshed "auto"matically, a custom chunk is progress
        auto = node is not None and node.timeout is not None and node.timeout.refresh_on == "auto"
        if run.emit is None or "custom" not in run.stream_modes:
            return _heartbeat_writer if auto else _noop
        emit = run.emit

        def write(chunk: Any) -> None:
            if auto:
                _heartbeat()
            emit("custom", chunk)

        return write

    def _outcome(
        self,
        node: NodeSpec,
        result: Any,
        values: Mapping[str, Any],
        run: RunContext,
        pushed: Sequence[tuple[str, Any]] = (),
    ) -> TaskOutcome:
        written = node_writes(result, self.channel_keys)
        writes = written.writes
        if pushed:  # push_message wrote these while the node ran
            keys = self.channel_keys
            writes = [(k, v) for k, v in pushed if k in keys] + writes
        out = TaskOutcome(writes=writes)
        out.update = _update_chunk(writes)
        if written.goto:
            self._gotos(written.goto, out, node.name, run)
        branches = self.spec.branches.get(node.name)
        if branches:
            self._branch(branches, values, out, run)
        return out

    def _gotos(self, gotos: Sequence[Any], out: TaskOutcome, name: str, run: RunContext) -> None:
        """Route ``gotos`` (node names and `Send`s); END goes nowhere. LangGraph ignores an
        unknown target with a warning (the write to its trigger channel, or the `Send`)."""
        for goto in gotos:
            if isinstance(goto, Send):
                if goto.node in self.node_names or goto.node == START:
                    out.sends.append(goto)
                else:
                    logger.warning(f"Ignoring unknown node name {goto.node} in pending sends")
            elif goto in self.node_names:
                out.gotos.append(goto)
            elif goto != END:
                logger.warning(
                    f"Task {name} with path {task_path(name, run.push)} wrote to unknown "
                    f"channel branch:to:{goto}, ignoring it."
                )

    def _branch(
        self,
        branches: Mapping[str, BranchSpec],
        values: Mapping[str, Any],
        out: TaskOutcome,
        run: RunContext,
    ) -> None:
        local = self.local_state(values, out.writes)
        trace = run.trace
        first = self._writer_count(branches) if trace is not None else 0
        for position, branch in enumerate(branches.values(), first + 1):
            state = self.read(branch.input_schema or self.spec.state_schema, local, run)
            path = branch.path
            call = self._router_call(branch, run, trace, position)
            if trace is not None:
                result = trace.route(position, path, state, call)
            else:
                result = call(path, state)
            items = result if isinstance(result, list | tuple) else [result]
            ends = branch.ends
            dests = [i if ends is None or isinstance(i, Send) else ends[i] for i in items]
            for dest in dests:
                if dest is None or dest == START:
                    raise ValueError("Branch did not return a valid destination")
                if isinstance(dest, Send) and dest.node == END:
                    raise InvalidUpdateError("Cannot send a packet to the END node")
            self._gotos(dests, out, branch.source, run)

    def _router_call(
        self, branch: BranchSpec, run: RunContext, trace: Any, position: int
    ) -> Callable[[Any, Any], Any]:
        """How to call a router: with the parameters it declares injected as LangGraph's
        routers get them (``config``: the router's run config, ``runtime``, ``store``,
        ``writer``, ``previous``)."""
        accepts = branch.accepts
        if not accepts:
            return _call_router
        kwargs: dict[str, Any] = {}
        writer = self._writer(run)
        if "config" in accepts:
            kwargs["config"] = trace.child_config(position) if trace is not None else run.config
        if "writer" in accepts:
            kwargs["writer"] = writer
        if "store" in accepts:
            kwargs["store"] = run.store
        if "previous" in accepts:
            kwargs["previous"] = run.previous
        if "runtime" in accepts:
            kwargs["runtime"] = _runtime(run, writer)
        return partial(_call_router, injected=kwargs)

    def _writer_count(self, branches: Mapping[str, BranchSpec]) -> int:
        """How many writers LangGraph puts before a node's routers: the node's action and
        its state write (START: the input write), and one per outgoing edge (join or not)."""
        source = next(iter(branches.values())).source
        count = 1 if source == START else 2
        count += sum(1 for s, t in self.spec.edges if s == source and t != END)
        count += sum(1 for ss, t in self.spec.waiting_edges if source in ss and t != END)
        return count

    def read_local(
        self,
        values: Mapping[str, Any],
        written: Sequence[tuple[str, Any]],
        select: str | Sequence[str],
        fresh: bool = False,
    ) -> Any:
        """LangGraph's ``CONFIG_KEY_READ``: one channel's value (None when empty) or a dict of
        the selected channels that have one (KeyError for a key that is no channel);
        ``fresh`` applies the task's writes so far."""
        keys = [select] if isinstance(select, str) else select
        for key in keys:
            if key not in self.channel_keys:
                raise KeyError(key)
        state = self.local_state(values, written) if fresh else values
        if isinstance(select, str):
            return state.get(select)
        return {key: state[key] for key in select if key in state}

    def local_state(
        self, values: Mapping[str, Any], writes: Sequence[tuple[str, Any]]
    ) -> dict[str, Any]:
        """``values`` with ``writes`` applied through the channels (LangGraph's local read)."""
        if not writes:
            return dict(values)
        grouped: dict[str, list[tuple[str, Any]]] = defaultdict(list)
        for key, value in writes:
            grouped[key].append(("task", value))
        local = dict(values)
        for key, items in grouped.items():
            strategy = self.strategies[key]
            try:
                local[key] = strategy.combine(key, values.get(key, MISSING), items)
            except Exception:
                local[key] = items[-1][1]
        return local

    # --- the START task ------------------------------------------------------------------------

    def _start_task(
        self, values: Mapping[str, Any], arg: Any, run: RunContext, task_id: str
    ) -> TaskOutcome:
        """`_start`, as a callback run when START has routers (LangGraph's hidden
        ``__start__`` run; with plain edges only it has none)."""
        if (
            not run.config.get("callbacks")
            or START not in self.spec.branches
            or isinstance(arg, Command)
        ):
            return self._start(values, arg, run)
        config = dict(run.config)
        config["tags"] = [*(config.get("tags") or ()), TAG_HIDDEN]
        config["metadata"] = {
            **(config.get("metadata") or {}),
            "langgraph_step": run.step,
            "langgraph_node": START,
            "langgraph_triggers": (START,),
            "langgraph_path": (PULL, START),
            "langgraph_checkpoint_ns": _join_ns(run.checkpoint_ns, f"{START}:{task_id}"),
        }
        run.trace, _ = TaskRun.start(config, START, arg, run.step)
        outcome = self._start(values, arg, run)
        _close(run.trace, arg, outcome)
        return outcome

    def _start(self, values: Mapping[str, Any], arg: Any, run: RunContext) -> TaskOutcome:
        """Write the input (or apply an input `Command`) and evaluate START's branches."""
        try:
            if isinstance(arg, Command):
                out = TaskOutcome(skip_edges=True)
                written = node_writes(Command(update=arg.update, goto=arg.goto), self.channel_keys)
                out.writes = written.writes
                self._gotos(written.goto, out, START, run)
                return out
            writes = self.input_writes(arg)
            out = TaskOutcome(writes=writes)
            branches = self.spec.branches.get(START)
            if branches:
                self._branch(branches, values, out, run)
            return out
        except Exception as e:
            return TaskOutcome(error=e)

    def input_writes(self, value: Any) -> list[tuple[str, Any]]:
        """The writes of a graph input, restricted to the input schema's keys (extra keys
        are dropped, as LangGraph does). A dict input is written as given, never validated
        here: a pydantic (or dataclass) schema validates when a node reads the state, after
        the reducers ran, so a node sees a validator's rewrite and the stored state does not.
        """
        schema = self.spec.input_schema
        info = self.spec.schemas.get(schema)
        keys = set(info.channels) if info is not None else set(self.spec.channels)
        if info is not None and info.kind == "root":
            return [(next(iter(keys)), value)]
        written = node_writes(value, self.channel_keys)
        return [(k, v) for k, v in written.writes if k in keys]


_current_run: Any = __import__("contextvars").ContextVar("superstep_compat_run", default=None)


CHILD_KEY = "__superstep_child"
"""Configurable key carrying a child run's link to its parent (`ChildLink`)."""


@dataclass
class ChildLink:
    """What a subgraph's run inherits from the task that runs it."""

    saver: Any
    resume: list[Any]
    emit: Callable[[str, Any], None] | None
    modes: frozenset[str]
    subgraphs: bool
    ns: str
    # Graph runs started under this link so far: LangGraph gives the second and later runs
    # of a subgraph in one task the namespace ``ns|1``, ``ns|2``, ... (count() is atomic).
    calls: Iterator[int] = field(default_factory=itertools.count)


_Tokens = tuple[Any, Any, Any]


def _bind(hook: _TaskContext, run: RunContext, config: Any) -> _Tokens:
    """Bind the task's context variables (config, interrupt hook, run) for a call; undo with
    `_unbind` (plain calls, not a context manager: this runs once per task)."""
    return (
        var_child_runnable_config.set(config),
        task_context_var.set(hook),
        _current_run.set((run, config)),
    )


def _unbind(tokens: _Tokens) -> None:
    token_cfg, token_task, token_run = tokens
    _current_run.reset(token_run)
    task_context_var.reset(token_task)
    var_child_runnable_config.reset(token_cfg)


def _is_runnable(action: Any) -> bool:
    """A langchain Runnable (or anything with ``invoke``) rather than a plain function,
    remembered per type: the check runs once per task."""
    kind = type(action)
    known = _RUNNABLE_TYPES.get(kind)
    if known is None:
        known = hasattr(action, "invoke") and not inspect.isfunction(action)
        _RUNNABLE_TYPES[kind] = known
    return known


_RUNNABLE_TYPES: dict[type, bool] = {}


CACHE_NS = "__superstep_cache"


def _cache_key(node: NodeSpec, state: Any) -> tuple[tuple[str, ...], str] | None:
    """The cache key of a node with a `CachePolicy`: (namespace, digest of key_func(input))."""
    policy = node.cache_policy
    if policy is None:
        return None
    key = policy.key_func(state)
    raw = key if isinstance(key, bytes) else str(key).encode()
    return ((CACHE_NS, node.name), hashlib.sha256(raw).hexdigest())


READ_STATE_KEY = PRIVATE["CONFIG_KEY_READ_STATE"]


def task_path(name: str, push: int | None) -> tuple[str | int | bool, ...]:
    """LangGraph's path of a task: ``(PULL, name)`` for a node an edge (or a goto)
    triggered, ``(PUSH, index, False)`` for the ``index``-th `Send` task of its step."""
    return (PULL, name) if push is None else (PUSH, push, False)


def _join_ns(parent: str, child: str) -> str:
    return f"{parent}|{child}" if parent else child


def _child_config(
    config: dict[str, Any], ns: str, run: RunContext, resume: Sequence[Any]
) -> dict[str, Any]:
    child = dict(config)
    configurable = dict(child.get("configurable") or {})
    configurable["checkpoint_ns"] = ns
    configurable.pop("checkpoint_id", None)
    configurable[CHILD_KEY] = ChildLink(
        run.saver, list(resume), run.emit, run.stream_modes, run.subgraphs, ns
    )
    child["configurable"] = configurable
    return child


def no_sync_function(name: str) -> TypeError:
    """LangGraph's error for an ``async def`` node run by a synchronous call."""
    return TypeError(
        f'No synchronous function provided to "{name}".\nEither initialize with a synchronous '
        "function or invoke via the async API (ainvoke, astream, etc.)"
    )


def task_uuid(run: RunContext, activation_id: str) -> str:
    """The task's id: LangGraph's (see `_lgcheckpoint.lg_task_id`) when the run checkpoints,
    else a LangGraph-shaped id stable for one activation of one thread."""
    ids = run.task_ids
    if ids:
        found = ids.get(activation_id) or ids.get(activation_id.rsplit(":", 1)[0])
        if found is not None:
            return found
    thread = (run.config.get("configurable") or {}).get("thread_id", "")
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{thread}/{run.checkpoint_ns}/{activation_id}"))


_WALL = WallClock()


def _now(clock: Clock | None = None) -> str:
    """An ISO timestamp (UTC) of ``clock`` (seconds since the epoch; the wall clock unless
    a run injected another, see `_run.CLOCK_KEY`)."""
    return datetime.fromtimestamp((clock or _WALL).now(), UTC).isoformat()


def current_run() -> tuple[RunContext, dict[str, Any]] | None:
    """The (run context, task config) of the task running in this context, if any."""
    value: tuple[RunContext, dict[str, Any]] | None = _current_run.get()
    return value


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _as_tuple(value: Any) -> tuple[Any, ...]:
    if isinstance(value, tuple | list):
        return tuple(value)
    return (value,)


def _noop(_: Any) -> None:
    return None


def _noop_heartbeat() -> None:
    return None


class _ProgressHandler(BaseCallbackHandler):
    """Counts every LangChain callback event of a node's run as progress of its task (the
    idle timeout's "auto" refresh); inherited by the runs inside the node."""

    run_inline = True  # no thread hop: a heartbeat only records the clock's reading

    def __init__(self, beat: Callable[[], None]) -> None:
        self._beat = beat

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("on_"):
            beat = object.__getattribute__(self, "_beat")

            def touched(*args: Any, **kwargs: Any) -> None:
                beat()

            return touched
        return object.__getattribute__(self, name)


def _heartbeat_writer(_: Any) -> None:
    _heartbeat()


def as_seconds(value: Any) -> float | None:
    """A timeout in seconds (a number or a timedelta; None stays None)."""
    if value is None:
        return None
    return float(value.total_seconds() if hasattr(value, "total_seconds") else value)


def first_matching(policies: Sequence[RetryPolicy], error: Exception) -> RetryPolicy | None:
    """LangGraph's rule for a list of retry policies: the first whose ``retry_on`` matches
    ``error`` decides (attempts, backoff, jitter); None when none matches."""
    for policy in policies:
        if _retry_on(policy, error):
            return policy
    return None


def _retry_on(policy: RetryPolicy, error: Exception) -> bool:
    retry_on: Any = policy.retry_on
    if isinstance(retry_on, type) and issubclass(retry_on, BaseException):
        return isinstance(error, retry_on)
    if isinstance(retry_on, Sequence):
        return isinstance(error, tuple(retry_on))
    return bool(retry_on(error))


def _runtime(
    run: RunContext, writer: Callable[[Any], None], heartbeat: Callable[[], None] | None = None
) -> Any:
    """The `Runtime` a task's code sees (context, store, stream writer, previous, and the
    heartbeat of a node with an idle timeout)."""
    from superstep_compat.runtime import Runtime

    return Runtime(
        context=run.context,
        store=run.store,
        stream_writer=writer,
        heartbeat=heartbeat or _noop_heartbeat,
        previous=run.previous,
    )


def _call_router(path: Any, state: Any, injected: Mapping[str, Any] | None = None) -> Any:
    if hasattr(path, "invoke") and not inspect.isfunction(path):
        return path.invoke(state)
    result = path(state, **injected) if injected else path(state)
    if inspect.isawaitable(result):
        result = _run_awaitable(result)
    return result


def _run_awaitable(awaitable: Any) -> Any:
    """The result of an async router. Routers run where the task concludes; in an async run
    this thread's loop is busy with the task, so the router gets a loop of its own on a helper
    thread (with this context: config, runtime)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(awaitable))
    context = copy_context()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="superstep-router") as pool:
        return pool.submit(context.run, asyncio.run, _await(awaitable)).result()


def _close(trace: TaskRun, result: Any, outcome: TaskOutcome | BaseException) -> None:
    """End a task's callback run: with its error (or interrupt), else its return value."""
    if isinstance(outcome, BaseException):
        trace.error(outcome)
    elif outcome.error is not None:
        trace.error(outcome.error)
    elif outcome.interrupts:
        trace.error(GraphInterrupt(outcome.interrupts))
    else:
        trace.end(result)


def _update_chunk(writes: Sequence[tuple[str, Any]]) -> Any:
    """A task's ``updates`` chunk: its writes as a dict, ``None`` when it wrote nothing; a
    list of one-key dicts, one per write, when it wrote a channel more than once."""
    if not writes:
        return None
    if writes[0][0] == ROOT_KEY:  # a root state: the bare value (a list of them)
        return writes[0][1] if len(writes) == 1 else [value for _, value in writes]
    chunk = dict(writes)
    if len(chunk) < len(writes):
        return [{key: value} for key, value in writes]
    return chunk
