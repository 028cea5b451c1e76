"""`StateEditor`: one superstep of state edits (`update_state`, `bulk_update_state`), the
collaborator a compiled graph hands its updates to. Each update is written as the node it
names (its edges followed, its conditional edges evaluated on the state with the writes
applied), committed through the engine as one superstep (source "update"), saved as one
checkpoint; a copy (``as_node="__copy__"``) forks the checkpoint and an input
(``"__input__"``) starts the thread again, as LangGraph's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID, uuid5

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, get_checkpoint_metadata
from langgraph.checkpoint.serde.types import _DeltaSnapshot

from superstep_compat._internal._constants import END, INPUT, START
from superstep_compat.errors import InvalidUpdateError
from superstep_compat.graph._writes import node_writes
from superstep_compat.pregel._checkpoint_policy import always_updated, topic_keys
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
    BRANCH_PREFIX,
    INTERRUPT,
    START_CHANNEL,
    build_checkpoint,
    checkpoint_put,
    put_task_writes,
    write_checkpoint,
)
from superstep_compat.pregel._lgdelta import delta_channels, hydrate_delta_channels
from superstep_compat.pregel._lgdelta_write import NULL_TASK_ID, DeltaWrites
from superstep_compat.pregel._lgread import get_tuple, load_record
from superstep_compat.pregel._lgrestore import rebuild
from superstep_compat.pregel._record import (
    CheckpointRecord,
    config_of,
    record_config,
    step_in_progress,
)
from superstep_compat.pregel._saver_bridge import saver_call
from superstep_compat.pregel._task_context import RunContext, TaskOutcome, _now
from superstep_compat.pregel._task_inputs import check_task_inputs
from superstep_compat.types import Command, Send, StateUpdate
from superstep_core.node import External
from superstep_core.runtime import Execution

if TYPE_CHECKING:
    from superstep_compat.pregel._compile import Pregel

__all__ = ["COPY", "StateEditor"]

COPY = "__copy__"
"""``as_node`` of an update that copies the checkpoint (a sibling with source "fork");
``INPUT`` ("__input__") writes the update as the thread's input (source "input")."""
INPUT_EVENT = "__input__"  # the engine route to START (see `_compile`)
_NO_START: Any = object()


