"""What a façade run writes to its saver: one LangGraph checkpoint per step (through the
LangGraph protocol, see `_lgcheckpoint`), the step that did not finish (interrupted or
failed), and the pending writes of its tasks; and what a run continuing from a checkpoint
takes back from it.

A step is atomic in LangGraph: when one of its tasks fails or interrupts, the tasks that
finished keep their writes as pending writes of the step's checkpoint, and continuing the
thread re-runs only the others. An interrupted step's finished tasks wait in the engine
(`suspend_holds_step`: their results are held, and commit with the step once its interrupted
tasks have finished); their writes are also saved with ``put_writes``, as LangGraph saves them.
A failed step's finished outcomes are saved the same way; continuing from that checkpoint hands
each saved outcome back to its activation (ids are deterministic across `Execution.restore`)
instead of running it. A checkpoint's tasks are keyed by activation id, so a task id names one
activation.

Durability "exit" keeps every checkpoint in memory and saves only the last one, when the run
ends (completed, interrupted or failed), as LangGraph does.

Never imports the host or the engine's persistence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from superstep_compat._internal._constants import ERROR_SOURCE_NODE, START
from superstep_compat.pregel._checkpoint_tasks import (
    _MISSING,
    ERROR_CHANNEL,
    Event,
    edge_writes,
    find_task,
    held_outcomes,
    new_checkpoint_id,
    node_of,
    node_triggers,
    outcome_writes,
    push_indexes,
    saved_outcome,
    task_records,
    trigger_channels,
)
from superstep_compat.pregel._checkpoint_writer import CheckpointWriter
from superstep_compat.pregel._lgcheckpoint import (
    INTERRUPT,
    PUSH,
    build_checkpoint,
    pending_writes,
    restorable,
    written_lean,
)
from superstep_compat.pregel._output_keys import OutputKeys, read_keys
from superstep_compat.pregel._record import (
    CheckpointRecord,
    PendingWrite,
    TaskRecord,
    record_config,
    task_state_config,
)
from superstep_compat.pregel._snapshots import StateViews
from superstep_compat.pregel._task_context import RunContext, TaskOutcome, _now, task_uuid
from superstep_compat.types import Interrupt, Send
from superstep_core.node import Activated
from superstep_core.runtime import Execution

__all__ = ["Checkpointing"]


class Checkpointing:
    """The checkpoint-writing half of `GraphRun` (which provides these attributes)."""

    saver: BaseCheckpointSaver[Any] | None
    thread_id: str | None
    ns: str
    parents: dict[str, str]  # the ancestors' checkpoint ids by namespace (a subgraph's)
    step: int
    record: CheckpointRecord | None
    config: dict[str, Any]
    modes: frozenset[str]
    interrupts: list[Interrupt[Any]]
    durable: bool
    step_writes: bool  # whether a finished step's task writes are saved (not with "exit")
    graph: Any
    failed_results: list[tuple[str, TaskOutcome]]
    _handed_over: list[tuple[str, TaskOutcome]]
    writer: CheckpointWriter  # the run's saver I/O
    saved: dict[str, TaskOutcome] | None
    _cached: list[tuple[str, Any]]
    _held: bool
    _reported: set[str]
    _command_input: bool
    _last_values: dict[str, Any] | None
    keys: OutputKeys | None  # what the run's chunks show (`_output_keys`)
    first_step_order: dict[str, int]  # the order the first step starts its pull tasks in
    # the tasks of a resumed step that finished before it paused, to announce as it resumes
    held_starts: list[str]
    # A checkpoint the engine's state can be rebuilt from is written without its blob (see
    # `write_checkpoint`); the functional API keeps its journal's state in the blob. (The
    # run's `writer` is built with it.)
    lean_checkpoints: bool = True
    # the record `_checkpoint` built last and the highest of its channel versions (besides
    # the blob's: writing it again with the blob changes no other)
    _top_version: tuple[CheckpointRecord, Any] | None = None
    # the graph's subgraph by node name (`StateViews.subgraph_of`), found when first asked
    _subgraph_lookup: Callable[[str], Any] | None = None

    def _values(self, ex: Execution) -> dict[str, Any]:
        raise NotImplementedError

    def _values_of(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The state channels of ``values`` that have one."""
        return {k: values[k] for k in self.graph.state_channels if k in values}

    def paused_values(self, ex: Execution) -> dict[str, Any]:
        """The committed values with the writes of the tasks that finished in a paused step
        applied (they wait in the engine, see `suspend_holds_step`): the step's live view,
        as LangGraph shows its pending writes."""
        writes = [w for _, outcome in held_outcomes(ex) for w in outcome.writes]
        return self.graph.runner.local_state(ex.values, writes) if writes else dict(ex.values)

    def _run_context(self) -> RunContext:
        raise NotImplementedError

    def _emit_transient(self, mode: str, data: Any, ns: tuple[str, ...] = ()) -> None:
        raise NotImplementedError

    def _outcome_writes(self, name: str, result: TaskOutcome) -> list[tuple[str, Any]]:
        """Task ``name``'s pending writes as LangGraph writes them (its edges included)."""
        return outcome_writes(result, edge_writes(self.graph.spec, name))

    def _triggers_of(self, name: str) -> tuple[str, ...]:
        """The channels whose new versions trigger node ``name`` (LangGraph's triggers)."""
        return node_triggers(self.graph.spec, name)

    def _pending_triggers(
        self, ex: Execution, pending: Sequence[tuple[str, str]], start: Any = _MISSING
    ) -> dict[str, Any]:
        """The trigger channels of a checkpoint's pending tasks (see `trigger_channels`)."""
        return trigger_channels(ex, pending, start)

    def _checkpoint(
        self,
        ex: Execution,
        source: str,
        *,
        next_: tuple[str, ...],
        values: dict[str, Any],
        ran: Sequence[tuple[str, TaskOutcome]] = (),
        keys: Sequence[str] | None = None,
        start: Any = _MISSING,
        handed_over: Sequence[tuple[str, TaskOutcome]] = (),
    ) -> list[Event]:
        """Save a checkpoint (when the run has a saver) and return its stream events.
        ``keys``: the key of each task in ``next_`` (activation ids; default: node names);
        ``start``: the input an input checkpoint holds in ``__start__``; ``handed_over``: the
        tasks that failed for good and went on as their error handler (each keeps its error
        in the parent checkpoint, as a task that failed)."""
        if source in ("input", "fork"):
            self.step += 1
        if self.saver is None or self.thread_id is None:
            return []
        parent = self.record
        ran_names = {node_of(aid) for aid, _ in ran}
        pulled: set[str] = set()
        if parent is not None and handed_over:
            for task_id, task_writes in self._note_handed_over(parent, handed_over):
                self.writer.put_writes(parent, task_id, task_writes)
        if parent is not None and (ran or parent.finished):
            keep = self.step_writes  # durability "exit" keeps no writes of a finished step
            for aid, result in ran:
                task = find_task(parent, aid)
                if task is None:
                    continue
                task.result = result.update
                if task.path[:1] == ("__pregel_pull",):
                    pulled.add(task.name)
                if keep and task.id not in parent.finished:
                    self.writer.put_writes(parent, task.id, self._outcome_writes(task.name, result))
            if parent.finished:  # the tasks that finished before the step did ran in it too
                for t in parent.tasks:
                    if t.id in parent.finished:
                        ran_names.add(t.name)
                        if t.path[:1] == ("__pregel_pull",):
                            pulled.add(t.name)
        checkpoint_id = new_checkpoint_id(self.step)
        # As the saver's ``put`` merges the run config into what LangGraph hands it: the
        # run's metadata and configurable scalars, minus the thread's own keys.
        metadata: dict[str, Any] = {
            "source": source,
            "step": self.step,
            "parents": dict(self.parents),
            **self.writer.config_metadata(self.config),
        }
        pending = list(zip(next_, next_ if keys is None else keys))
        record = CheckpointRecord(
            thread_id=self.thread_id,
            checkpoint_ns=self.ns,
            checkpoint_id=checkpoint_id,
            parent_id=None if parent is None else parent.checkpoint_id,
            step=self.step,
            source=source,
            values=dict(values),
            next=next_,
            tasks=task_records(
                checkpoint_id,
                pending,
                step=self.step,
                ns=self.ns,
                triggers_of=self._triggers_of,
                pushes=push_indexes(ex, pending),
            ),
            metadata=metadata,
            created_at=_now(),
            engine=ex.snapshot(),
            ran=tuple(sorted(ran_names)),
            triggers=self._pending_triggers(ex, pending, start),
        )
        base = None if parent is None else parent.checkpoint
        known = self._top_version
        top = known[1] if known is not None and known[0] is parent is not None else None
        built = build_checkpoint(
            self.saver,
            record,
            base,
            ran=sorted(pulled),
            triggers_of=self._triggers_of,
            top=top,
            unwritten=[k for k, v in ex.versions.items() if not v],
        )
        updated = built["updated_channels"]
        if updated:
            top = built["channel_versions"][updated[0]]  # every updated channel has the new one
        else:  # perhaps only channels that are gone moved on: found again when next needed
            top = None
        self._top_version = None if top is None else (record, top)
        self.writer.built_on = (record, None if base is None else base["channel_versions"])
        if self.durable:
            self.writer.save(record)
        self.record = record
        last = self.writer.last_saved
        parent_id = (
            record.parent_id if self.durable else None if last is None else last.checkpoint_id
        )
        return self._checkpoint_events(record, parent_id)

    def _checkpoint_events(self, record: CheckpointRecord, parent_id: str | None) -> list[Event]:
        if "checkpoints" not in self.modes and "debug" not in self.modes:
            return []
        tasks, next_ = record.tasks, list(record.next)
        if not self.first_step_order and len(tasks) == len(next_) > 1:
            # the run's own view lists the step's pull tasks by node name, as LangGraph
            # prepares them knowing which channels changed (a saved checkpoint's view and
            # the first step after an edit: in the order the nodes were added)
            tasks = sorted(
                tasks, key=lambda t: (t.path[0] != PUSH, "" if t.path[0] == PUSH else t.name)
            )
            next_ = [t.name for t in tasks]
        payload = {
            "config": record_config(record, record.checkpoint_id),
            "parent_config": None if parent_id is None else record_config(record, parent_id),
            "values": dict(record.values),
            "metadata": dict(record.metadata),
            "next": next_,
            "tasks": [
                {
                    "id": t.id,
                    "name": t.name,
                    "interrupts": tuple(t.interrupts),
                    "state": self._task_state(record, t),
                }
                for t in tasks
            ],
        }
        out: list[Event] = []
        if "checkpoints" in self.modes:
            out.append(((), "checkpoints", payload))
        if "debug" in self.modes:
            debug = {
                "step": record.step,
                "timestamp": record.created_at,
                "type": "checkpoint",
                "payload": payload,
            }
            out.append(((), "debug", debug))
        return out

    def _task_state(self, record: CheckpointRecord, task: TaskRecord) -> dict[str, Any] | None:
        """A checkpoint chunk's task ``state``, as `get_state` shows it without
        ``subgraphs``: the config naming the subgraph the task's node runs, else None."""
        if self._subgraph_lookup is None:
            self._subgraph_lookup = StateViews(self.graph).subgraph_of()
        if self._subgraph_lookup(task.name) is None:
            return None
        return task_state_config(record, task)

    # --- continuing from a checkpoint ---------------------------------------------------------

    def _continue(
        self, ex: Execution, record: CheckpointRecord, forked: list[Event] | None
    ) -> list[Event]:
        """A run that continues the thread from ``record``: it first shows the state it
        starts from (``values``, then the checkpoint), as LangGraph does; a top-level
        `Command` without ``resume`` shows it once applied (see `_apply_command`)."""
        self._last_values = dict(record.values)
        # a step paused on interrupts (its interrupted tasks may be about to run again,
        # their siblings' outcomes held)
        self._held = bool(ex.interrupts) or bool(ex.held)
        self._reported = {aid for aid, _ in ex.held}  # reported when their step paused
        if ex.held and ("tasks" in self.modes or "debug" in self.modes):
            # LangGraph announces every task of the step it resumes, finished ones too
            self.held_starts = list(dict.fromkeys(aid for aid, _ in ex.held))
        # time travel runs the step's finished tasks again; continuing hands their work back
        # (and a failure an error handler took goes to the handler again, not to its node)
        if forked is None and (record.finished or any(t.error for t in record.tasks)):
            self.saved = self._load_finished(ex, record) or None
            served = {
                task.id for aid in self.saved or () if (task := find_task(record, aid)) is not None
            }
            self._cached = [
                (t.name, t.result)
                for t in record.tasks
                if t.id in record.finished and t.id not in served and t.name != START
            ]
        if self._command_input:
            return forked or []
        events: list[Event] = []
        if "values" in self.modes:
            keys = self.keys  # a continued thread shows its state whatever wrote it
            shown = dict(record.values) if keys is None else read_keys(record.values, keys)
            events.append(((), "values", shown))
        if forked is not None:
            events.extend(forked)
        else:
            events.extend(self._checkpoint_events(record, record.parent_id))
        return events

    def take_saved(
        self, name: str, activation_id: str, values: Any, arg: Any
    ) -> TaskOutcome | None:
        """The saved outcome of activation ``activation_id`` (a task that finished in a step
        that then failed), announced as a task start as LangGraph does; None: run it."""
        saved = self.saved
        outcome = None if saved is None else saved.pop(activation_id, None)
        if outcome is None or ("tasks" not in self.modes and "debug" not in self.modes):
            return outcome
        ctx = self._run_context()
        node = self.graph.spec.nodes.get(name)
        state = arg
        if state is None and node is not None:
            state = self.graph.runner.read(node.input_schema, values, ctx)
        start = {
            "id": task_uuid(ctx, activation_id),
            "name": name,
            "input": state,
            "triggers": (f"branch:to:{name}",),
        }
        self._emit_start(ctx.step, start)
        return outcome

    def _emit_start(self, step: int, start: dict[str, Any]) -> None:
        """A task's start, in the ``tasks`` and ``debug`` modes."""
        if "tasks" in self.modes:
            self._emit_transient("tasks", start)
        if "debug" in self.modes:
            self._emit_transient(
                "debug", {"step": step, "timestamp": _now(), "type": "task", "payload": start}
            )

    def _held_start(self, ex: Execution, activation_id: str) -> Callable[[], None]:
        """What announces the start of a task that finished before its step paused (its
        result held in the engine) when the step resumes: its input as it first ran."""
        inst = ex.instances.get(activation_id)
        payload = inst.payload if inst is not None else None
        name = node_of(activation_id)
        ctx = self._run_context()
        node = self.graph.spec.nodes.get(name)
        state = payload.arg if isinstance(payload, Send) else None  # a Send's task: its arg
        if state is None and node is not None:
            state = self.graph.runner.read(node.input_schema, ex.values, ctx)
        start = {
            "id": task_uuid(ctx, activation_id),
            "name": name,
            "input": state,
            "triggers": (PUSH,) if isinstance(payload, Send) else self._triggers_of(name),
        }
        return partial(self._emit_start, ctx.step, start)

    # --- a step that did not finish ------------------------------------------------------------

    def _record_interrupts(
        self,
        ex: Execution,
        interrupted: Sequence[tuple[str, TaskOutcome]],
        finished: Sequence[tuple[str, TaskOutcome]] = (),
    ) -> None:
        """The step stopped on interrupts: note them (``__interrupt__`` writes), and the tasks
        that finished (their writes are committed in the engine, so the live view of the step
        shows them; LangGraph keeps them as the tasks' pending writes)."""
        record = self.record
        if self.saver is None or record is None:
            return
        writes: list[tuple[str, list[tuple[str, Any]]]] = []
        for aid, result in interrupted:
            task = find_task(record, aid)
            if task is not None:
                task.interrupts = tuple(result.interrupts)
                task.state_ns = result.subgraph_ns
                writes.append((task.id, [(INTERRUPT, list(result.interrupts))]))
        if finished:
            done = list(record.finished)
            for aid, result in finished:
                task = find_task(record, aid)
                if task is not None:
                    task.result = result.update
                    done.append(task.id)
                    writes.append((task.id, self._outcome_writes(task.name, result)))
            record.finished = tuple(done)
            record.current_values = self._values_of(self.paused_values(ex))
        record.interrupts = tuple(self.interrupts)
        record.engine = ex.snapshot()
        if not (
            record is self.writer.last_saved
            and self.writer.lean
            and written_lean(record)
            and restorable(record)
        ):
            # the saved checkpoint (LangGraph's fields only) stays right as it is when the
            # interrupts alone are new: they are pending writes, as LangGraph saves them
            self.writer.save(record)
        for task_id, task_writes in writes:
            self.writer.put_writes(record, task_id, task_writes)

    def _note_handed_over(
        self, record: CheckpointRecord, handed_over: Sequence[tuple[str, TaskOutcome]]
    ) -> list[tuple[str, list[tuple[str, Any]]]]:
        """The tasks of ``record``'s step that failed for good and went on as their error
        handler: each shows its error; returns their pending writes (the error and
        LangGraph's marker of a failure an error handler took: continuing the step runs
        the handler, not the failed node, again)."""
        out: list[tuple[str, list[tuple[str, Any]]]] = []
        for aid, result in handed_over:
            task = find_task(record, aid)
            if task is None or result.error is None:
                continue
            task.error = repr(result.error)
            out.append(
                (task.id, [(ERROR_CHANNEL, repr(result.error)), (ERROR_SOURCE_NODE, task.name)])
            )
        return out

    def _record_failure(self, ex: Execution, error: BaseException | None) -> None:
        """The step failed: the failed task keeps its error (an ``__error__`` write); when it
        is a task's own failure, the tasks that finished beside it keep their outcomes as
        pending writes, so that continuing the thread re-runs only the failed task. The
        engine state stays the one from before the step (which did not commit)."""
        record = self.record
        if self.saver is None or record is None or error is None:
            return
        failure = ex.failure
        failed_aid = failure.activation_id if failure is not None else ""
        own = any(aid == failed_aid and r.error is not None for aid, r in self.failed_results)
        writes: list[tuple[str, list[tuple[str, Any]]]] = []
        if own:
            task = find_task(record, failed_aid)
            if task is not None:
                task.error = repr(error)
                writes.append((task.id, [(ERROR_CHANNEL, repr(error))]))
        else:
            failed = node_of(failed_aid)
            for task in record.tasks:
                if task.name == failed:
                    task.error = repr(error)
        if own:
            writes.extend(self._keep_finished(ex, record, failed_aid))
        handed, self._handed_over = self._handed_over, []
        if handed:  # an error handler failed: its node's failure is kept as handled
            writes.extend(self._note_handed_over(record, handed))
        # The engine state is the one from before the step: a checkpoint saved with
        # LangGraph's fields only stays as it is (the step's outcomes are its pending writes,
        # as LangGraph saves them), and one saved now (durability "exit") needs no blob.
        outcomes_saved = own and (record is not self.writer.last_saved or written_lean(record))
        if not (
            outcomes_saved
            and record is self.writer.last_saved
            and self.writer.lean
            and restorable(record, outcomes_saved=True)
        ):
            self.writer.save(record, outcomes_saved=outcomes_saved)
        for task_id, task_writes in writes:
            self.writer.put_writes(record, task_id, task_writes)

    def _keep_finished(
        self, ex: Execution, record: CheckpointRecord, failed_aid: str
    ) -> list[tuple[str, list[tuple[str, Any]]]]:
        """Note the tasks that finished beside the failed one; returns their pending writes."""
        done = list(record.finished)
        writes: list[tuple[str, Any]] = []
        out: list[tuple[str, list[tuple[str, Any]]]] = []
        for aid, result in self.failed_results:
            task = find_task(record, aid)
            if task is None or aid == failed_aid:
                continue
            if result.error is None and not result.interrupts and not result.skip_edges:
                out.append((task.id, self._outcome_writes(task.name, result)))
                task.result = result.update
                done.append(task.id)
                writes.extend(result.writes)
        if len(done) > len(record.finished):
            record.finished = tuple(done)
            local = self.graph.runner.local_state(ex.values, writes)
            record.current_values = {k: local[k] for k in self.graph.state_channels if k in local}
        return out

    def _load_finished(self, ex: Execution, record: CheckpointRecord) -> dict[str, TaskOutcome]:
        """The saved outcomes of ``record``'s finished tasks, by the activation that runs
        each when the step runs again."""
        saver = self.saver
        if saver is None:
            return {}
        by_task: dict[str, list[tuple[str, Any]]] = {}
        pending: list[PendingWrite] = pending_writes(
            saver, record.thread_id, record.checkpoint_ns, record.checkpoint_id
        )
        for task_id, channel, value in pending:
            by_task.setdefault(task_id, []).append((channel, value))
        out: dict[str, TaskOutcome] = {}
        for aid, ev in ex.queue:
            if not isinstance(ev, Activated):
                continue
            task = find_task(record, aid)
            saved = None if task is None else by_task.get(task.id)
            edges = edge_writes(self.graph.spec, node_of(aid))
            outcome = None if saved is None else saved_outcome(saved, edges)
            if outcome is not None:
                out[aid] = outcome
        return out
