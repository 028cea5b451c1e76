"""What a run makes of each committed superstep: LangGraph's step ends (checkpoints,
breakpoints, interrupts), the stream events of its tasks' results, an input `Command`, the
run's end and failures, and the state views (values, next tasks).

`RunSteps` is a part of `GraphRun` (which provides the attributes it declares).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import replace
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from superstep_compat._internal._constants import START
from superstep_compat.errors import (
    ErrorCode,
    GraphRecursionError,
    create_error_message,
)
from superstep_compat.pregel._checkpoint_recorder import CheckpointRecorder
from superstep_compat.pregel._checkpoint_tasks import (
    Event,
    delivered_outcomes,
    node_of,
    pending_activations,
    pending_tasks,
    push_indexes,
    task_records,
)
from superstep_compat.pregel._checkpoint_writer import CheckpointWriter
from superstep_compat.pregel._lgcheckpoint import build_checkpoint
from superstep_compat.pregel._output_keys import OutputKeys, shows
from superstep_compat.pregel._record import CheckpointRecord
from superstep_compat.pregel._resumer import Resumer, as_list
from superstep_compat.pregel._run_setup import Continuation
from superstep_compat.pregel._run_values import RunValues
from superstep_compat.pregel._step_failures import StepFailures
from superstep_compat.pregel._step_tasks import StepTasks
from superstep_compat.pregel._step_tracker import StepTracker
from superstep_compat.pregel._task_context import (
    ChildLink,
    RunContext,
    TaskOutcome,
)
from superstep_compat.runtime import RunControl
from superstep_compat.types import Interrupt
from superstep_core.host import Clock, EffectLedger, NestedEffects, RandomSource
from superstep_core.runtime import Execution, StepOutcome


class RunSteps:
    """The per-superstep part of `GraphRun`."""

    # GraphRun's attributes (set in its __init__)
    graph: Any
    recorder: CheckpointRecorder  # writes the run's checkpoints, keeps its step and record
    writer: CheckpointWriter  # the recorder's: the run's saver I/O
    saver: BaseCheckpointSaver[Any] | None
    thread_id: str | None
    ns: str
    config: dict[str, Any]
    modes: frozenset[str]
    keys: OutputKeys | None  # what the run's chunks show (`_output_keys`)
    interrupts: list[Interrupt[Any]]
    durable: bool
    values: RunValues  # the run's view of its state
    link: ChildLink | None
    subgraphs: bool
    context: Any
    store: Any
    before: frozenset[str]
    after: frozenset[str]
    task_ns: str
    clock: Clock
    rng: RandomSource
    ledger: EffectLedger | None
    nested: NestedEffects | None
    control: RunControl
    limit: int
    stopped: bool
    live: bool
    resumer: Resumer  # answers the run's interrupts
    continuation: Continuation  # how the run started: its input, the step it continues
    failures: StepFailures
    tracker: StepTracker  # the tasks of the step the run is in
    tasks: StepTasks  # their stream events
    _emit_transient: Callable[..., None]  # GraphRun's
    breakpoint: str | None  # where the run stopped (`_lifecycle` reports it)

    @property
    def step(self) -> int:
        """LangGraph's number of the run's last step (the recorder's)."""
        return self.recorder.step

    @step.setter
    def step(self, step: int) -> None:
        self.recorder.step = step

    @property
    def record(self) -> CheckpointRecord | None:
        """The checkpoint the run wrote or loaded last (the recorder's)."""
        return self.recorder.record

    @record.setter
    def record(self, record: CheckpointRecord | None) -> None:
        self.recorder.record = record

    @property
    def _orders_starts(self) -> bool:
        """Whether tasks announce their starts to the run's `StartGate`: a live run that
        streams task starts (``tasks``/``debug``) and its tasks' results as they end."""
        return self.live and ("tasks" in self.modes or "debug" in self.modes)

    _run_template: tuple[tuple[Any, ...], RunContext] | None = None

    def _run_context(self) -> RunContext:
        """The context of a task of the run's next step (a new one each time: a task sets
        fields of its own): a copy of one built when what it is built from last changed
        (the checkpoint and its tasks, the step budget, a live run's gate; before the first
        task: nested effects, replay, spare answers), with the step's number. Nothing else
        a run context is built from changes once a run's tasks run."""
        record = self.record
        continuation = self.continuation
        key = (
            self.stop,
            record,
            None if record is None else record.tasks,
            self.live,
            self.nested,
            continuation.replay,
            continuation.spare_answers,
        )
        known = self._run_template
        if known is None or not _same(known[0], key):
            known = self._run_template = (key, self._new_run_context())
        ctx = known[1].fresh()
        ctx.step = self.step + 1
        return ctx

    def _new_run_context(self) -> RunContext:
        return RunContext(
            config=self.config,
            context=self.context,
            store=self.store,
            step=self.step + 1,
            stop=self.stop,
            emit=self._emit_transient,
            stream_modes=self.modes,
            checkpoint_ns=self.task_ns,
            saver=self.saver,
            subgraphs=self.subgraphs,
            cache=self.graph.cache,
            checkpoint_id=None if self.record is None else self.record.checkpoint_id,
            clock=self.clock,
            rng=self.rng,
            replay=self.continuation.replay,
            nested=self.nested,
            control=self.control,
            started=self.tracker.starts.started if self._orders_starts else None,
            task_ids={}
            if self.record is None
            else {t.key: t.id for t in self.record.tasks if t.key},
            spare_answers=self.continuation.spare_answers,
        )

    @property
    def stop(self) -> int:
        """The step the run's recursion budget ends at."""
        return self.continuation.start_step + self.limit + 1

    def _after_superstep(self, ex: Execution, outcome: StepOutcome) -> Generator[Event, None, bool]:
        """Observe one committed superstep; returns True (as the generator's value) to stop."""
        if not outcome.committed:
            # a task that failed for good went on as its node's error handler: LangGraph
            # reports its failure as it happens, in the step the handler runs in
            yield from self.tasks.events(self.failures.new_handlers(ex))
            if outcome.paused:
                # the step paused on interrupts: its finished tasks' results wait in the
                # engine (`suspend_holds_step`) until every interrupted task has finished
                results = self._fresh(delivered_outcomes(outcome))
                yield from self.tasks.events(results)
                yield from self._interrupted(ex, results)
                self.continuation.reported.update(aid for aid, _ in ex.held)
                return True
            return False  # a failed superstep: `StepFailures.collect` reports its tasks
        results = delivered_outcomes(outcome)
        if not results:
            return False
        if self.continuation.command_input:
            self.continuation.command_input = False
            if all(node_of(aid) == START for aid, _ in results):
                yield from self._apply_command(ex)
                return False
        # the tasks that finished before the step paused were reported then (and the
        # failures error handlers took, as they were handed over)
        handed = self.failures.take_handed_over()
        yield from self.tasks.events(
            self._fresh(results) if self.continuation.reported else results
        )
        modes = self.modes
        completed: list[tuple[str, TaskOutcome]] = []
        interrupted = False
        for item in results:
            if item[1].waiting:
                interrupted = True
            elif item[1].error is None:
                completed.append(item)
        if self.continuation.held:
            self.continuation.held = bool(ex.interrupts)
        if interrupted or self.continuation.held:
            yield from self._interrupted(ex, results)
            return True
        self.step += 1
        self.values.commit(ex.values)
        if outcome.written and self.values.shows(outcome.written):
            self.values.shown = True
            if "values" in modes:
                yield ((), "values", self.values.chunk)
        next_: tuple[str, ...] | None = None
        if self.saver is not None:
            pending = pending_activations(ex, self.graph.node_order)
            next_ = tuple([name for name, _ in pending])
            yield from self.recorder.checkpoint(
                ex,
                "loop",
                next_=next_,
                keys=[key for _, key in pending],
                values=self.values.last or {},
                ran=completed,
                handed_over=handed,
            )
        if self.after or self.before:
            next_ = self._next(ex) if next_ is None else next_
            names_ran = {node_of(aid) for aid, _ in completed}
            after = bool(_hit(names_ran, self.after) and next_)
            if after or _hit(set(next_), self.before):
                # a subgraph's breakpoint stops its parent's task: the parent reports it
                if "updates" in modes and self.link is None:
                    yield ((), "updates", {"__interrupt__": ()})
                self.stopped = True
                self.breakpoint = "interrupt_after" if after else "interrupt_before"
                return True
        if self.step >= self.stop:  # LangGraph checks the budget before looking for tasks
            raise GraphRecursionError(
                create_error_message(
                    message=(
                        f"Recursion limit of {self.limit} reached without hitting a stop "
                        "condition. You can increase the limit by setting the "
                        "`recursion_limit` config key."
                    ),
                    error_code=ErrorCode.GRAPH_RECURSION_LIMIT,
                )
            )
        return False

    def _interrupted(
        self, ex: Execution, results: Sequence[tuple[str, TaskOutcome]]
    ) -> Iterator[Event]:
        """The step stops on interrupts: this superstep's, and those of the step's
        activations still waiting from before (LangGraph runs those again and reports them
        again). Its finished tasks' writes show in a last ``values`` chunk."""
        interrupted = [(aid, r) for aid, r in results if r.waiting]
        self.stopped = True
        for _, result in interrupted:
            self.interrupts.extend(result.interrupts)
        if self.continuation.held:
            seen = {aid for aid, _ in results}
            for aid, value in ex.interrupts:
                if aid not in seen:
                    waiting = tuple(as_list(value))
                    self.interrupts.extend(waiting)
                    yield from self.tasks.interrupt_events(waiting)
        finished = [(aid, r) for aid, r in results if not r.waiting and r.error is None]
        self.recorder.record_interrupts(ex, interrupted, finished)
        record = self.record
        keys = self.keys
        wrote = any(
            r.writes if keys is None else shows(keys, [k for k, _ in r.writes]) for _, r in finished
        ) or (
            self.continuation.held
            and record is not None
            and any(t.result for t in record.tasks if t.id in record.finished)
        )
        if wrote:
            self.values.commit(self.recorder.paused_values(ex))
            self.values.shown = True
            if "values" in self.modes:
                yield ((), "values", self.values.chunk)

    def _apply_command(self, ex: Execution) -> Iterator[Event]:
        """A top-level `Command` without ``resume`` on an existing thread writes onto the
        checkpoint the thread is at (LangGraph's writes of no task), not a step of its own."""
        self.values.commit(ex.values)
        self.values.shown = True
        if "values" in self.modes:
            yield ((), "values", self.values.chunk)
        record = self.record
        if record is None or self.saver is None:
            return
        record.values = dict(self.values.last or {})
        record.engine = ex.snapshot()
        build_checkpoint(
            self.saver, record, record.checkpoint, triggers_of=self.recorder.policy.triggers_of
        )
        if self.durable or record is self.writer.last_saved:
            self.writer.save(record)
        # LangGraph's saved view of a checkpoint reads its next tasks before its writes of
        # no task (``next`` stays), the run's own view after them (a goto's nodes are due)
        pending = pending_activations(ex, self.graph.node_order)
        known = {t.key: t for t in record.tasks if t.key}  # keep what they raised or did
        fresh = task_records(
            record.checkpoint_id,
            [p for p in pending if p[1] not in known],
            step=record.step,
            ns=record.checkpoint_ns,
            triggers_of=self.recorder.policy.triggers_of,
            pushes=push_indexes(ex, pending),
        )
        live = replace(
            record,
            next=tuple(name for name, _ in pending),
            tasks=[known[key] if key in known else fresh.pop(0) for _, key in pending],
        )
        yield from self.recorder.checkpoint_events(live, record.parent_id)

    def _finish(self, ex: Execution) -> Iterator[Event]:
        """A run that committed no step still answers with the thread's current values; one
        that continued a step still waiting on interrupts reports them again."""
        if self.continuation.held and not self.interrupts and ex.interrupts:
            yield from self.tasks.events(())
            yield from self._interrupted(ex, ())
        self.values.keep(ex.values)

    def _fresh(self, results: list[tuple[str, TaskOutcome]]) -> list[tuple[str, TaskOutcome]]:
        """``results`` without the tasks reported when their step paused (held since)."""
        reported = self.continuation.reported
        return [item for item in results if item[0] not in reported]

    # --- state views ----------------------------------------------------------------------

    def _next(self, ex: Execution) -> tuple[str, ...]:
        return pending_tasks(ex, self.graph.node_order)


def _hit(names: set[str] | frozenset[str], breakpoints: frozenset[str]) -> bool:
    """Whether any of ``names`` is a breakpoint (``"*"``: every node but ``__start__``,
    which LangGraph hides from breakpoints)."""
    if "*" in breakpoints:
        return bool(names - {START})
    return bool(names & breakpoints)


def _same(seen: tuple[Any, ...], key: tuple[Any, ...]) -> bool:
    """Whether a run context's parts ``key`` are those ``seen`` (`RunSteps._run_context`):
    the step budget equal, the rest the same objects (spelled out: a generator here costs
    what the copy saves)."""
    return (
        seen[0] == key[0]
        and seen[1] is key[1]
        and seen[2] is key[2]
        and seen[3] is key[3]
        and seen[4] is key[4]
        and seen[5] is key[5]
        and seen[6] is key[6]
    )