class StateEditor:
    """Applies updates to the checkpoints of ``graph`` (the graph whose checkpoints the
    config addresses: a subgraph's, for a subgraph's namespace)."""

    __slots__ = ("graph",)

    def __init__(self, graph: Pregel[Any, Any, Any, Any]) -> None:
        self.graph = graph

    def apply(
        self, saver: BaseCheckpointSaver[Any], config: Mapping[str, Any], updates: list[StateUpdate]
    ) -> dict[str, Any]:
        """One superstep of edits: every update's writes committed together, each update's
        node's edges followed, one checkpoint saved."""
        conf = config.get("configurable", {})
        thread, ns = str(conf["thread_id"]), conf.get("checkpoint_ns", "")  # as saved
        record = load_record(saver, thread, ns, conf.get("checkpoint_id"))
        deltas = delta_channels(self.graph)
        delta = DeltaWrites(deltas) if deltas else None
        superseded = False
        # the keys the checkpoint stores whole (a copy stores them as they are)
        stored_whole = (
            {
                k
                for k, v in record.checkpoint["channel_values"].items()
                if isinstance(v, _DeltaSnapshot)
            }
            if delta is not None and record is not None and record.checkpoint is not None
            else set()
        )
        if record is not None:
            # as LangGraph: an edit of a checkpoint the thread moved past saves no pending
            # writes there (its other children would read them)
            superseded = bool(conf.get("checkpoint_id")) and _superseded(saver, record)
        if delta is not None and record is not None:
            # as LangGraph: the edit's first checkpoint snapshots the delta keys that the
            # pending writes of the checkpoint it edits touch (a child's, or a paused step's)
            delta.force_pending(record.pending)
        saved_writes: list[Any] = []
        if record is not None and (step_in_progress(record) or _paused_part_way(record)):
            # an edit starts a new checkpoint: its step's tasks run afresh, without the
            # interrupts, answers and finished tasks' writes of the step in progress
            saved_writes = list(record.pending)
            record.engine = None
            record.pending = []
        if record is not None and record.null_applied:
            # its saved engine state has its writes of no task applied (see `_lgnull`);
            # LangGraph's edit builds on the stored channels without them
            record.engine = None
        if record is not None and record.engine is None:
            rebuild(self.graph, record, record.pending, saver, edit=True)
        elif record is not None:
            hydrate_delta_channels(self.graph, record, saver, edit=True)
        if record is not None and record.engine is not None:
            ex = Execution.restore(
                self.graph.engine, record.engine, record_trace=False, log_inputs=False
            )
        else:
            ex = Execution(self.graph.engine, thread, record_trace=False, log_inputs=False)
        special = {u.as_node for u in updates} & {COPY, INPUT}
        if record is not None and not special:
            # LangGraph prepares the edited checkpoint's tasks (to reuse their ids): a task
            # input its node's schema refuses fails the edit, as it fails `get_state`
            check_task_inputs(self.graph, record)
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
        keys_written: set[str] = set()  # the state keys the edit's updates write
        touched: set[str] = set()  # the channels they update (`build_checkpoint`'s written)
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
            if self.graph.lowlevel is not None:
                # a low-level graph has no START node: LangGraph writes the input straight
                # to its input channels, and the nodes they trigger are due
                written = _input_writes(self.graph.input_channels, start)
                if not written:
                    raise InvalidUpdateError(
                        f"Received no input writes for {self.graph.input_channels}"
                    )
                ex.edit(written, writer=INPUT)
            elif start is None:
                # LangGraph writes the whole value to __start__: only None writes nothing
                raise InvalidUpdateError(f"Received no input writes for {START}")
            else:
                ex.send(External(INPUT_EVENT, start))
            if record is not None and not superseded:
                # LangGraph saves the input as a pending write of the checkpoint it starts
                # from, as the task ``uuid5(<that checkpoint's id>, "__input__")``
                put_task_writes(
                    saver,
                    thread,
                    ns,
                    record.checkpoint_id,
                    str(uuid5(UUID(record.checkpoint_id), INPUT)),
                    _input_writes(self.graph.input_channels, start),
                )
            source, moved = "input", []
            if record is None:
                step = -1
            if self.graph.lowlevel is not None:
                start = _NO_START  # nothing waits in ``__start__``
        else:
            if record is not None and record.next == (START,) and ex.queue:
                # an input checkpoint rebuilt from LangGraph's fields has its input queued:
                # an edit is a step of its own, which consumes the input (as LangGraph's
                # ``__start__`` channel is consumed by any step), so it never arrives
                ex.abandon_pending()
            moved, results = self._edit(ex, config, record, updates)
            keys_written.update(k for _, outcome in results for k, _ in outcome.writes)
            always = always_updated(self.graph.spec.channels)
            for as_node, outcome in results:
                # as LangGraph applies them: a key or trigger written again with the value
                # it held is updated all the same (a new version)
                for k, _ in outcome_writes(outcome, edge_writes(self.graph.spec, as_node)):
                    if k in always or k.startswith(BRANCH_PREFIX):
                        touched.add(k)
            if delta is not None:
                written = [w for _, outcome in results for w in outcome.writes]
                delta.force_overwritten(written)
                if superseded:
                    # the thread moved past the checkpoint edited: the writes would be read
                    # by its other children's walks, so LangGraph snapshots them instead
                    delta.force(k for k, _ in written)
            if record is not None and not superseded:
                self._record_results(saver, record, results)
            if record is not None and _clears(updates) and saved_writes:
                moved += self._keep_finished(ex, record, saved_writes)
        pending = pending_activations(ex, self.graph.node_order)
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
            values={k: ex.values[k] for k in self.graph.state_channels if k in ex.values},
            next=tuple(name for name, _ in pending),
            tasks=task_records(
                checkpoint_id,
                pending,
                step=step,
                ns=ns,
                triggers_of=lambda name: node_triggers(self.graph.spec, name),
                pushes=push_indexes(ex, pending),
            ),
            metadata=_metadata(
                config,
                source,
                step,
                dict(record.metadata.get("parents") or {}) if record else {},
            ),
            created_at=_now(),
            engine=ex.snapshot(),
            ran=_ran_after_edit(record, source, moved),
            triggers=trigger_channels(ex, pending, pulls=self.graph.spec.subscriptions is None)
            if start is _NO_START
            else trigger_channels(ex, pending, start, pulls=self.graph.spec.subscriptions is None),
        )
        base = None if record is None else record.checkpoint
        build_checkpoint(
            saver,
            new,
            base,
            # no node ran: LangGraph's edit writes as its nodes under the trigger
            # ``__interrupt__``, which has no version, so ``versions_seen`` stays as it was
            listed=False,
            written=touched,
            engine_versions=ex.versions,
            topics=topic_keys(self.graph.spec.channels),
        )
        held = None if base is None else base["channel_versions"]
        lean = self.graph.lean_edits  # without the blob when restorable, as LangGraph
        if delta is None:
            write_checkpoint(saver, new, held, lean=lean)
        else:
            if COPY in special and record is not None:
                delta.copied(new, stored_whole, record.metadata)
            else:
                delta.built(
                    new,
                    None if record is None else record.metadata,
                    saver,
                    held,
                    fresh_edit=record is None,
                    updated=keys_written,
                )
            args, _ = checkpoint_put(saver, new, held, lean=lean)
            saver_call(saver, "put", *delta.stored(args))
        copied = record_config(new, checkpoint_id)
        values = updates[0].values
        if COPY in special and isinstance(values, list) and values:
            # a copy and an edit in one go: the edit is a step of its own on the copy
            edits = [StateUpdate(item[0], item[1], None) for item in values]
            return self.apply(saver, copied, edits)
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
        # LangGraph's edit is a step (its writes' task has a trigger), so the ephemeral
        # channels it does not write (a non-accumulating `Topic` too) are emptied
        ex.expire_ephemeral()
        if self.graph.lowlevel is not None:
            # a low-level node stays due only while a channel it subscribes to still holds a
            # value (LangGraph's pull task needs an available trigger), and is activated again
            # as such
            gotos = [*gotos, *self._still_due(ex, {k for k, _ in writes})]
        ex.edit(
            writes,
            writer="__update__",
            as_node=moved[0] if moved else None,
            activate=gotos,
            cancel_pending=True,
            spawn=[(send.node, send) for send in sends],
        )
        for as_node in moved[1:]:
            ex.edit((), writer="__update__", as_node=as_node)
        return moved, results

    def _still_due(self, ex: Execution, written: set[str]) -> list[str]:
        """The low-level nodes queued in ``ex`` that stay due after an edit writing
        ``written``: one of their triggers holds a value that is written or not ephemeral
        (the edit empties the ephemeral channels it does not write)."""
        engine = self.graph.engine
        channels = engine.channels
        held = written | {k for k in ex.values if k in channels and not channels[k].ephemeral}
        queued = dict.fromkeys(
            node
            for node, key in pending_activations(ex, self.graph.node_order)
            if key not in ex.instances or ex.instances[key].state == "active"
        )
        return [n for n in queued if n in engine.nodes and held & set(engine.nodes[n].triggers)]

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
            if not writes or task.name not in self.graph.nodes:
                continue
            outcome = saved_outcome(writes, edge_writes(self.graph.spec, task.name))
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
        history then shows the task's result as if it had run), else as a task of its own.
        Each with its task path, ``~__interrupt__, <index>``, as LangGraph hands it to a
        saver that takes one (savers order a checkpoint's writes by it: the updates of one
        superstep fold in the order given, a `DeltaChannel`'s replay too)."""
        taken: set[str] = set(record.finished)
        for k, (as_node, outcome) in enumerate(results):
            task_writes = outcome_writes(outcome, edge_writes(self.graph.spec, as_node))
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
                f"~__interrupt__, {k:010d}",
            )

    def _as_nodes(self, record: CheckpointRecord | None, updates: list[StateUpdate]) -> list[str]:
        """The node each update is written as, checked as LangGraph checks it."""
        if len(updates) > 1:
            for _, as_node, _ in updates:
                if as_node is None:
                    raise InvalidUpdateError("as_node is required when applying multiple updates")
                if as_node not in self.graph.nodes:
                    raise InvalidUpdateError(f"Node {as_node} does not exist")
            return [cast(str, u.as_node) for u in updates]
        values, as_node, _ = updates[0]
        if as_node is None and len(self.graph.nodes) == 1:
            as_node = next(
                iter(self.graph.nodes)
            )  # LangGraph: a graph of one node is written as it
        if as_node is None:
            ran = record.ran if record is not None else ()
            low = self.graph.lowlevel is not None
            # While no node has run on the thread (a fresh one, or one given only updates,
            # which LangGraph does not count as runs) LangGraph writes the update as its
            # input channel when that is a node: a StateGraph's START, whose edges then
            # run; a low-level graph's input is a channel.
            as_node = ran[-1] if len(ran) == 1 else (START if not ran and not low else None)
            if as_node is None:
                raise InvalidUpdateError("Ambiguous update, specify as_node")
        if as_node == END and values is None:
            return [END]  # clears the pending tasks, as LangGraph does
        if as_node not in self.graph.nodes:
            raise InvalidUpdateError(f"Node {as_node} does not exist")
        return [as_node]

    def _update_writes(
        self, ex: Execution, config: Mapping[str, Any], values: Any, as_node: str
    ) -> tuple[list[tuple[str, Any]], list[str], list[Send]]:
        """The writes of one update, the nodes it sends control to (a `Command`'s ``goto``
        and the conditional edges of ``as_node``, evaluated on the state with the writes
        applied) and the `Send`s among them."""
        if as_node == START:
            writes = self.graph.runner.input_writes(values) if values is not None else []
            # written as the input, a `Command` still routes: LangGraph's START writers
            # send control to its goto (beside START's own edges)
            targets: list[str | Send] = (
                node_writes(values, self.graph.runner.channel_keys).goto
                if isinstance(values, Command)
                else []
            )
        else:
            writes, targets = self.graph._node_update_writes(as_node, values)
        out = TaskOutcome(writes=writes)
        self.graph.runner._gotos(targets, out, as_node, RunContext(config=dict(config)))
        branches = self.graph.spec.branches.get(as_node)
        if branches:  # evaluated on the committed state with ``writes`` applied
            run = RunContext(config=dict(config), store=self.graph.store)
            self.graph.runner._branch(branches, ex.values, out, run, values)
        return writes, out.gotos, out.sends


