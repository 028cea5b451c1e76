"""`CheckpointRecorder`, the collaborator of `GraphRun` that records what a façade run writes
to its saver: one LangGraph checkpoint per step (through the LangGraph protocol, see
`_lgcheckpoint`), the step that did not finish (interrupted or failed), and the pending writes
of its tasks; and what a run continuing from a checkpoint takes back from it. What differs
between a graph's checkpoints and an entrypoint's is its `CheckpointPolicy`.

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

Never imports the run, the host or the engine's persistence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from superstep_compat._internal._constants import ERROR_SOURCE_NODE
from superstep_compat.errors import ParentCommand
from superstep_compat.pregel._checkpoint_chunks import CheckpointChunks
from superstep_compat.pregel._checkpoint_policy import CheckpointPolicy
from superstep_compat.pregel._checkpoint_tasks import (
    _MISSING,
    ERROR_CHANNEL,
    Event,
    edge_writes,
    find_task,
    held_outcomes,
    new_checkpoint_id,
    node_of,
    outcome_writes,
    push_indexes,
    saved_outcome,
    task_records,
)
from superstep_compat.pregel._checkpoint_writer import CheckpointWriter
from superstep_compat.pregel._lgcheckpoint import (
    INTERRUPT,
    RESUME,
    build_checkpoint,
    graph_versions,
)
from superstep_compat.pregel._lgdelta import delta_channels
from superstep_compat.pregel._lgdelta_write import DeltaWrites
from superstep_compat.pregel._lgread import pending_writes
from superstep_compat.pregel._record import (
    CheckpointRecord,
    PendingWrite,
)
from superstep_compat.pregel._restorable import written_lean
from superstep_compat.pregel._run_scope import RunScope
from superstep_compat.pregel._run_values import RunValues
from superstep_compat.pregel._task_context import TaskOutcome, _now
from superstep_compat.types import Interrupt
from superstep_core.node import Activated
from superstep_core.runtime import Execution, QuietSnapshot

__all__ = ["CheckpointPolicy", "CheckpointRecorder"]


@dataclass(eq=False, repr=False)
class CheckpointRecorder:
    """Builds one run's LangGraph checkpoints and records how each step ended, through the
    run's `CheckpointWriter`; one collaborator of `GraphRun`, which owns it. It keeps the
    thread's position: `record` (the checkpoint written or loaded last, None before any) and
    `step` (LangGraph's step number: a new thread's input checkpoint is step -1).

    ``scope``: the run's (a run without a saver saves nothing: then only `step` moves; the
    checkpoints' metadata reads its config; under durability "exit" records are kept in
    memory, the last one saved at the run's end); ``parents``: the ancestors' checkpoint ids
    by namespace (a subgraph's); ``first_step_order``: the run's own
    dict, non-empty while the first step orders its tasks as the nodes were added (its
    checkpoint events then keep the record's order); ``interrupts``: the run's list of the
    interrupts it reports (a paused step's record keeps them); ``values``: the run's
    `RunValues`."""

    scope: RunScope  # what the run is about
    parents: dict[str, str]
    first_step_order: dict[str, int]
    interrupts: list[Interrupt[Any]]
    values: RunValues
    policy: CheckpointPolicy = field(init=False)
    step_writes: bool = field(init=False)
    """Whether a finished step's task writes are saved (not with durability "exit")."""
    writer: CheckpointWriter = field(init=False)
    chunks: CheckpointChunks = field(init=False)
    """Makes the ``checkpoints``/``debug`` stream events of the checkpoints."""
    step: int = field(init=False, default=-2)  # a new thread's input checkpoint is step -1
    record: CheckpointRecord | None = field(init=False, default=None)
    # the record `checkpoint` built last and the highest of its channel versions (besides
    # the blob's: writing it again with the blob changes no other)
    _top_version: tuple[CheckpointRecord, Any] | None = field(init=False, default=None)
    # `record`'s engine state while its ``engine`` is not filled in (`engine_of`)
    _quiet: tuple[CheckpointRecord, QuietSnapshot] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        graph = self.scope.graph
        self.policy = CheckpointPolicy(graph.spec, graph.runner.triggers, graph.runner.pull_parts)
        self.step_writes = self.scope.durable
        self.writer = CheckpointWriter(
            self.scope.saver,
            durable=self.scope.durable,
            untracked=self.scope.graph.untracked_channels,
            lean=self.policy.lean,
        )
        self.chunks = CheckpointChunks(self.scope, self.writer, self.first_step_order)
        deltas = delta_channels(self.scope.graph)
        if deltas and self.scope.saver is not None:
            self.writer.delta = DeltaWrites(deltas, held_back=not self.scope.durable)

    def use(self, policy: CheckpointPolicy) -> None:
        """Record under ``policy`` (before the run writes anything)."""
        self.policy = policy
        self.writer.lean = policy.lean
        self.writer.restorable = policy.restorable

    def paused_values(self, ex: Execution) -> dict[str, Any]:
        """The committed values with the writes of the tasks that finished in a paused step
        applied (they wait in the engine, see `suspend_holds_step`): the step's live view,
        as LangGraph shows its pending writes."""
        writes = [w for _, outcome in held_outcomes(ex) for w in outcome.writes]
        return self.scope.graph.runner.local_state(ex.values, writes) if writes else dict(ex.values)

    def outcome_writes(self, name: str, result: TaskOutcome) -> list[tuple[str, Any]]:
        """Task ``name``'s pending writes as LangGraph writes them (its edges included)."""
        # a node's static edges are fixed: found once per compiled graph, not per run
        return outcome_writes(result, self.scope.graph.runner.edge_writes(name))

    def checkpoint(
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
        pending: Sequence[tuple[str, str]] | None = None,
        before: Mapping[str, Any] | None = None,
        seen_by: Sequence[str] = (),
    ) -> list[Event]:
        """Save a checkpoint (when the run has a saver) and return its stream events.
        ``keys``: the key of each task in ``next_`` (activation ids; default: node names);
        ``pending``: instead of ``keys``, the (node, key) pairs ``next_`` was made from
        (`pending_activations`: a step's checkpoint, not split and zipped again);
        ``start``: the input an input checkpoint holds in ``__start__``; ``handed_over``: the
        tasks that failed for good and went on as their error handler (each keeps its error
        in the parent checkpoint, as a task that failed); ``before``: on a new thread, the
        channels its first checkpoint follows though none was saved, and ``seen_by``: the
        nodes whose triggers there it consumed (a `Command` as a thread's first input: its
        writes of no task, see `Continuation._first_command`), or, on an input checkpoint
        after earlier ones, the pull tasks the new input dropped (their ``versions_seen``
        move on, at the versions before the input)."""
        policy = self.policy
        if source == "input":
            next_, values = policy.input_checkpoint(next_, values, start)
        if source in ("input", "fork"):
            self.step += 1
        scope = self.scope
        if scope.saver is None or scope.thread_id is None:
            policy.checkpointed(self.record)
            return []
        writer = self.writer
        step = self.step  # (each read below a local, not an attribute)
        parent = self.record
        ran_names: set[str] = set()
        pulled: set[str] = set()
        pushed: set[str] = set()  # nodes a `Send` task of the step ran (see `build_checkpoint`)
        if parent is not None and handed_over:
            for task_id, task_writes in self._note_handed_over(parent, handed_over):
                writer.put_writes(parent, task_id, task_writes)
        delta = writer.delta
        held: list[tuple[str, str, list[tuple[str, Any]]]] = []  # "exit": for `delta`
        # a fork runs its source's step afresh: the tasks that finished there did not run in
        # it (their triggers are not consumed, as LangGraph's fork copies the channels)
        if parent is not None and source != "fork" and (ran or parent.finished):
            keep = self.step_writes  # durability "exit" keeps no writes of a finished step
            for aid, result in ran:
                task = find_task(parent, aid)
                if task is None:
                    ran_names.add(node_of(aid))
                    if delta is not None:
                        # no pending writes saved for it: a reader could not replay them
                        delta.force(k for k, _ in result.writes)
                    continue
                task.result = result.update
                ran_names.add(task.name)  # (the activation's node: no second pass over ``ran``)
                if task.path[:1] == ("__pregel_pull",):
                    pulled.add(task.name)
                else:
                    pushed.add(task.name)
                if keep and task.id not in parent.finished:
                    writer.put_writes(parent, task.id, self.outcome_writes(task.name, result))
                elif delta is not None and task.id not in parent.finished:
                    path = delta.task_path(parent, task.id)
                    held.append((task.id, path, self.outcome_writes(task.name, result)))
            if parent.finished:  # the tasks that finished before the step did ran in it too
                for t in parent.tasks:
                    if t.id in parent.finished:
                        ran_names.add(t.name)
                        if t.path[:1] == ("__pregel_pull",):
                            pulled.add(t.name)
                        else:
                            pushed.add(t.name)
        else:
            ran_names.update(node_of(aid) for aid, _ in ran)
        checkpoint_id = new_checkpoint_id(step)
        # As the saver's ``put`` merges the run config into what LangGraph hands it: the
        # run's metadata and configurable scalars, minus the thread's own keys.
        metadata: dict[str, Any] = {
            "source": source,
            "step": step,
            "parents": dict(self.parents),
            **writer.config_metadata(scope.config),
        }
        if pending is None:
            pending = list(zip(next_, next_ if keys is None else keys))
        # A checkpoint saved at once and lean (LangGraph's fields only) keeps the engine
        # state only for a step that stops part-way after it (failed, stopped): taken then
        # (`engine_of`), from a snapshot deferred here, not copied on every step.
        quiet = ex.quiet_snapshot() if writer.lean and scope.durable and not scope.ns else None
        record = CheckpointRecord(
            thread_id=scope.thread_id,
            checkpoint_ns=scope.ns,
            checkpoint_id=checkpoint_id,
            parent_id=None if parent is None else parent.checkpoint_id,
            step=step,
            source=source,
            values=dict(values),
            next=next_,
            tasks=task_records(
                checkpoint_id,
                pending,
                step=step,
                ns=scope.ns,
                parts_of=policy.parts_of,
                pushes=push_indexes(ex, pending),
            ),
            metadata=metadata,
            created_at=_now(),
            engine=ex.snapshot() if quiet is None else None,
            ran=tuple(sorted(ran_names)),
            triggers=policy.pending_triggers(ex, pending, start),
        )
        if source == "fork" and parent is not None and parent.triggers:
            # a fork copies its source's channels: a trigger keeps the value written to it
            # (a `Command`'s goto writes ``"__start__"``)
            copied = parent.triggers
            record.triggers = {k: copied.get(k, v) for k, v in record.triggers.items()}
        base = before if parent is None else parent.checkpoint
        pulled.update(seen_by)
        known = self._top_version
        top = known[1] if known is not None and known[0] is parent is not None else None

        def written() -> set[str]:  # (found only when some channel kept its object)
            always = policy.always_updated()
            return {k for _, r in ran for k, _ in r.writes if k in always}

        built = build_checkpoint(
            scope.saver,
            record,
            base,
            ran=sorted(pulled),
            pushed=pushed,
            triggers_of=policy.triggers_of,
            top=top,
            engine_versions=ex.versions,
            listed=source != "fork",
            written=written,
            topics=policy.topics(),
        )
        if delta is not None:
            if delta.held_back and source == "loop":
                delta.held_writes(step, held)
            if delta.first and parent is not None:
                # a run going on from a loaded checkpoint: its pending writes that the run
                # does not hand back (all of them on a fork: they are the old child's)
                kept = () if source == "fork" else parent.finished
                delta.force_pending(parent.pending, kept=kept)
            for _, result in ran:
                delta.force_overwritten(result.writes)
            delta.built(
                record,
                None if parent is None else parent.metadata,
                scope.saver,
                writer.saved_versions,
            )
        if source == "fork":
            # LangGraph's run going on from a past checkpoint has seen every channel version
            # before it saves the fork, which carries them under ``__interrupt__``
            built["versions_seen"][INTERRUPT] = graph_versions(built["channel_versions"])
        updated = built["updated_channels"]
        if updated:
            top = built["channel_versions"][updated[0]]  # every updated channel has the new one
        else:  # perhaps only channels that are gone moved on: found again when next needed
            top = None
        self._top_version = None if top is None else (record, top)
        base_versions = None if base is None else base["channel_versions"]
        if quiet is not None and not policy.quiet_restorable(record, quiet):
            record.engine = quiet.state()  # saved with its blob: the state is read now
            quiet = None
        if quiet is None:
            self._quiet = None
            writer.built_on = (record, base_versions)
            if scope.durable:
                writer.save(record)
        else:  # (durable: a quiet snapshot is taken for a durable run only)
            self._quiet = (record, quiet)
            writer.save_step(record, base_versions)
        self.record = record
        policy.checkpointed(record)
        last = writer.last_saved
        parent_id = (
            record.parent_id if scope.durable else None if last is None else last.checkpoint_id
        )
        return self.chunks.events(record, parent_id)

    def engine_of(self, record: CheckpointRecord) -> None:
        """Fill in ``record``'s engine state when `checkpoint` deferred it: the execution's
        state when the checkpoint was taken (see `QuietSnapshot`), needed once its step
        stops part-way (the record is saved again, perhaps with its blob)."""
        quiet = self._quiet
        if quiet is not None and quiet[0] is record:
            self._quiet = None
            if record.engine is None:
                record.engine = quiet[1].state()

    # --- a step that did not finish ------------------------------------------------------------

    def record_interrupts(
        self,
        ex: Execution,
        interrupted: Sequence[tuple[str, TaskOutcome]],
        finished: Sequence[tuple[str, TaskOutcome]] = (),
    ) -> None:
        """The step stopped on interrupts: note them (``__interrupt__`` writes), and the tasks
        that finished (their writes are committed in the engine, so the live view of the step
        shows them; LangGraph keeps them as the tasks' pending writes)."""
        record = self.record
        self._quiet = None  # its engine state is taken again below
        self.policy.stopped(record, INTERRUPT, list(self.interrupts))
        if self.scope.saver is None or record is None:
            return
        writes: list[tuple[str, list[tuple[str, Any]]]] = []
        for aid, result in interrupted:
            task = find_task(record, aid)
            if task is not None:
                task.interrupts = tuple(result.interrupts)
                task.state_ns = result.subgraph_ns
                if result.interrupts:
                    # LangGraph's runner saves none for an empty one (a subgraph paused by
                    # its interrupt_before/after): a saver is not handed an empty list
                    writes.append((task.id, [(INTERRUPT, list(result.interrupts))]))
        if finished:
            done = list(record.finished)
            # a task whose outcome was handed back from its saved writes (the step ran again)
            # keeps them as saved: LangGraph puts no writes for it again (writes of another
            # layout, indexed otherwise, would be saved beside them, and applied twice)
            saved = {
                task_id for task_id, channel, _ in record.pending if channel not in _NO_OUTCOME
            }
            for aid, result in finished:
                task = find_task(record, aid)
                if task is not None:
                    task.result = result.update
                    done.append(task.id)
                    if task.id not in saved:
                        writes.append((task.id, self.outcome_writes(task.name, result)))
            record.finished = tuple(done)
            record.current_values = self.values.of(self.paused_values(ex))
        record.interrupts = tuple(self.interrupts)
        record.engine = ex.snapshot()
        if not (
            record is self.writer.last_saved
            and self.writer.lean
            and written_lean(record)
            and (
                self.policy.paused_restorable(record)
                if finished
                else self.policy.restorable(record)
            )
        ):
            # the saved checkpoint (LangGraph's fields only) stays right as it is when the
            # interrupts and the finished tasks' outcomes alone are new: they are pending
            # writes, as LangGraph saves them
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

    def record_failure(
        self,
        ex: Execution,
        error: BaseException | None,
        results: Sequence[tuple[str, TaskOutcome]],
        handed: Sequence[tuple[str, TaskOutcome]],
        failed_aid: str,
        cancelled: Sequence[str] = (),
    ) -> None:
        """The step failed with ``error``, the error of activation ``failed_aid``: the
        failed task keeps its error (an ``__error__`` write); when it is a task's own
        failure, the tasks that finished beside it keep their outcomes (``results``: what
        the step's tasks returned) as pending writes, so that continuing the thread re-runs
        only the failed task; those that asked keep their interrupts, and each task the host
        stopped because of it (``cancelled``) keeps LangGraph's ``CancelledError()`` as its
        error. ``handed``: the step's failures error handlers took (the handler failed: each
        is kept as handled). The engine state
        stays the one from before the step (which did not commit)."""
        record = self.record
        if error is not None:
            self.policy.stopped(record, ERROR_CHANNEL, repr(error))
        if self.scope.saver is None or record is None or error is None:
            return
        self.engine_of(record)
        own = any(aid == failed_aid and r.error is not None for aid, r in results)
        writes: list[tuple[str, list[tuple[str, Any]]]] = []
        if isinstance(error, ParentCommand):
            pass  # bubbling up, no failure of the task: LangGraph saves no error for it
        elif own:
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
            writes.extend(self.keep_finished(ex, record, failed_aid, results))
            # a sibling that asked a question before the failure keeps its interrupt
            writes.extend(self.keep_asked(record, results))
            record.interrupts = tuple(i for t in record.tasks for i in t.interrupts)
            for aid in cancelled:
                stopped = find_task(record, aid)
                if stopped is not None:  # what LangGraph's runner saves for a cancelled task
                    stopped.error = _CANCELLED
                    writes.append((stopped.id, [(ERROR_CHANNEL, stopped.error)]))
        if handed:  # an error handler failed: its node's failure is kept as handled
            writes.extend(self._note_handed_over(record, handed))
        resave = self.stopped_save(record) if own else False
        if resave is not None:
            self.writer.save(record, outcomes_saved=resave)
        for task_id, task_writes in writes:
            self.writer.put_writes(record, task_id, task_writes)

    def stopped_save(self, record: CheckpointRecord) -> bool | None:
        """How ``record`` is saved again when its step stopped part-way (failed, or the run
        stopped inside it) and what its tasks did is saved as their pending writes, its
        engine state the one from before the step: None when the checkpoint saved with
        LangGraph's fields only stays as it is (the step's outcomes are its pending writes,
        as LangGraph saves them); else `CheckpointWriter.save`'s ``outcomes_saved`` (one
        saved now, under durability "exit", needs no blob either)."""
        writer = self.writer
        outcomes_saved = record is not writer.last_saved or written_lean(record)
        if (
            outcomes_saved
            and record is writer.last_saved
            and writer.lean
            and self.policy.restorable(record, outcomes_saved=True)
        ):
            return None
        return outcomes_saved

    def keep_finished(
        self,
        ex: Execution,
        record: CheckpointRecord,
        failed_aid: str,
        results: Sequence[tuple[str, TaskOutcome]],
        before: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, list[tuple[str, Any]]]]:
        """Note the tasks of ``results`` that finished beside the failed one (``failed_aid``;
        "": none failed, the run stopped); returns their pending writes. Their writes apply
        to ``before``, the engine's values before the step (default: ``ex``'s, when the
        step did not commit)."""
        self.engine_of(record)
        done = list(record.finished)
        writes: list[tuple[str, Any]] = []
        out: list[tuple[str, list[tuple[str, Any]]]] = []
        for aid, result in results:
            task = find_task(record, aid)
            if task is None or aid == failed_aid:
                continue
            if result.error is None and not result.interrupts and not result.skip_edges:
                out.append((task.id, self.outcome_writes(task.name, result)))
                task.result = result.update
                done.append(task.id)
                writes.extend(result.writes)
        if len(done) > len(record.finished):
            record.finished = tuple(done)
            base = ex.values if before is None else before
            local = self.scope.graph.runner.local_state(base, writes)
            record.current_values = self.values.of(local)
        return out

    def keep_asked(
        self, record: CheckpointRecord, results: Sequence[tuple[str, TaskOutcome]]
    ) -> list[tuple[str, list[tuple[str, Any]]]]:
        """The interrupt writes of the tasks of ``results`` that asked a question before
        their step failed or stopped: LangGraph saved each as the task ended, so the thread
        shows them (noted on ``record``'s tasks and interrupts)."""
        out: list[tuple[str, list[tuple[str, Any]]]] = []
        for aid, result in results:
            asked = find_task(record, aid)
            if asked is not None and result.interrupts and result.error is None:
                asked.interrupts = tuple(result.interrupts)
                asked.state_ns = result.subgraph_ns
                out.append((asked.id, [(INTERRUPT, list(result.interrupts))]))
        if out:
            record.interrupts = tuple(i for t in record.tasks for i in t.interrupts)
        return out

    def cancelled_unended(
        self, record: CheckpointRecord, ended: Sequence[str]
    ) -> list[tuple[str, list[tuple[str, Any]]]]:
        """The pending writes of ``record``'s tasks that had not ended (``ended``: the
        activations that had) when their step was cancelled: each keeps LangGraph's
        ``CancelledError()`` as its error, what its runner saves for a cancelled task."""
        self.engine_of(record)
        done = {t.id for aid in ended if (t := find_task(record, aid)) is not None}
        done.update(record.finished)
        out: list[tuple[str, list[tuple[str, Any]]]] = []
        for task in record.tasks:
            if task.id in done or task.interrupts:
                continue
            task.error = _CANCELLED
            out.append((task.id, [(ERROR_CHANNEL, _CANCELLED)]))
        return out

    def load_finished(self, ex: Execution, record: CheckpointRecord) -> dict[str, TaskOutcome]:
        """The saved outcomes of ``record``'s finished tasks, by the activation that runs
        each when the step runs again."""
        saver = self.scope.saver
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
            edges = edge_writes(self.scope.graph.spec, node_of(aid))
            outcome = None if saved is None else saved_outcome(saved, edges)
            if outcome is not None:
                out[aid] = outcome
        return out


_NO_OUTCOME = frozenset({INTERRUPT, RESUME, ERROR_CHANNEL, ERROR_SOURCE_NODE})
"""The pending writes that tell what happened to a task, not its outcome."""
_CANCELLED = "CancelledError()"
"""The error LangGraph saves for a task its runner cancelled (``repr`` of the exception)."""
