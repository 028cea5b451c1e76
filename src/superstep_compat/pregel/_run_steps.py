"""What a run makes of each committed superstep: LangGraph's step ends (checkpoints,
breakpoints, interrupts), the stream events of its tasks' results, an input `Command`, the
run's end and failures, and the state views (values, next tasks).

`RunSteps` is a collaborator of `GraphRun`, sharing its read-only `RunScope`; never imports
the run or the host.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import replace
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from superstep_compat._internal._constants import NULL_TASK_ID, START
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
from superstep_compat.pregel._lgnull import run_view, take_command
from superstep_compat.pregel._output_keys import OutputKeys, shows
from superstep_compat.pregel._resumer import as_list, seen_on_resume
from superstep_compat.pregel._run_contexts import RunContexts
from superstep_compat.pregel._run_scope import RunScope
from superstep_compat.pregel._run_setup import Continuation
from superstep_compat.pregel._run_values import RunValues
from superstep_compat.pregel._step_failures import StepFailures
from superstep_compat.pregel._step_tasks import StepTasks
from superstep_compat.pregel._task_context import (
    ChildLink,
    TaskOutcome,
)
from superstep_compat.types import Interrupt
from superstep_core.runtime import Execution, StepOutcome


class RunSteps:
    """What a run makes of each committed superstep; one collaborator of `GraphRun`, which
    owns it and drives it (`after_superstep`, `finish`). It keeps where the run stopped
    (``stopped``, ``breakpoint``); the run's interrupts go to the list it is given."""

    def __init__(
        self,
        *,
        scope: RunScope,
        recorder: CheckpointRecorder,
        values: RunValues,
        continuation: Continuation,
        tasks: StepTasks,
        failures: StepFailures,
        contexts: RunContexts,
        interrupts: list[Interrupt[Any]],
        before: frozenset[str],
        after: frozenset[str],
        limit: int,
    ) -> None:
        self.graph: Any = scope.graph
        self.saver: BaseCheckpointSaver[Any] | None = scope.saver
        self.modes = scope.modes
        self.keys: OutputKeys | None = scope.keys  # what the run's chunks show
        self.link: ChildLink | None = scope.link
        self.durable = scope.durable
        self.recorder = recorder  # writes the run's checkpoints, keeps its step and record
        self.writer: CheckpointWriter = recorder.writer  # the recorder's: the run's saver I/O
        self.values = values  # the run's view of its state
        self.continuation = continuation  # how the run started: its input, the step it continues
        self.tasks = tasks  # the step's stream events
        self.failures = failures
        self.contexts = contexts  # the step budget (`RunContexts.stop`)
        self.interrupts = interrupts
        self.before = before
        self.after = after
        self.limit = limit
        # The run stopped before the graph finished (an interrupt or a breakpoint): a
        # subgraph's run then makes its parent's task wait (`GraphInterrupt`).
        self.stopped = False
        # the breakpoint it stopped at, as LangGraph names the loop's status then
        self.breakpoint: str | None = None

    @property
    def stop(self) -> int:
        """The step the run's recursion budget ends at."""
        return self.contexts.stop

    def after_superstep(self, ex: Execution, outcome: StepOutcome, out: list[Event]) -> bool:
        """Observe one committed superstep, its events appended to ``out``; returns True to
        stop. A plain call, not a generator: the run hands a step's events on only once
        all are made (its checkpoint put first, see `GraphRun._stepped`), so they are
        collected anyway, and the usual step pays for no generator. What it raises leaves
        the events made before in ``out``."""
        if not outcome.committed:
            # a task that failed for good went on as its node's error handler: LangGraph
            # reports its failure as it happens, in the step the handler runs in
            out.extend(self.tasks.events(self.failures.new_handlers(ex)))
            if outcome.paused:
                # the step paused on interrupts: its finished tasks' results wait in the
                # engine (`suspend_holds_step`) until every interrupted task has finished
                results = self._fresh(delivered_outcomes(outcome))
                out.extend(self.tasks.events(results))
                out.extend(self.interrupted(ex, results))
                self.continuation.reported.update(aid for aid, _ in ex.held)
                return True
            return False  # a failed superstep: `StepFailures.collect` reports its tasks
        results = delivered_outcomes(outcome)
        if not results:
            return False
        if self.continuation.command_input:
            self.continuation.command_input = False
            if all(node_of(aid) == START for aid, _ in results):
                out.extend(self.apply_command(ex))
                return False
        if outcome.handed_over:  # failures error handlers took within this step
            out.extend(self.tasks.events(self.failures.new_handlers(ex, outcome)))
        # the tasks that finished before the step paused were reported then (and the
        # failures error handlers took, as they were handed over)
        handed = self.failures.take_handed_over()
        out.extend(
            self.tasks.events(self._fresh(results) if self.continuation.reported else results)
        )
        modes = self.modes
        completed: list[tuple[str, TaskOutcome]] = []
        interrupted = False
        for item in results:
            if item[1].interrupts or item[1].stopped:  # `waiting`, without a property call
                interrupted = True
            elif item[1].error is None:
                completed.append(item)
        if self.continuation.held:
            self.continuation.held = bool(ex.interrupts)
        if interrupted or self.continuation.held:
            out.extend(self.interrupted(ex, results))
            return True
        self.recorder.step += 1
        self.values.commit(ex.values)
        if outcome.written and self.values.shows(outcome.written):
            self.values.shown = True
            if "values" in modes:
                out.append(((), "values", self.values.chunk))
        next_: tuple[str, ...] | None = None
        if self.saver is not None:
            pending = pending_activations(ex, self.graph.node_order)
            next_ = tuple([name for name, _ in pending])
            out.extend(
                self.recorder.checkpoint(
                    ex,
                    "loop",
                    next_=next_,
                    pending=pending,
                    values=self.values.last or {},
                    ran=completed,
                    handed_over=handed,
                )
            )
        if self.after or self.before:
            next_ = self._next(ex) if next_ is None else next_
            names_ran = {node_of(aid) for aid, _ in completed}
            after = bool(_hit(names_ran, self.after) and next_)
            if after or _hit(set(next_), self.before):
                out.extend(self._break("interrupt_after" if after else "interrupt_before"))
                return True
        # LangGraph checks the budget before looking for tasks (`stop`, one property less)
        if self.recorder.step >= self.contexts.stop:
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

    def before_first_step(self, ex: Execution) -> Generator[Event, None, bool]:
        """A low-level graph's input step made its first step's tasks due without a
        superstep: a breakpoint before one of them stops the run before any runs, as
        LangGraph's first tick checks ``interrupt_before`` on what the input triggered
        (a resumed thread's first step does not stop: LangGraph marks every channel seen
        by the breakpoints when it resumes). Returns True (the generator's value) to stop."""
        if not self.before or not self.continuation.input_step:
            return False
        if not _hit(set(self._next(ex)), self.before):
            return False
        yield from self._break("interrupt_before")
        return True

    def _break(self, status: str) -> Iterator[Event]:
        """The run stops at a breakpoint (``status``: LangGraph's loop status then)."""
        # a subgraph's breakpoint stops its parent's task: the parent reports it
        if "updates" in self.modes and self.link is None:
            yield ((), "updates", {"__interrupt__": ()})
        self.stopped = True
        self.breakpoint = status

    def interrupted(
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
        record = self.recorder.record
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

    def apply_command(self, ex: Execution) -> Iterator[Event]:
        """A top-level `Command` without ``resume`` on an existing thread writes onto the
        checkpoint the thread is at (LangGraph's writes of no task), not a step of its own."""
        self.values.commit(ex.values)
        self.values.shown = True
        if "values" in self.modes:
            lowlevel = self.graph.lowlevel
            chunk = self.values.chunk
            if lowlevel is not None:
                chunk = lowlevel.with_sends(chunk, self.continuation.command_writes)
            yield ((), "values", chunk)
        record = self.recorder.record
        if record is None or self.saver is None:
            return
        # As LangGraph: the checkpoint is not stored again; the Command's goto and update
        # are saved on it as writes of no task, after those it had (see `_lgnull`). The
        # run goes on from its view of it with all of them applied (one new version).
        stored = record.stored if record.stored is not None else record.checkpoint
        if stored is None:
            return
        saved = take_command(self.graph, record, self.continuation.command_writes)
        record.values = dict(self.values.last or {})
        run_view(self.saver, record, ex, stored, self.recorder.policy.triggers_of)
        seen_on_resume(record)
        if self.durable or record is self.writer.last_saved:
            self.writer.put_writes(record, NULL_TASK_ID, saved)
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
        # the goto's tasks run in this checkpoint's step: their writes are saved on it
        record.tasks = [*record.tasks, *(t for t in live.tasks if t.key not in known)]
        yield from self.recorder.chunks.events(live, record.parent_id, parent_saved=True)

    def finish(self, ex: Execution) -> Iterator[Event]:
        """A run that committed no step still answers with the thread's current values; one
        that continued a step still waiting on interrupts reports them again."""
        if self.continuation.held and not self.interrupts and ex.interrupts:
            yield from self.tasks.events(())
            yield from self.interrupted(ex, ())
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