def _ran_after_edit(
    record: CheckpointRecord | None, source: str, moved: list[str]
) -> tuple[str, ...]:
    """The nodes the checkpoint an edit saves names as the last that ran (whom a later
    `update_state` without ``as_node`` writes as). LangGraph infers that node from the
    checkpoint's ``versions_seen``, which an edit never moves (its writes are triggered by
    ``__interrupt__``, which has no version): after an edit of a thread that has
    checkpoints, it is still the node of the last step that ran, not the edit's
    ``as_node``. An edit of a new thread keeps its own nodes."""
    if source == "update" and record is not None:
        return record.ran
    return tuple(moved)


def _metadata(
    config: Mapping[str, Any], source: str, step: int, parents: dict[str, str] | None = None
) -> dict[str, Any]:
    """A checkpoint's metadata as LangGraph's savers store it: the source, step and the
    ancestors' checkpoints, and the config's metadata and configurable scalars except the
    thread's own keys."""
    base = {"source": source, "step": step, "parents": parents or {}}
    return dict(get_checkpoint_metadata(cast(RunnableConfig, config), cast(Any, base)))


def _input_writes(channels: str | Sequence[str], values: Any) -> list[tuple[str, Any]]:
    """The writes of ``values`` as input to ``channels`` (LangGraph's ``map_input``): the
    whole value to a single channel, else each of a mapping's keys that is an input
    channel."""
    if isinstance(channels, str):
        return [(channels, values)]
    if not isinstance(values, Mapping):
        raise TypeError(f"Expected input to be a dict, got {type(values).__name__}")
    return [(k, v) for k, v in values.items() if k in channels]


