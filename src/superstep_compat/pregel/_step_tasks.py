"""`StepTasks`: the stream events of a façade run's tasks, one collaborator of `GraphRun`: each
task's chunks as LangGraph emits them when it ends (its update, its result in the ``tasks``
and ``debug`` modes, or its interrupt), in the order the tasks ended, with the updates a
continued step announces again (as cached) first.

Never imports the run or the host.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from superstep_compat._internal._constants import START
from superstep_compat.errors import GraphBubbleUp
from superstep_compat.pregel._checkpoint_recorder import CheckpointRecorder
from superstep_compat.pregel._checkpoint_tasks import Event, node_of
from superstep_compat.pregel._output_keys import read_keys, update_of
from superstep_compat.pregel._run_scope import RunScope
from superstep_compat.pregel._run_setup import Continuation
from superstep_compat.pregel._run_values import RunValues
from superstep_compat.pregel._step_tracker import StepTracker
from superstep_compat.pregel._task_context import RunContext, TaskOutcome, _now, task_uuid
from superstep_compat.pregel._task_results import fold_writes
from superstep_compat.types import Interrupt
from superstep_core.host import Clock

__all__ = ["StepTasks"]


@dataclass(eq=False, repr=False, kw_only=True)
class StepTasks:
    """The task events of a run showing its ``scope``'s modes (through its output keys), its
    state as ``values`` shows it; ``continuation``: what it continues (cached updates, saved
    outcomes); ``tracker``: its step's tasks; ``recorder``: its step number; ``clock``: the
    run's (timestamps); ``root``: whether it is a root graph's run (not a subgraph's);
    ``run_context``: its tasks' context (their ids)."""

    scope: RunScope  # what the run is about
    values: RunValues
    continuation: Continuation
    tracker: StepTracker
    recorder: CheckpointRecorder
    clock: Clock
    root: bool
    run_context: Callable[[], RunContext]
    drained: bool = False
    """Whether a task's subgraph drained (so does the run)."""

    def events(self, results: Sequence[tuple[str, TaskOutcome]]) -> list[Event]:
        """Each task's chunks as LangGraph emits them when it finishes: its update (then its
        result), or its interrupt; tasks whose writes were saved first, as cached. A list,
        not a generator: every caller hands them on together (once per superstep)."""
        out: list[Event] = []
        tracker = self.tracker
        if tracker.early:  # (`not_early`: only when some chunks went out as tasks ended)
            results = tracker.not_early(results)
        modes = self.scope.modes
        updates = "updates" in modes
        if self.continuation.cached:
            cached, self.continuation.cached = self.continuation.cached, []
            if updates:
                for name, update in cached:
                    if self.scope.keys is not None and isinstance(update, dict):
                        update = update_of(self.scope.keys, list(update.items()))
                    out.append(((), "updates", {name: update, "__metadata__": {"cached": True}}))
        # (the order asked only when there is an order to follow)
        ordered = tracker.in_step_order(results) if len(results) > 1 else results
        if self.continuation.saved is not None:  # the outcomes handed back first, as LangGraph
            ordered = sorted(ordered, key=lambda item: not item[1].cached)
        ctx = self.run_context() if "tasks" in modes or "debug" in modes else None
        # a task stopped by its subgraph's breakpoint (no interrupt values) is reported as
        # LangGraph reports it: once, when the step's other tasks have been
        stopped = False
        for aid, r in ordered:
            if r.drained:  # its subgraph drained: so does this run (no breakpoint to report)
                self.drained = True
            # (`r.waiting` spelled out: a property call per test, per task per step)
            elif r.stopped and not r.interrupts:  # waiting, without interrupts
                stopped = True
            elif r.interrupts:  # waiting, on interrupts
                out.extend(self.interrupt_events(tuple(r.interrupts)))
            elif r.error is None and updates and (name := node_of(aid)) != START:
                chunk = {
                    name: r.update
                    if self.scope.keys is None
                    else update_of(self.scope.keys, r.writes)
                }
                if r.cached:
                    chunk["__metadata__"] = {"cached": True}
                out.append(((), "updates", chunk))
            # (a task its subgraph's breakpoint stopped has no result: it did not end, nor
            # has one whose Command(graph=PARENT) ends this graph's run: LangGraph re-raises it)
            if (
                ctx is not None
                and not r.cached
                and node_of(aid) != START
                and not (r.stopped and not r.interrupts)
                and not isinstance(r.error, GraphBubbleUp)
            ):
                out.extend(self._task_result(ctx, aid, r))
        if stopped and self.root:  # (a subgraph's breakpoint: only the root says so)
            out.extend(self.interrupt_events(()))
        return out

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
        if "tasks" in self.scope.modes:
            yield ((), "tasks", payload)
        if "debug" in self.scope.modes:
            yield (
                (),
                "debug",
                {
                    "step": self.recorder.step + 1,
                    "timestamp": _now(self.clock),
                    "type": "task_result",
                    "payload": payload,
                },
            )

    def interrupt_events(self, interrupts: tuple[Interrupt[Any], ...]) -> Iterator[Event]:
        """The chunks of ``interrupts`` (none: a task stopped by its subgraph's breakpoint):
        an ``updates`` chunk, and a ``values`` chunk of the state with them."""
        if "updates" in self.scope.modes:
            yield ((), "updates", {"__interrupt__": interrupts})
        if (
            interrupts
            and self.values.last is not None
            and self.scope.keys is None
            and not self.values.is_root
            and self.values.graph.lowlevel is None
        ):
            # LangGraph's interrupt ``values`` chunk shows the state, and ``invoke`` returns
            # the last such chunk: the state is shown even when no step wrote (input {})
            self.values.shown = True
        if "values" in self.scope.modes and self.values.last is not None and interrupts:
            # a task stopped without values (its subgraph's breakpoint) shows no chunk here
            chunk = {"__interrupt__": interrupts}  # one key's (a root state's) is not shown
            keys = self.scope.keys
            if keys is None and not self.values.is_root:
                chunk = {**self.values.last, **chunk}
            elif keys is not None and not isinstance(keys, str):
                chunk = {**read_keys(self.values.last, keys), **chunk}
            yield ((), "values", chunk)
