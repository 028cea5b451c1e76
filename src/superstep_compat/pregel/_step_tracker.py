"""`StepTracker`: the bookkeeping of the step a façade run is in, one collaborator of
`GraphRun`: the order its tasks start in (a host's launch key: push tasks first, as
LangGraph), the tasks as they started and ended, which of them streamed their chunks as they
ended, and the `StartGate` that holds those chunks until every start went out.

Never imports the run or the host.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from superstep_compat.pregel._checkpoint_tasks import (
    HeldTask,
    Startable,
    first_come,
    node_of,
    push_tasks_first,
)
from superstep_compat.pregel._start_gate import StartGate
from superstep_compat.pregel._task_context import TaskOutcome
from superstep_core.runtime import EffectRequest, Execution

__all__ = ["StepTracker"]

Outcomes = Sequence[tuple[str, TaskOutcome]]
"""(activation id, outcome) of a step's tasks."""


class StepTracker:
    """The tasks of the step a run is in, as its host starts and ends them."""

    __slots__ = (
        "closed",
        "early",
        "ended",
        "execution",
        "finished",
        "first_step_order",
        "launch_key",
        "launched",
        "starts",
        "values_before",
    )

    def __init__(self) -> None:
        self.first_step_order: dict[str, int] = {}
        """The order the first step starts its pull tasks in (the nodes' order, after an
        edit); empty: by node name."""
        self.launched: list[str] = []
        """The tasks of the running step in the order the host started them."""
        self.ended: list[tuple[str, TaskOutcome]] = []
        """What the tasks of the running step returned so far, as each ended."""
        self.finished: dict[str, int] = {}
        """The tasks of the running step that ended, each with its place in the order they
        ended (kept until the next step: the step's chunks are made after it committed)."""
        self.closed = False
        """The run's stream was closed inside the running step, whose tasks still end but
        are not kept from then on (durability "exit": see `GraphRun.events`)."""
        self.early: set[str] = set()
        """Activations whose chunks went out as they ended, not with their step."""
        self.starts = StartGate()
        """Holds those chunks until every task of the step announced its start."""
        self.launch_key: Callable[[Startable], Any] = first_come
        self.execution: Execution | None = None
        self.values_before: Mapping[str, Any] = {}
        """The engine's values as the running step began: a sync host still commits a step
        whose stream was closed (its thread cannot be stopped), so what a stopped step keeps
        is applied to these, not to what the engine committed (a commit makes a new dict:
        holding this one copies nothing)."""

    def watch(self, ex: Execution) -> Callable[[Startable], Any]:
        """Track the steps of ``ex``; returns the order its tasks start in (a host's
        ``launch_key``: push tasks first, as LangGraph)."""
        self.launch_key = push_tasks_first(ex, self.first_step_order)
        self.execution = ex
        return self.launch_key

    def begin(
        self,
        requests: list[EffectRequest],
        held: list[str],
        held_start: Callable[[Execution, str], Callable[[], None]] | None,
        hold: bool = False,
    ) -> None:
        """A step's tasks are about to run (``requests``), beside ``held``, those of a
        resumed step that finished before it paused; with ``held_start`` (task starts are
        streamed), the starts go out in launch order and the results after them all;
        ``hold``: the tasks wait after their start until the gate is released
        (`StartGate.expect`)."""
        ex = self.execution
        if ex is not None:
            self.values_before = ex.values
        if not held and len(requests) == 1 and held_start is None:
            # one task (a chain's step) whose start nobody announces: no order to work out
            self.launched.append(requests[0].activation_id)
            return
        if not held and len(requests) == 1:
            launched = [requests[0].activation_id]
        else:
            tasks: list[Startable] = [*requests, *(HeldTask(aid, node_of(aid)) for aid in held)]
            launched = [t.activation_id for t in sorted(tasks, key=self.launch_key)]
        self.launched.extend(launched)
        if held_start is not None:
            self.starts.expect(launched, hold=hold)
            for aid in held:  # in the step's order, with the tasks that run
                assert ex is not None  # watched before any step
                self.starts.started(aid, held_start(ex, aid))

    def task_ended(self, activation_id: str, outcome: TaskOutcome) -> None:
        """Task ``activation_id`` ended with ``outcome``."""
        self.ended.append((activation_id, outcome))
        self.finished.setdefault(activation_id, len(self.finished))

    def stepped(self) -> None:
        """The step ended (committed, paused or failed): what its tasks returned is its."""
        self.ended.clear()
        self.closed = False

    def close_step(self) -> None:
        """The run's stream was closed inside the running step: tasks that end from now on
        are not kept (`closed`)."""
        self.closed = True

    def next_step(self) -> None:
        """The run goes on to its next step."""
        self.launched.clear()
        self.finished.clear()
        self.first_step_order.clear()

    def not_early(self, results: Outcomes) -> Outcomes:
        """``results`` without the tasks whose chunks went out as they ended."""
        early = self.early
        if not early:
            return results
        kept = [item for item in results if item[0] not in early]
        early.difference_update(aid for aid, _ in kept)
        return kept

    def in_step_order(self, results: Outcomes) -> Outcomes:
        """``results`` in the order LangGraph hands a step's task chunks out: as its tasks
        ended (it emits each task's chunks as the task's writes are put, even when the
        caller reads them only after the step); those that did not end in this step (held
        from before a pause) first, in the order they started."""
        if not self.launched or len(results) < 2:
            return results
        rank = {aid: k for k, aid in enumerate(self.launched)}
        finished = self.finished
        return sorted(
            results,
            key=lambda item: (finished.get(item[0], -1), rank.get(item[0], len(rank))),
        )
