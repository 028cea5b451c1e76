"""`get_state`, `get_state_history`, `update_state` and `bulk_update_state`: views of saved
checkpoints, and edits committed through the engine as one superstep each (source "update").

A config whose ``checkpoint_ns`` names a subgraph (as `get_state(subgraphs=True)` hands them
out) addresses that subgraph's own checkpoints: its edits go through the subgraph's nodes and
channels, in the parent's saver.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, get_checkpoint_metadata

from superstep_compat._internal._constants import END, INPUT, ROOT_KEY, START
from superstep_compat._internal._merge import merge_configs
from superstep_compat.errors import InvalidUpdateError
from superstep_compat.graph._spec import GraphSpec
from superstep_compat.graph._writes import node_writes
from superstep_compat.pregel._checkpoint_tasks import (
    NO_WRITES,
    edge_writes,
    new_checkpoint_id,
    node_triggers,
    outcome_writes,
    pending_activations,
    push_indexes,
    saved_outcome,
    task_id_for,
    task_records,
    trigger_channels,
)
from superstep_compat.pregel._lgcheckpoint import (
    START_CHANNEL,
    build_checkpoint,
    list_records,
    load_record,
    put_task_writes,
    write_checkpoint,
)
from superstep_compat.pregel._lgrestore import rebuild
from superstep_compat.pregel._lowlevel import LowLevelDefinition
from superstep_compat.pregel._record import (
    CheckpointRecord,
    record_config,
    step_in_progress,
)
from superstep_compat.pregel._saver_bridge import off_saver_loop
from superstep_compat.pregel._task import TaskRunner
from superstep_compat.pregel._task_context import RunContext, TaskOutcome
from superstep_compat.pregel._task_results import task_results
from superstep_compat.types import PregelTask, Send, StateSnapshot, StateUpdate
from superstep_core.graph import CompiledGraph
from superstep_core.node import External
from superstep_core.runtime import Execution

__all__ = ["SnapshotsMixin", "snapshot_of"]

COPY = "__copy__"
"""``as_node`` of an update that copies the checkpoint (a sibling with source "fork");
``INPUT`` ("__input__") writes the update as the thread's input (source "input")."""
INPUT_EVENT = "__input__"  # the engine route to START (see `_compile`)
_NO_START: Any = object()


def snapshot_of(
    record: CheckpointRecord,
    saver: BaseCheckpointSaver[Any] | None = None,
    *,
    subgraphs: bool = False,
    live: bool = False,
    output: str | Sequence[str] | None = None,
    root: bool = False,
) -> StateSnapshot:
    """The `StateSnapshot` of one saved checkpoint. A task running a subgraph carries the
    subgraph's own snapshot (``subgraphs=True``) or the config that names it.

    ``live`` (the thread's latest state, as `get_state` without a ``checkpoint_id`` shows
    it): a step that did not finish shows the writes of its finished tasks, lists only the
    others as ``next`` and their interrupts as pending. Otherwise the snapshot is the record
    of the step: values as it started, every task, every interrupt raised.

    ``output``: the graph's output channels (a str: the one channel that is its whole
    output): each task's result is read from the checkpoint's pending writes as LangGraph
    reads it (see `task_results`); None keeps the record's own. ``root``: the state is one
    value (``__root__``), shown bare."""
    parent = None if record.parent_id is None else record_config(record, record.parent_id)
    finished = frozenset(record.finished) if live else frozenset()
    results = None if output is None else task_results(record.pending, output)
    tasks = tuple(
        PregelTask(
            t.id,
            t.name,
            t.path,
            t.error,  # type: ignore[arg-type]
            () if t.id in finished else tuple(t.interrupts),
            _task_state(record, t.state_ns, saver, subgraphs),
            t.result if results is None else results.get(t.id),
        )
        for t in record.tasks
    )
    values = record.values
    next_ = tuple(record.next)
    interrupts = tuple(record.interrupts)
    if record.finished:
        interrupts = tuple(i for t in tasks for i in t.interrupts)
    if finished:
        next_ = tuple(t.name for t in record.tasks if t.id not in finished)
        if record.current_values is not None:
            values = record.current_values
    return StateSnapshot(
        values=values.get(ROOT_KEY) if root else dict(values),
        next=next_,
        config=cast(RunnableConfig, record_config(record, record.checkpoint_id)),
        metadata=dict(record.metadata),
        created_at=record.created_at,
        parent_config=cast(RunnableConfig | None, parent),
        tasks=tasks,
        interrupts=interrupts,
    )


