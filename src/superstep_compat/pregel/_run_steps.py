"""What a run makes of each committed superstep: LangGraph's step ends (checkpoints,
breakpoints, interrupts), the stream events of its tasks' results, an input `Command`, the
run's end and failures, and the state views (values, next tasks).

`RunSteps` is a part of `GraphRun` (which provides the attributes it declares).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import replace
from typing import Any

from superstep_compat._internal._constants import RETURN, ROOT_KEY, START
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
from superstep_compat.pregel._node import outcome_of
from superstep_compat.pregel._output_keys import read_keys, shows, update_of
from superstep_compat.pregel._resumer import as_list
from superstep_compat.pregel._run_setup import RunSetup
from superstep_compat.pregel._task_context import RunContext, TaskOutcome, _now, task_uuid
from superstep_compat.pregel._task_results import fold_writes
from superstep_compat.types import Interrupt, Send
from superstep_core.node import Activated, EffectCompleted, NodeFailed
from superstep_core.runtime import Execution, StepOutcome


class RunSteps(RunSetup):
    """The per-superstep part of `GraphRun`."""

    _early: set[str]
    _launched: list[str]
    _handed_over: list[tuple[str, TaskOutcome]]
    _handlers_seen: set[str]
    breakpoint: str | None  # where the run stopped (`_lifecycle` reports it)

    def _after_superstep(self, ex: Execution, outcome: StepOutcome) -> Generator[Event, None, bool]:
        """Observe one committed superstep; returns True (as the generator's value) to stop."""
        if not outcome.committed:
            # a task that failed for good went on as its node's error handler: LangGraph
            # reports its failure as it happens, in the step the handler runs in
            yield from self._task_events(self._new_handlers(ex))
            if outcome.paused:
                # the step paused on interrupts: its finished tasks' results wait in the
                # engine (`suspend_holds_step`) until every interrupted task has finished
                results = self._fresh(delivered_outcomes(outcome))
                yield from self._task_events(results)
                yield from self._interrupted(ex, results)
                self._reported.update(aid for aid, _ in ex.held)
                return True
            return False  # a failed superstep: `_failed_results` reports its tasks
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
        handed, self._handed_over = self._handed_over, []
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
        self._committed = ex.values  # a new dict per commit: holding it copies nothing
        self._last_values = None
        if outcome.written and self._shows(outcome.written):
            self.values_shown = True
            if "values" in modes:
                yield ((), "values", self.values_chunk)
        next_: tuple[str, ...] | None = None
        if self.saver is not None:
            pending = pending_activations(ex, self.graph.node_order)
            next_ = tuple([name for name, _ in pending])
            yield from self._checkpoint(
                ex,
                "loop",
                next_=next_,
                keys=[key for _, key in pending],
                values=self.last_values or {},
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
        if self._held:
            seen = {aid for aid, _ in results}
            for aid, value in ex.interrupts:
                if aid not in seen:
                    waiting = tuple(as_list(value))
                    self.interrupts.extend(waiting)
                    yield from self._interrupt_events(waiting)
        finished = [(aid, r) for aid, r in results if not r.waiting and r.error is None]
        self._record_interrupts(ex, interrupted, finished)
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
            self._committed = self.paused_values(ex)
            self._last_values = None
            self.values_shown = True
            if "values" in self.modes:
                yield ((), "values", self.values_chunk)

    def _interrupt_events(self, interrupts: tuple[Interrupt[Any], ...]) -> Iterator[Event]:
        if "updates" in self.modes:
            yield ((), "updates", {"__interrupt__": interrupts})
        if "values" in self.modes and self.last_values is not None and interrupts:
            # a task stopped without values (its subgraph's breakpoint) shows no chunk here
            chunk = {"__interrupt__": interrupts}  # one key's (a root state's) is not shown
            keys = self.keys
            if keys is None and not self.is_root:
                chunk = {**self.last_values, **chunk}
            elif keys is not None and not isinstance(keys, str):
                chunk = {**read_keys(self.last_values, keys), **chunk}
            yield ((), "values", chunk)

    def _apply_command(self, ex: Execution) -> Iterator[Event]:
        """A top-level `Command` without ``resume`` on an existing thread writes onto the
        checkpoint the thread is at (LangGraph's writes of no task), not a step of its own."""
        self._committed = ex.values
        self._last_values = None
        self.values_shown = True
        if "values" in self.modes:
            yield ((), "values", self.values_chunk)
        record = self.record
        if record is None or self.saver is None:
            return
        record.values = dict(self.last_values or {})
        record.engine = ex.snapshot()
        build_checkpoint(self.saver, record, record.checkpoint, triggers_of=self._triggers_of)
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
            triggers_of=self._triggers_of,
            pushes=push_indexes(ex, pending),
        )
        live = replace(
            record,
            next=tuple(name for name, _ in pending),
            tasks=[known[key] if key in known else fresh.pop(0) for _, key in pending],
        )
        yield from self._checkpoint_events(live, record.parent_id)

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
        shown = self._stream_keys()
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

    @property
    def last_values(self) -> dict[str, Any] | None:
        """The state channels after the last committed step (None before any), built on
        first use: a run that neither checkpoints nor streams values never builds them."""
        if self._last_values is None and self._committed is not None:
            keys = self.graph.state_channels
            committed = self._committed
            self._last_values = {k: committed[k] for k in keys if k in committed}
        return self._last_values

    def _stream_keys(self) -> frozenset[str]:
        """The channels whose writes a task's result in the ``tasks`` stream shows."""
        keys = self._shown_keys
        if keys is None:
            keys = self._shown_keys = frozenset((*self.graph.state_channels, RETURN))
        return keys

    _shown_keys: frozenset[str] | None = None

    @property
    def is_root(self) -> bool:
        """Whether the state is one value (a schema without fields: ``__root__``)."""
        return bool(self.graph.state_channels == (ROOT_KEY,))

    def _shows(self, written: Sequence[str]) -> bool:
        """Whether a step that wrote the channels ``written`` shows a ``values`` chunk (a
        low-level graph's: when it wrote a stream channel)."""
        if self.keys is not None:
            return shows(self.keys, written)
        lowlevel = self.graph.lowlevel
        return lowlevel is None or lowlevel.shows(written)

    @property
    def values_chunk(self) -> Any:
        """What the ``values`` stream shows: the state channels, a root state's bare value
        (or what the run's output keys show of them)."""
        values = self.last_values
        if self.keys is not None:
            return read_keys(values or {}, self.keys)
        if self.graph.lowlevel is not None:
            return self.graph.lowlevel.values_of(values or {})
        return values.get(ROOT_KEY) if self.is_root and values is not None else values

    def _finish(self, ex: Execution) -> Iterator[Event]:
        """A run that committed no step still answers with the thread's current values; one
        that continued a step still waiting on interrupts reports them again."""
        if self._held and not self.interrupts and ex.interrupts:
            yield from self._task_events(())
            yield from self._interrupted(ex, ())
        if self._committed is None and self._last_values is None:
            self._committed = ex.values

    def _new_handlers(self, ex: Execution) -> list[tuple[str, TaskOutcome]]:
        """The tasks that failed for good since the last look and went on as their node's
        error handler (the engine's failure route: an activation with a `NodeFailed`
        payload), as outcomes with their error; noted for the step's checkpoint."""
        found: list[tuple[str, TaskOutcome]] = []
        seen = self._handlers_seen
        for aid, inst in ex.instances.items():
            failed = inst.payload
            if isinstance(failed, NodeFailed) and aid not in seen:
                seen.add(aid)
                error = failed.cause
                if not isinstance(error, BaseException):
                    error = Exception(failed.message)
                found.append((failed.activation_id, TaskOutcome(error=error)))
        self._handed_over.extend(found)
        return found

    def _fresh(self, results: list[tuple[str, TaskOutcome]]) -> list[tuple[str, TaskOutcome]]:
        """``results`` without the tasks reported when their step paused (held since)."""
        reported = self._reported
        return [item for item in results if item[0] not in reported]

    def _failed_results(self, ex: Execution) -> list[tuple[str, TaskOutcome]]:
        """The outcomes of the superstep that failed (its events still queued: it did not
        commit; its tasks' within-step results in the engine's ``failed_results``)."""
        self.failed_results = []
        runner = self.graph.runner
        # a Send task's own limits (its activation's event is still queued)
        limits = {
            aid: ev.payload.timeout
            for aid, ev in ex.queue
            if isinstance(ev, Activated) and isinstance(ev.payload, Send)
        }
        for aid, ev in [*ex.queue, *ex.failed_results]:
            if isinstance(ev, EffectCompleted):
                # a timeout: NodeTimeoutError, naming the limits the task had
                outcome = outcome_of(runner, node_of(aid), ev, limits.get(aid))
                if outcome is not None:
                    self.failed_results.append((aid, outcome))
        return self.failed_results

    def _raise_failure(self, ex: Execution) -> None:
        failure = ex.failure
        assert failure is not None
        error: BaseException | None = None
        for aid, result in self.failed_results:
            if aid == failure.activation_id and result.error:
                error = result.error
        if error is None:
            error = ex.last_error
        if error is None:
            # the failing activation was a task the host stopped because a sibling failed
            # (it has no outcome): the sibling's error is the step's, as in LangGraph
            error = next((r.error for _, r in self.failed_results if r.error), None)
        self._record_failure(ex, error)
        if error is not None:
            raise error
        raise RuntimeError(f"{failure.node}: {failure.error_type}: {failure.message}")

    # --- state views ----------------------------------------------------------------------

    def _values(self, ex: Execution) -> dict[str, Any]:
        """Every state channel with a value (the ``values`` stream and snapshots show them
        all; only ``invoke``'s result is narrowed to the output schema)."""
        values = ex.values
        return {k: values[k] for k in self.graph.state_channels if k in values}

    def _next(self, ex: Execution) -> tuple[str, ...]:
        return pending_tasks(ex, self.graph.node_order)


def _hit(names: set[str] | frozenset[str], breakpoints: frozenset[str]) -> bool:
    """Whether any of ``names`` is a breakpoint (``"*"``: every node but ``__start__``,
    which LangGraph hides from breakpoints)."""
    if "*" in breakpoints:
        return bool(names - {START})
    return bool(names & breakpoints)
