"""Reading the state for a task and routing its result.

`TaskRouting` is the half of `TaskRunner` that does not run user actions itself: it reads the
state through a schema, turns a return value into writes, gotos and sends, evaluates a node's
conditional edges on its local view of the state, and runs the START task (the graph input).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import partial
from typing import Any

from superstep_compat._internal._constants import END, INPUT, PULL, START, TAG_HIDDEN, TASKS
from superstep_compat._internal._policies import TimeoutPolicy
from superstep_compat.channels.delta import DeltaChannel
from superstep_compat.errors import InvalidUpdateError
from superstep_compat.graph._schema import coerce_state
from superstep_compat.graph._spec import BranchSpec, GraphSpec, NodeSpec
from superstep_compat.graph._writes import node_writes
from superstep_compat.managed.base import StepInfo
from superstep_compat.pregel._callbacks import TaskRun
from superstep_compat.pregel._channels import LastValueStrategy, SpecStrategy
from superstep_compat.pregel._checkpoint_tasks import edge_writes, node_triggers
from superstep_compat.pregel._task_context import (
    RunContext,
    StartCommand,
    TaskOutcome,
    _join_ns,
    task_path,
    task_uuid,
)
from superstep_compat.pregel._task_support import (
    _call_router,
    _close,
    _heartbeat_writer,
    _noop,
    _runtime,
    _update_chunk,
    sequence_steps,
)
from superstep_compat.types import Command, Send
from superstep_core.channel import MISSING, Channel
from superstep_core.host import heartbeat as _heartbeat
from superstep_core.host.deadlines import deadline_stop

logger = logging.getLogger("langgraph")  # LangGraph's logger for these warnings


class TaskRouting:
    """Reads state and routes results for the nodes of one compiled graph."""

    def __init__(self, spec: GraphSpec, strategies: Mapping[str, Channel]) -> None:
        self.spec = spec
        self.strategies = strategies
        self.channel_keys = frozenset(spec.channels)
        self.node_names = frozenset(spec.nodes)
        self._ephemeral = tuple(k for k, c in strategies.items() if c.ephemeral)
        # the `DeltaChannel`s: a task's writes to them get their message ids when recorded
        self._delta = {
            k: c.spec
            for k, c in strategies.items()
            if isinstance(c, SpecStrategy) and isinstance(c.spec, DeltaChannel)
        }
        # a schema's (channels, managed values), and a node's LangGraph triggers: both read
        # for every task, fixed once the graph is compiled
        self._keys: dict[Any, tuple[tuple[str, ...], tuple[tuple[str, Any], ...]]] = {}
        self._triggers: dict[str, tuple[str, ...]] = {}
        self._pull_parts: dict[str, tuple[str, ...]] = {}
        # a node's static edge writes (`edge_writes`), read by every checkpoint a task of it
        # ends in: fixed once compiled, so found once per graph, not once per run
        self._edges: dict[str, list[tuple[str, Any]]] = {}
        self.state_keys = self._keys_of(spec.state_schema)
        # a task's ``updates`` chunk from its writes (a low-level `Pregel` sets its own)
        self.update_chunk: Callable[[Sequence[tuple[str, Any]]], Any] = _update_chunk
        # a low-level `Pregel`'s: its nodes are triggered by its own channels only (no
        # ``branch:to:<node>`` channel a goto could write), and its input is written as given
        self.lowlevel = False
        # when the first attempt of a task that may be retried started, by its namespace
        # (``node:<task id>``): its later attempts' `ExecutionInfo.node_first_attempt_time`
        # (the engine starts an attempt afresh); dropped once the task no longer retries
        self.first_attempts: dict[str, float] = {}
        # how many graph runs the failed attempts of a task that retries made, by namespace:
        # its next attempt numbers its subgraph runs on from there (see `ChildLink.calls`)
        self.subgraph_runs: dict[str, int] = {}

    def _keys_of(self, schema: Any) -> tuple[tuple[str, ...], tuple[tuple[str, Any], ...]]:
        known = self._keys.get(schema)
        if known is not None:
            return known
        info = self.spec.schemas.get(schema)
        if info is None:
            keys: tuple[tuple[str, ...], tuple[tuple[str, Any], ...]] = (
                tuple(self.spec.channels),
                (),
            )
        else:
            keys = (tuple(info.channels), tuple(info.managed.items()))
            self._keys[schema] = keys
        return keys

    def triggers(self, name: str) -> tuple[str, ...]:
        """LangGraph's trigger channels of node ``name`` (`node_triggers`), once per node."""
        found = self._triggers.get(name)
        if found is None:
            found = self._triggers[name] = node_triggers(self.spec, name)
        return found

    def pull_parts(self, name: str) -> tuple[str, ...]:
        """What a pull task of node ``name`` adds to the bytes of its LangGraph task id
        (`lg_task_id`): ``__pregel_pull`` and the node's triggers sorted, once per node
        (every checkpoint names the tasks due next)."""
        found = self._pull_parts.get(name)
        if found is None:
            found = self._pull_parts[name] = (PULL, *sorted(self.triggers(name)))
        return found

    def edge_writes(self, name: str) -> list[tuple[str, Any]]:
        """The pending writes of node ``name``'s static edges (`edge_writes`), once per
        node; shared: read it, never change it."""
        found = self._edges.get(name)
        if found is None:
            found = self._edges[name] = edge_writes(self.spec, name)
        return found

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

    def _writer(
        self, run: RunContext, limits: TimeoutPolicy | None = None
    ) -> Callable[[Any], None]:
        # under an idle timeout refreshed "auto"matically, a custom chunk is progress
        auto = limits is not None and limits.refresh_on == "auto"
        if run.emit is None or "custom" not in run.stream_modes:
            return _heartbeat_writer if auto else _noop
        emit = run.emit
        if limits is None:

            def write(chunk: Any) -> None:
                emit("custom", chunk)

            return write

        def write_timed(chunk: Any) -> None:
            # a chunk written once the host stopped the attempt at its limit (a node that
            # swallowed the cancellation) is dropped: LangGraph closes the attempt's stream
            if deadline_stop() is not None:
                return
            if auto:
                _heartbeat()
            emit("custom", chunk)

        return write_timed

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
        if self._delta:
            writes = self._with_message_ids(writes)
        out = TaskOutcome(writes=writes)
        out.update = self.update_chunk(writes)
        if written.goto:
            self._gotos(written.goto, out, node.name, run, commanded=True)
        if pushed:  # `Send`s written to ``__pregel_tasks`` through the task's send entry
            sent = [v for k, v in pushed if k == TASKS and isinstance(v, Send)]
            if sent:
                self._gotos(sent, out, node.name, run)
        branches = self.spec.branches.get(node.name)
        if branches:
            self._branch(branches, values, out, run, result)
        return out

    def _gotos(
        self,
        gotos: Sequence[Any],
        out: TaskOutcome,
        name: str,
        run: RunContext,
        commanded: bool = False,
    ) -> None:
        """Route ``gotos`` (node names and `Send`s); END goes nowhere. LangGraph ignores an
        unknown target with a warning (the write to its trigger channel, or the `Send`).
        ``commanded``: they are the task's own `Command`'s (`TaskOutcome.commanded`)."""
        kept: list[Any] | None = [] if commanded else None
        for goto in gotos:
            if isinstance(goto, Send):
                if goto.node in self.node_names or goto.node == START:
                    out.sends.append(goto)
                    if kept is not None:
                        kept.append(goto)
                else:
                    logger.warning(f"Ignoring unknown node name {goto.node} in pending sends")
            elif goto in self.node_names and not self.lowlevel:
                out.gotos.append(goto)
                if kept is not None:
                    kept.append(goto)
            elif goto != END:
                logger.warning(
                    f"Task {name} with path {task_path(name, run.push)} wrote to unknown "
                    f"channel branch:to:{goto}, ignoring it."
                )
        if kept:
            out.commanded = kept

    def warn_unknown(self, keys: Sequence[str], name: str, run: RunContext) -> None:
        """LangGraph's warning for writes of no task (an input `Command`'s, which it applies
        unfiltered) to keys that are no channels: it ignores them. A node's own writes are
        filtered to the channels silently."""
        for key in keys:
            logger.warning(
                f"Task {name} with path {task_path(name, run.push)} wrote to unknown "
                f"channel {key}, ignoring it."
            )

    def _branch(
        self,
        branches: Mapping[str, BranchSpec],
        values: Mapping[str, Any],
        out: TaskOutcome,
        run: RunContext,
        output: Any = None,
    ) -> None:
        """Run the routers of ``branches`` on the state with ``out``'s writes applied (read
        with `_router_schema`); a router without an input schema of its own also sees the
        keys of the node's ``output`` (a dict) that are no channels (LangGraph passes them
        through)."""
        local = self.fresh_state(values, out.writes)
        trace = run.trace
        first = self._writer_count(branches) if trace is not None else 0
        for position, branch in enumerate(branches.values(), first + 1):
            state = self.read(self._router_schema(branch), local, run)
            if branch.input_schema is None and isinstance(output, dict) and isinstance(state, dict):
                state = {**output, **state}
            path = branch.path
            call = self._router_call(branch, run, trace, position)
            if trace is not None:
                result = trace.route(position, path, state, call)
            else:
                result = call(path, state)
            items = result if isinstance(result, (list, tuple)) else [result]
            ends = branch.ends
            dests = [i if ends is None or isinstance(i, Send) else ends[i] for i in items]
            for dest in dests:
                if dest is None or dest == START:
                    raise ValueError("Branch did not return a valid destination")
                if isinstance(dest, Send) and dest.node == END:
                    raise InvalidUpdateError("Cannot send a packet to the END node")
            self._gotos(dests, out, branch.source, run)

    def _router_schema(self, branch: BranchSpec) -> Any:
        """The schema a router reads the state with (LangGraph's): its own input schema, else
        its source node's, else (from START) the graph's state schema."""
        if branch.input_schema is not None:
            return branch.input_schema
        source = self.spec.nodes.get(branch.source)
        return self.spec.state_schema if source is None else source.input_schema

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
        node = self.spec.nodes.get(source)
        steps = sequence_steps(node.action) if node is not None else None
        if steps:  # a sequence action's steps are the node's first writers
            count += len(steps) - 1
        count += sum(1 for s, t in self.spec.edges if s == source and t != END)
        count += sum(1 for ss, t in self.spec.waiting_edges if source in ss and t != END)
        return count

    def read_local(
        self,
        values: Mapping[str, Any],
        channels: Collection[str],
        written: Sequence[tuple[str, Any]],
        select: str | Sequence[str],
        fresh: bool = False,
    ) -> Any:
        """LangGraph's ``CONFIG_KEY_READ``: one channel's value (None when empty) or a dict of
        the selected channels that have one (KeyError for a key not among ``channels``, the
        graph's channels by name, in their order); ``fresh`` applies the task's writes so
        far. The hook is this bound to the first three arguments: ``channels`` second, where
        LangGraph's hook has its channels (its prebuilt ToolNode reads the names there)."""
        keys = [select] if isinstance(select, str) else select
        for key in keys:
            if key not in channels:
                raise KeyError(key)
        state = self.fresh_state(values, written) if fresh else values
        if isinstance(select, str):
            return state.get(select)
        return {key: state[key] for key in select if key in state}

    def fresh_state(
        self, values: Mapping[str, Any], writes: Sequence[tuple[str, Any]]
    ) -> dict[str, Any]:
        """What a router (or a fresh ``CONFIG_KEY_READ``) sees: `local_state`, less the
        ephemeral channels the task did not write. LangGraph's fresh read steps every channel
        with the task's writes, none for the others, which clears those (a ``jump_to`` set
        by the step before is gone for the router of the node it sent to)."""
        local = self.local_state(values, writes)
        if self._ephemeral:
            written = {key for key, _ in writes}
            for key in self._ephemeral:
                if key not in written:
                    local.pop(key, None)
        return local

    def local_state(
        self, values: Mapping[str, Any], writes: Sequence[tuple[str, Any]]
    ) -> dict[str, Any]:
        """``values`` with ``writes`` applied through the channels (LangGraph's local read)."""
        if not writes:
            return dict(values)
        grouped: dict[str, list[tuple[str, Any]]] = {}
        for key, value in writes:
            items = grouped.get(key)
            if items is None:
                grouped[key] = [("task", value)]
            else:
                items.append(("task", value))
        local = dict(values)
        strategies = self.strategies
        for key, items in grouped.items():
            strategy = strategies[key]
            if type(strategy) is LastValueStrategy:
                # its one write; several fail its combine, and the local read keeps the last
                local[key] = items[-1][1]
                continue
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
            or isinstance(arg, (Command, StartCommand))
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
            "langgraph_checkpoint_ns": _join_ns(
                run.checkpoint_ns, f"{START}:{task_uuid(run, task_id)}"
            ),
        }
        run.trace, _ = TaskRun.start(config, START, arg, run.step)
        outcome = self._start(values, arg, run)
        _close(run.trace, arg, outcome)
        return outcome

    def _with_message_ids(self, writes: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        """``writes`` with the messages written to a `DeltaChannel` given their ids, as
        LangGraph gives them before a task's writes are saved, streamed or applied."""
        delta = self._delta
        return [(k, delta[k].with_ids(v)) if k in delta else (k, v) for k, v in writes]

    def _start(self, values: Mapping[str, Any], arg: Any, run: RunContext) -> TaskOutcome:
        """Write the input (or apply an input `Command`) and evaluate START's branches."""
        try:
            if isinstance(arg, StartCommand):
                # a thread's first input: the Command's writes, then START's own routes
                command = arg.command
                written = node_writes(
                    Command(update=command.update, goto=command.goto), self.channel_keys
                )
                out = TaskOutcome(writes=written.writes)
                self._gotos(written.goto, out, START, run, commanded=True)
                branches = self.spec.branches.get(START)
                if branches:
                    self._branch(branches, values, out, run, command)
                return out
            if isinstance(arg, Command):
                out = TaskOutcome(skip_edges=True)
                written = node_writes(Command(update=arg.update, goto=arg.goto), self.channel_keys)
                out.writes = written.writes
                self._gotos(written.goto, out, START, run, commanded=True)
                self.warn_unknown(written.dropped, INPUT, run)
                return out
            writes = self.input_writes(arg)
            if self._delta:
                writes = self._with_message_ids(writes)
            out = TaskOutcome(writes=writes)
            branches = self.spec.branches.get(START)
            if branches:
                self._branch(branches, values, out, run, arg)
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
        if self.lowlevel and not isinstance(value, dict):  # LangGraph's check of its input
            raise TypeError(f"Expected chunk to be a dict, got {type(value).__name__}")
        written = node_writes(value, self.channel_keys)
        return [(k, v) for k, v in written.writes if k in keys]