def _paused_part_way(record: CheckpointRecord) -> bool:
    """Whether ``record``, saved without the engine's blob (as LangGraph saves it), is a
    step that paused on interrupts beside tasks that finished (held back until every
    question is answered): a task's ``__interrupt__`` and another's outcome among its
    pending writes (writes of no task and of an input edit aside). Its step is in progress,
    as `step_in_progress` finds it in a saved engine state."""
    if record.engine is not None or not record.pending:
        return False
    skip = {NULL_TASK_ID, str(uuid5(UUID(record.checkpoint_id), INPUT))}
    by_task: dict[str, list[tuple[str, Any]]] = {}
    for task_id, channel, value in record.pending:
        if task_id not in skip:
            by_task.setdefault(task_id, []).append((channel, value))
    asked = [w for w in by_task.values() if any(c == INTERRUPT for c, _ in w)]
    return bool(asked) and any(saved_outcome(w) is not None for w in by_task.values())


def _clears(updates: Sequence[StateUpdate]) -> bool:
    """Whether ``updates`` is LangGraph's "clear": one update of no values as END."""
    return len(updates) == 1 and updates[0].as_node == END and updates[0].values is None


def _superseded(saver: BaseCheckpointSaver[Any], record: CheckpointRecord) -> bool:
    """Whether the thread has a checkpoint newer than ``record`` (LangGraph's
    ``checkpoint_superseded``: its latest is another)."""
    latest = get_tuple(saver, config_of(record.thread_id, record.checkpoint_ns, None))
    return latest is not None and latest.checkpoint["id"] != record.checkpoint_id
