"""What a run makes of each committed superstep: LangGraph's step ends (checkpoints,
breakpoints, interrupts), the stream events of its tasks' results, an input `Command`, the
run's end and failures, and the state views (values, next tasks).

`RunSteps` is a part of `GraphRun` (which provides the attributes it declares).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import replace
from typing import Any

from superstep_compat._internal._constants import START
from superstep_compat.errors import (
    ErrorCode,
    GraphBubbleUp,
    GraphRecursionError,
    create_error_message,
)
from superstep_compat.pregel._checkpoint_tasks import (
    Event,
    delivered_outcomes,
    node_of,
    pending_activations,
    pending_tasks,
    push_indexes,
    task_records,
)
from superstep_compat.pregel._lgcheckpoint import build_checkpoint
from superstep_compat.pregel._output_keys import read_keys, shows, update_of
from superstep_compat.pregel._resumer import as_list
from superstep_compat.pregel._run_setup import RunSetup
from superstep_compat.pregel._step_failures import StepFailures
from superstep_compat.pregel._task_context import RunContext, TaskOutcome, _now, task_uuid
from superstep_compat.pregel._task_results import fold_writes
from superstep_compat.types import Interrupt
from superstep_core.runtime import Execution, StepOutcome


class RunSteps(RunSetup):
    """The per-superstep part of `GraphRun`."""

    _early: set[str]
    _launched: list[str]
    failures: StepFailures

    def _after_superstep(self, ex: Execution, outcome: StepOutcome) -> Generator[Event, None, bool]:
        """Observe one committed superstep; returns True (as the generator's value) to stop."""
        if not outcome.committed:
            # a task that failed for good went on as its node's error handler: LangGraph
            # reports its failure as it happens, in the step the handler runs in
            yield from self._task_events(self.failures.new_handlers(ex))
            if outcome.paused:
                # the step paused on interrupts: its finished tasks' results wait in the
                # engine (`suspend_holds_step`) until every interrupted task has finished
                results = self._fresh(delivered_outcomes(outcome))
                yield from self._task_events(results)
                yield from self._interrupted(ex, results)
                self._reported.update(aid for aid, _ in ex.held)
                return True
            return False  # a failed superstep: `StepFailures.collect` reports its tasks
        results = delivered_outcomes(outcome)
        if not results:
            return False
        if self._command_input:
            self._command_input = False
            if all(node_of(aid) == START for aid, _ in results):
                yield from self._apply_command(ex)
                return False
        # the tasks that finished before the step paused were reported then (and the
        # failures error handlers took, as they were handed over)
        handed = self.failures.take_handed_over()
        yield from self._task_events(self._fresh(results) if self._reported else results)
        modes = self.modes
        completed: list[tuple[str, TaskOutcome]] = []
        interrupted = False
        for item in results:
            if item[1].waiting:
                interrupted = True
            elif item[1].error is None:
                completed.append(item)
        if self._held:
            self._held = bool(ex.interrupts)
        if interrupted or self._held:
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
            if (_hit(names_ran, self.after) and next_) or _hit(set(next_), self.before):
                # a subgraph's breakpoint stops its parent's task: the parent reports it
                if "updates" in modes and self.link is None:
                    yield ((), "updates", {"__interrupt__": ()})
                self.stopped = True
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
        if self._held:
            seen = {aid for aid, _ in results}
            for aid, value in ex.interrupts:
                if aid not in seen:
                    waiting = tuple(as_list(value))
                    self.interrupts.extend(waiting)
                    yield from self._interrupt_events(waiting)
        finished = [(aid, r) for aid, r in results if not r.waiting and r.error is None]
        self.recorder.record_interrupts(ex, interrupted, finished)
        record = self.record
        keys = self.keys
        wrote = any(
            r.writes if keys is None else shows(keys, [k for k, _ in r.writes]) for _, r in finished
        ) or (
            self._held
            and record is not None
            and any(t.result for t in record.tasks if t.id in record.finished)
        )
        if wrote:
            self.values.commit(self.recorder.paused_values(ex))
            self.values.shown = True
            if "values" in self.modes:
                yield ((), "values", self.values.chunk)

    def _interrupt_events(self, interrupts: tuple[Interrupt[Any], ...]) -> Iterator[Event]:
        if "updates" in self.modes:
            yield ((), "updates", {"__interrupt__": interrupts})
        if "values" in self.modes and self.values.last is not None and interrupts:
            # a task stopped without values (its subgraph's breakpoint) shows no chunk here
            chunk = {"__interrupt__": interrupts}  # one key's (a root state's) is not shown
            keys = self.keys
            if keys is None and not self.values.is_root:
                chunk = {**self.values.last, **chunk}
            elif keys is not None and not isinstance(keys, str):
                chunk = {**read_keys(self.values.last, keys), **chunk}
            yield ((), "values", chunk)

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

    def _task_events(self, results: Sequence[tuple[str, TaskOutcome]]) -> Iterator[Event]:
        """Each task's chunks as LangGraph emits them when it finishes: its update (then its
        result), or its interrupt; tasks whose writes were saved first, as cached."""
        if self._early:  # streamed as they ended
            early = self._early
            results = [item for item in results if item[0] not in early]
            early.difference_update(aid for aid, _ in results)
        modes = self.modes
        updates = "updates" in modes
        if self._cached:
            cached, self._cached = self._cached, []
            if updates:
                for name, update in cached:
                    if self.keys is not None and isinstance(update, dict):
                        update = update_of(self.keys, list(update.items()))
                    yield ((), "updates", {name: update, "__metadata__": {"cached": True}})
        ordered = results
        if self._launched and len(results) > 1:  # in the order the tasks started
            rank = {aid: k for k, aid in enumerate(self._launched)}
            ordered = sorted(results, key=lambda item: rank.get(item[0], len(rank)))
        if self.saved is not None:  # the outcomes handed back come first, as in LangGraph
            ordered = sorted(ordered, key=lambda item: not item[1].cached)
        ctx = self._run_context() if "tasks" in modes or "debug" in modes else None
        # a task stopped by its subgraph's breakpoint (no interrupt values) is reported as
        # LangGraph reports it: once, when the step's other tasks have been
        stopped = False
        for aid, r in ordered:
            name = node_of(aid)
            if r.drained:  # its subgraph drained: so does this run (no breakpoint to report)
                self.drained = True
            elif r.waiting and not r.interrupts:
                stopped = True
            elif r.waiting:
                yield from self._interrupt_events(tuple(r.interrupts))
            elif r.error is None and updates and name != START:
                chunk = {name: r.update if self.keys is None else update_of(self.keys, r.writes)}
                if r.cached:
                    chunk["__metadata__"] = {"cached": True}
                yield ((), "updates", chunk)
            # (a task its subgraph's breakpoint stopped has no result: it did not end, nor
            # has one whose Command(graph=PARENT) ends this graph's run: LangGraph re-raises it)
            if (
                ctx is not None
                and not r.cached
                and name != START
                and not (r.waiting and not r.interrupts)
                and not isinstance(r.error, GraphBubbleUp)
            ):
                yield from self._task_result(ctx, aid, r)
        if stopped and self.link is None:  # (a subgraph's breakpoint: only the root says so)
            yield from self._interrupt_events(())

    def _task_result(self, ctx: RunContext, aid: str, r: TaskOutcome) -> Iterator[Event]:
        # as LangGraph: the task's writes to the state's channels (and a functional task's
        # return value), a channel written more than once as ``{"$writes": [...]}``
        shown = self.values.stream_keys()
        payload = {
            "id": task_uuid(ctx, aid),
            "name": node_of(aid),
            "error": r.error,
            "result": fold_writes(w for w in r.writes if w[0] in shown)
            if r.error is None and not r.interrupts
            else {},
            "interrupts": [
                {"value": i.value, "id": i.id, "response_schema": None} for i in r.interrupts
            ],
        }
        if "tasks" in self.modes:
            yield ((), "tasks", payload)
        if "debug" in self.modes:
            yield (
                (),
                "debug",
                {
                    "step": self.step + 1,
                    "timestamp": _now(self.clock),
                    "type": "task_result",
                    "payload": payload,
                },
            )

    def _finish(self, ex: Execution) -> Iterator[Event]:
        """A run that committed no step still answers with the thread's current values; one
        that continued a step still waiting on interrupts reports them again."""
        if self._held and not self.interrupts and ex.interrupts:
            yield from self._task_events(())
            yield from self._interrupted(ex, ())
        self.values.keep(ex.values)

    def _fresh(self, results: list[tuple[str, TaskOutcome]]) -> list[tuple[str, TaskOutcome]]:
        """``results`` without the tasks reported when their step paused (held since)."""
        reported = self._reported
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