def _task_state(
    record: CheckpointRecord, ns: str, saver: BaseCheckpointSaver[Any] | None, subgraphs: bool
) -> Any:
    if not ns:
        return None
    if subgraphs and saver is not None:
        child = load_record(saver, record.thread_id, ns, None)
        if child is not None:
            return snapshot_of(child, saver, subgraphs=True, live=True)
    return {"configurable": {"thread_id": record.thread_id, "checkpoint_ns": ns}}


class SnapshotsMixin:
    """State views and edits of a `CompiledStateGraph` (which provides these attributes)."""

    engine: CompiledGraph
    runner: TaskRunner
    spec: GraphSpec
    store: Any
    nodes: dict[str, Any]
    node_order: dict[str, int]
    output_channels: tuple[str, ...]
    state_channels: tuple[str, ...]
    lowlevel: LowLevelDefinition | None
    config: RunnableConfig | None = None  # bound by `with_config`

    def _bound(self, config: Mapping[str, Any]) -> Mapping[str, Any]:
        """``config`` over the config `with_config` bound (as is when none was). Only
        `get_state` reads through it: LangGraph's history and updates take the thread from
        the given config alone."""
        return merge_configs(self.config, config) if self.config else config

    def saver_for(self, config: Mapping[str, Any]) -> BaseCheckpointSaver[Any] | None:
        raise NotImplementedError

    def _shown(self) -> dict[str, Any]:
        """How `snapshot_of` shows this graph's state: its output channels (one that is the
        whole output as a str, as LangGraph names a root state's or an entrypoint's), and
        whether the state is one root value."""
        output: str | Sequence[str] = self.output_channels
        if len(output) == 1 and output[0] in (ROOT_KEY, END):
            output = output[0]
        return {"output": output, "root": self.state_channels == (ROOT_KEY,)}

    def _saver(self, config: Mapping[str, Any]) -> BaseCheckpointSaver[Any]:
        saver = self.saver_for(config)
        if saver is None:
            raise ValueError("No checkpointer set")
        return saver

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        """The thread's latest checkpoint (or the one ``checkpoint_id`` names)."""
        config = self._bound(config)
        saver = self._saver(config)
        conf = config.get("configurable", {})
        checkpoint_id = conf.get("checkpoint_id")
        record = load_record(saver, conf["thread_id"], conf.get("checkpoint_ns", ""), checkpoint_id)
        if record is not None and record.engine is None:
            rebuild(self, record, record.pending)  # a checkpoint LangGraph wrote
        if record is None:
            empty = cast(RunnableConfig, {"configurable": dict(conf)})
            return StateSnapshot({}, (), empty, None, None, None, (), ())
        return snapshot_of(
            record, saver, subgraphs=subgraphs, live=checkpoint_id is None, **self._shown()
        )

    async def aget_state(
        self, config: Mapping[str, Any], *, subgraphs: bool = False
    ) -> StateSnapshot:
        saver = self.saver_for(config)
        return await off_saver_loop(saver, self.get_state, config, subgraphs=subgraphs)

    def get_state_history(
        self,
        config: Mapping[str, Any],
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[StateSnapshot]:
        """Checkpoints newest first; a ``config`` naming a ``checkpoint_id`` lists that one
        checkpoint alone (LangGraph hands the config to the saver's ``list``, which matches
        the id), so pass the thread's config without it to walk back from there."""
        saver = self._saver(config)
        conf = config.get("configurable", {})
        for record in list_records(
            saver,
            conf["thread_id"],
            conf.get("checkpoint_ns", ""),
            checkpoint_id=conf.get("checkpoint_id"),
            filter=filter,
            before=before,
            limit=limit,
        ):
            if record.engine is None:
                rebuild(self, record, record.pending)
            yield snapshot_of(record, **self._shown())

    async def aget_state_history(
        self,
        config: Mapping[str, Any],
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[StateSnapshot]:
        history = self.get_state_history(config, filter=filter, before=before, limit=limit)
        saver = self.saver_for(config)
        if saver is not None and getattr(saver, "loop", None) is not None:
            history = iter(await off_saver_loop(saver, list, history))
        for snapshot in history:
            yield snapshot

    # --- edits ---------------------------------------------------------------------------------

    def update_state(
        self,
        config: Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        """Write ``values`` as though ``as_node`` produced them (default: the node that ran
        last) and save a checkpoint with source "update"; returns its config. ``values``
        may be a `Command`: its ``goto`` schedules those nodes."""
        return self.bulk_update_state(config, [[StateUpdate(values, as_node, task_id)]])

    async def aupdate_state(
        self,
        config: Mapping[str, Any],
        values: Any,
        as_node: str | None = None,
        task_id: str | None = None,
    ) -> dict[str, Any]:
        saver = self.saver_for(config)
        return await off_saver_loop(saver, self.update_state, config, values, as_node, task_id)

    def bulk_update_state(
        self, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]
    ) -> dict[str, Any]:
        """Apply ``supersteps`` in turn, each a list of `StateUpdate`s (``(values, as_node)``
        tuples) written together as one checkpoint; returns the last one's config."""
        saver = self._saver(config)
        if len(supersteps) == 0:
            raise ValueError("No supersteps provided")
        if any(len(updates) == 0 for updates in supersteps):
            raise ValueError("No updates provided")
        graph = self._graph_for(config)
        current: dict[str, Any] = dict(config)
        for updates in supersteps:
            current = graph._apply_updates(saver, current, [_update_of(u) for u in updates])
        return current

    async def abulk_update_state(
        self, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]
    ) -> dict[str, Any]:
        saver = self.saver_for(config)
        return await off_saver_loop(saver, self.bulk_update_state, config, supersteps)

    def _graph_for(self, config: Mapping[str, Any]) -> SnapshotsMixin:
        """The graph whose checkpoints ``config`` addresses: this one, or the subgraph its
        ``checkpoint_ns`` names (``"node:<task>|inner:<task>"``)."""
        ns = config.get("configurable", {}).get("checkpoint_ns", "") or ""
        graph: SnapshotsMixin = self
        if not ns:
            return graph
        names = [part.split(":")[0] for part in ns.split("|")]
        for name in names:
            node = graph.spec.nodes.get(name)
            action = getattr(node, "action", None)
            if not getattr(action, "is_superstep_graph", False):
                raise ValueError(f"Subgraph {'|'.join(names)} not found")
            graph = cast(SnapshotsMixin, action)
        return graph

    def _apply_updates(
        self, saver: BaseCheckpointSaver[Any], config: Mapping[str, Any], updates: list[StateUpdate]
    ) -> dict[str, Any]:
        """One superstep of edits: every update's writes committed together, each update's
        node's edges followed, one checkpoint saved."""
        conf = config.get("configurable", {})
        thread, ns = conf["thread_id"], conf.get("checkpoint_ns", "")
        record = load_record(saver, thread, ns, conf.get("checkpoint_id"))
        saved_writes: list[Any] = []
        if record is not None and step_in_progress(record):
            # an edit starts a new checkpoint: its step's tasks run afresh, without the
            # interrupts, answers and finished tasks' writes of the step in progress
            saved_writes = list(record.pending)
            record.engine = None
            record.pending = []
        if record is not None and record.engine is None:
            rebuild(self, record, record.pending)
        if record is not None and record.engine is not None:
            ex = Execution.restore(self.engine, record.engine, record_trace=False)
        else:
            ex = Execution(self.engine, thread, record_trace=False)
        special = {u.as_node for u in updates} & {COPY, INPUT}
        if special and len(updates) > 1:
            raise InvalidUpdateError(
                "Cannot copy checkpoint with multiple updates"
                if COPY in special
                else "Cannot apply multiple updates when updating as input"
            )
        step = (record.step if record is not None else -1) + 1
        parent_id = None if record is None else record.checkpoint_id
        source = "update"
        start: Any = _NO_START
        if COPY in special:
            # a sibling of the checkpoint: its values and tasks, its parent, nothing done
            if record is None:
                raise InvalidUpdateError("Cannot copy a non-existent checkpoint")
            source, parent_id, moved = "fork", record.parent_id, list(record.ran)
            if record.next == (START,) and START_CHANNEL in record.triggers:
                start = record.triggers[START_CHANNEL]  # a copy of an input checkpoint
        elif INPUT in special:
            # the values as a new input of the thread: ``__start__`` is due with them
            start = updates[0].values
            if start is None:
                # LangGraph writes the whole value to __start__: only None writes nothing
                raise InvalidUpdateError(f"Received no input writes for {START}")
            ex.send(External(INPUT_EVENT, start))
            source, moved = "input", []
            if record is None:
                step = -1
        else:
            if record is not None and record.next == (START,) and ex.queue:
                # an input checkpoint rebuilt from LangGraph's fields has its input queued:
                # an edit is a step of its own, which consumes the input (as LangGraph's
                # ``__start__`` channel is consumed by any step), so it never arrives
                ex.abandon_pending()
            moved, results = self._edit(ex, config, record, updates)
            if record is not None:
                self._record_results(saver, record, results)
                if _clears(updates) and saved_writes:
                    moved += self._keep_finished(ex, record, saved_writes)
        pending = pending_activations(ex, self.node_order)
        if start is not _NO_START and not any(name == START for name, _ in pending):
            pending.insert(0, (START, START))  # the input waits for it (keyed by name)
        checkpoint_id = new_checkpoint_id(step)
        new = CheckpointRecord(
            thread_id=thread,
            checkpoint_ns=ns,
            checkpoint_id=checkpoint_id,
            parent_id=parent_id,
            step=step,
            source=source,
            values={k: ex.values[k] for k in self.state_channels if k in ex.values},
            next=tuple(name for name, _ in pending),
            tasks=task_records(
                checkpoint_id,
                pending,
                step=step,
                ns=ns,
                triggers_of=lambda name: node_triggers(self.spec, name),
                pushes=push_indexes(ex, pending),
            ),
            metadata=_metadata(
                config,
                source,
                step,
                dict(record.metadata.get("parents") or {}) if record else {},
            ),
            created_at=datetime.now(UTC).isoformat(),
            engine=ex.snapshot(),
            ran=tuple(moved),
            triggers=trigger_channels(ex, pending)
            if start is _NO_START
            else trigger_channels(ex, pending, start),
        )
        base = None if record is None else record.checkpoint
        build_checkpoint(
            saver,
            new,
            base,
            ran=[n for n in moved if n in self.nodes],
            triggers_of=lambda name: node_triggers(self.spec, name),
        )
        held = None if base is None else base["channel_versions"]
        write_checkpoint(saver, new, held)
        copied = record_config(new, checkpoint_id)
        values = updates[0].values
        if COPY in special and isinstance(values, list) and values:
            # a copy and an edit in one go: the edit is a step of its own on the copy
            edits = [StateUpdate(item[0], item[1], None) for item in values]
            return self._apply_updates(saver, copied, edits)
        return copied

    def _edit(
        self,
        ex: Execution,
        config: Mapping[str, Any],
        record: CheckpointRecord | None,
        updates: list[StateUpdate],
    ) -> tuple[list[str], list[tuple[str, TaskOutcome]]]:
        """Commit ``updates`` as one superstep of ``ex`` (each as its node, whose edges are
        followed); returns the nodes they were written as, and each update as the outcome
        of a task of that node."""
        names = self._as_nodes(record, updates)
        if len(updates) == 1 and updates[0].as_node == END and updates[0].values is None:
            # LangGraph's "clear": every pending task goes, interrupted ones too
            ex.abandon_pending()
        writes: list[tuple[str, Any]] = []
        gotos: list[str] = []
        sends: list[Send] = []
        results: list[tuple[str, TaskOutcome]] = []
        for (values, _, _), as_node in zip(updates, names, strict=True):
            written, goto, sent = self._update_writes(ex, config, values, as_node)
            writes.extend(written)
            gotos.extend(goto)
            sends.extend(sent)
            if as_node != END:
                results.append((as_node, TaskOutcome(writes=written, gotos=goto, sends=sent)))
        moved = [n for n in names if n != END]
        ex.edit(
            writes,
            writer="__update__",
            as_node=moved[0] if moved else None,
            activate=gotos,
            # a low-level node still due (a channel it subscribes to changed since it ran)
            # stays due, as its task in LangGraph
            cancel_pending=self.lowlevel is None,
            spawn=[(send.node, send) for send in sends],
        )
        for as_node in moved[1:]:
            ex.edit((), writer="__update__", as_node=as_node)
        return moved, results

    def _keep_finished(
        self, ex: Execution, record: CheckpointRecord, pending: Sequence[Any]
    ) -> list[str]:
        """Clearing a step part-way (``update_state(None, as_node=END)``) keeps what its
        finished tasks wrote, as LangGraph applies their saved writes when it clears the
        step's tasks: each task's writes, as its node (its edges followed). Returns the
        nodes."""
        by_task: dict[str, list[tuple[str, Any]]] = {}
        for task_id, channel, value in pending:
            by_task.setdefault(task_id, []).append((channel, value))
        kept: list[str] = []
        # in LangGraph's order of applying a step's writes: by task path (pull tasks by
        # name, then push tasks by index)
        ordered = sorted(
            record.tasks,
            key=lambda t: (str(t.path[0]), str(t.path[1]).zfill(10) if len(t.path) > 1 else ""),
        )
        for task in ordered:
            writes = by_task.get(task.id)
            if not writes or task.name not in self.nodes:
                continue
            outcome = saved_outcome(writes, edge_writes(self.spec, task.name))
            if outcome is None:
                continue
            ex.edit(
                outcome.writes,
                writer="__update__",
                as_node=task.name,
                activate=outcome.gotos,
                spawn=[(send.node, send) for send in outcome.sends],
            )
            kept.append(task.name)
        return kept

    def _record_results(
        self,
        saver: BaseCheckpointSaver[Any],
        record: CheckpointRecord,
        results: list[tuple[str, TaskOutcome]],
    ) -> None:
        """As LangGraph, an update's writes are saved as pending writes of the checkpoint it
        edits: written as a node that has a task without writes there, as that task's (the
        history then shows the task's result as if it had run), else as a task of its own."""
        taken: set[str] = set(record.finished)
        for k, (as_node, outcome) in enumerate(results):
            task_writes = outcome_writes(outcome, edge_writes(self.spec, as_node))
            if task_writes == [(NO_WRITES, None)]:
                continue  # LangGraph saves no writes for an update that writes nothing
            task = next(
                (
                    t
                    for t in record.tasks
                    if t.name == as_node and t.id not in taken and t.result is None
                ),
                None,
            )
            if task is not None:
                taken.add(task.id)
            put_task_writes(
                saver,
                record.thread_id,
                record.checkpoint_ns,
                record.checkpoint_id,
                task.id
                if task is not None
                else task_id_for(record.checkpoint_id, f"{k}~{as_node}"),
                task_writes,
            )

    def _as_nodes(self, record: CheckpointRecord | None, updates: list[StateUpdate]) -> list[str]:
        """The node each update is written as, checked as LangGraph checks it."""
        if len(updates) > 1:
            for _, as_node, _ in updates:
                if as_node is None:
                    raise InvalidUpdateError("as_node is required when applying multiple updates")
                if as_node not in self.nodes:
                    raise InvalidUpdateError(f"Node {as_node} does not exist")
            return [cast(str, u.as_node) for u in updates]
        values, as_node, _ = updates[0]
        if as_node is None and len(self.nodes) == 1:
            as_node = next(iter(self.nodes))  # LangGraph: a graph of one node is written as it
        if as_node is None:
            ran = record.ran if record is not None else ()
            as_node = ran[-1] if len(ran) == 1 else (START if record is None else None)
            if as_node is None and ran:
                raise InvalidUpdateError("Ambiguous update, specify as_node")
            if as_node is None:
                return [END]  # nothing ran yet: a plain write, no edges to follow
        if as_node == END and values is None:
            return [END]  # clears the pending tasks, as LangGraph does
        if as_node not in self.nodes:
            raise InvalidUpdateError(f"Node {as_node} does not exist")
        return [as_node]

    def _node_update_writes(
        self, as_node: str, values: Any
    ) -> tuple[list[tuple[str, Any]], list[str | Send]]:
        """The writes (and gotos) of ``values`` written as node ``as_node`` returned them
        (a low-level node's: what its writers make of ``values`` taken as its output)."""
        if self.lowlevel is not None:
            return self.lowlevel.update_writes(as_node, values), []
        written = node_writes(values, self.runner.channel_keys)
        return written.writes, written.goto

    def _update_writes(
        self, ex: Execution, config: Mapping[str, Any], values: Any, as_node: str
    ) -> tuple[list[tuple[str, Any]], list[str], list[Send]]:
        """The writes of one update, the nodes it sends control to (a `Command`'s ``goto``
        and the conditional edges of ``as_node``, evaluated on the state with the writes
        applied) and the `Send`s among them."""
        if as_node == START:
            writes = self.runner.input_writes(values) if values is not None else []
            targets: list[str | Send] = []
        else:
            writes, targets = self._node_update_writes(as_node, values)
        out = TaskOutcome(writes=writes)
        self.runner._gotos(targets, out, as_node, RunContext(config=dict(config)))
        branches = self.spec.branches.get(as_node)
        if branches:  # evaluated on the committed state with ``writes`` applied
            run = RunContext(config=dict(config), store=self.store)
            self.runner._branch(branches, ex.values, out, run)
        return writes, out.gotos, out.sends


def _metadata(
    config: Mapping[str, Any], source: str, step: int, parents: dict[str, str] | None = None
) -> dict[str, Any]:
    """A checkpoint's metadata as LangGraph's savers store it: the source, step and the
    ancestors' checkpoints, and the config's metadata and configurable scalars except the
    thread's own keys."""
    base = {"source": source, "step": step, "parents": parents or {}}
    return dict(get_checkpoint_metadata(cast(RunnableConfig, config), cast(Any, base)))


def _clears(updates: Sequence[StateUpdate]) -> bool:
    """Whether ``updates`` is LangGraph's "clear": one update of no values as END."""
    return len(updates) == 1 and updates[0].as_node == END and updates[0].values is None


def _update_of(update: Any) -> StateUpdate:
    """An update as LangGraph unpacks it: exactly (values, as_node, task_id)."""
    if isinstance(update, StateUpdate):
        return update
    values, as_node, task_id = update
    return StateUpdate(values, as_node, task_id)
