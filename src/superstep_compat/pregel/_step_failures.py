"""`StepFailures`: what a façade run keeps of the failures of its steps, one collaborator of
`GraphRun`: the tasks that failed for good and went on as their node's error handler, the
outcomes of a superstep that failed, the error the run raises for it (recorded on the step's
checkpoint first), whether a task's failure stops its siblings, and what a run stopped
inside a step saves of the tasks that finished.

Never imports the run or the host.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Mapping, Sequence
from typing import Any, NoReturn

from superstep_compat.errors import GraphBubbleUp, ParentCommand
from superstep_compat.pregel._checkpoint_recorder import CheckpointRecorder
from superstep_compat.pregel._checkpoint_tasks import find_task, node_of
from superstep_compat.pregel._node import outcome_of
from superstep_compat.pregel._record import CheckpointRecord
from superstep_compat.pregel._task_context import TaskOutcome
from superstep_compat.types import Command, Send
from superstep_core.node import Activated, EffectCompleted, NodeFailed
from superstep_core.runtime import Execution, StepOutcome

__all__ = ["StepFailures"]

Outcomes = list[tuple[str, TaskOutcome]]
"""(activation id, outcome) of a step's tasks."""


class StepFailures:
    """The failures of the steps of a run of ``graph`` (a compiled `Pregel`), recorded on
    its checkpoints through ``recorder``."""

    __slots__ = ("_seen", "cancelled", "graph", "handed_over", "recorder", "results")

    def __init__(self, graph: Any, recorder: CheckpointRecorder) -> None:
        self.graph = graph
        self.recorder = recorder
        self.results: Outcomes = []
        """The outcomes of the tasks of the superstep that failed (or was stopped)."""
        self.cancelled: list[str] = []
        """The activations of that superstep the host stopped because a sibling failed."""
        self.handed_over: Outcomes = []
        """The tasks of the running step that failed for good and went on as their node's
        error handler: reported (tasks stream, checkpoint) with their error."""
        self._seen: set[str] = set()  # the error handlers' activations noted

    def new_handlers(self, ex: Execution, outcome: StepOutcome | None = None) -> Outcomes:
        """The tasks that failed for good since the last look and went on as their node's
        error handler (the engine's failure route: an activation with a `NodeFailed`
        payload, live, or started and ended within ``outcome``'s superstep), as outcomes
        with their error; noted for the step's checkpoint."""
        found: Outcomes = []
        seen = self._seen
        routed = [(aid, inst.payload) for aid, inst in ex.instances.items()]
        if outcome is not None:
            routed.extend(outcome.handed_over)
        for aid, failed in routed:
            if isinstance(failed, NodeFailed) and aid not in seen:
                seen.add(aid)
                error = failed.cause
                if not isinstance(error, BaseException):
                    error = Exception(failed.message)
                found.append((failed.activation_id, TaskOutcome(error=error)))
        if found:  # a new list: the one `take_handed_over` gave out empty is never changed
            self.handed_over = [*self.handed_over, *found]
        return found

    def reported(self, handler_id: str) -> bool:
        """Whether the failure the error handler's activation ``handler_id`` took over was
        noted already (`new_handlers`: its chunks went out then)."""
        return handler_id in self._seen

    def take_handed_over(self) -> Outcomes:
        """The failures handed over to error handlers since the step's checkpoint (the
        empty list itself when there are none: read only, it stays the pending one)."""
        handed = self.handed_over
        if handed:  # (no new list per step for the usual step, which hands none over)
            self.handed_over = []
        return handed

    def collect(self, ex: Execution) -> Outcomes:
        """The outcomes of the superstep that failed (its events still queued: it did not
        commit; its tasks' within-step results in the engine's ``failed_results``)."""
        self.results = []
        self.cancelled = []
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
                    self.results.append((aid, outcome))
                elif ev.error is not None and ev.error.type == "EffectCancelledError":
                    self.cancelled.append(aid)
        return self.results

    def raise_failure(self, ex: Execution) -> NoReturn:
        """Record the failed step (see `CheckpointRecorder.record_failure`) and raise its
        error: the failed task's, else the engine's last, else a sibling's (the host stopped
        the failing task because a sibling failed); a RuntimeError naming the node when
        none is known."""
        failure = ex.failure
        assert failure is not None
        failed_aid = failure.activation_id
        error: BaseException | None = None
        for aid, result in self.results:
            if aid == failed_aid and result.error:
                error = result.error
        if error is None:
            error = ex.last_error
        if error is None and failed_aid in self.cancelled:
            # the engine names the first failed activation in its order, here a task the
            # host stopped because a sibling failed (it has no outcome): that sibling
            # failed the step, and its error is the one raised and saved, as in LangGraph
            # (which skips cancelled tasks when it looks for the step's error)
            failed_aid, error = next(
                ((aid, r.error) for aid, r in self.results if r.error), (failed_aid, None)
            )
        self.recorder.record_failure(
            ex, error, self.results, self.take_handed_over(), failed_aid, self.cancelled
        )
        if isinstance(error, ParentCommand):
            raise _leaving(error, self.recorder.scope.ns)
        if error is not None:
            raise error
        raise RuntimeError(f"{failure.node}: {failure.error_type}: {failure.message}")

    def fails_step(self, result: EffectCompleted, node: str = "", attempt: int = 1) -> bool:
        """Whether a task of ``node`` that just ended with ``result`` (its attempt
        ``attempt``) stops its step's other tasks (async runs only). LangGraph cancels them
        once a task fails for good: not an interrupt or a parent command (bubbling up), not
        a failure its retry policy runs again (the host retries it in the task's runner,
        so an attempt the policy leaves none after is the task's last). (A sync run lets
        them finish: a thread cannot be cancelled, and skipping the ones not started yet
        would make which tasks of a failed step finished depend on thread timing.)"""
        outcome = result.result
        if not isinstance(outcome, TaskOutcome) or outcome.error is None:
            return False
        spec = self.graph.spec.nodes.get(node)
        if spec is not None and spec.error_handler_node is not None:
            return False  # its error handler takes over; the others go on
        if isinstance(outcome.error, GraphBubbleUp):
            return False
        return outcome.retry is None or attempt >= outcome.retry.max_attempts

    def keep_stopped(
        self,
        ex: Execution,
        ended: Sequence[tuple[str, TaskOutcome]],
        before: Mapping[str, Any],
        cancelled: bool = False,
    ) -> Generator[tuple[CheckpointRecord, bool], None, None]:
        """The run stopped inside a step (its stream closed early, its task cancelled)
        after the tasks ``ended`` returned: as for a failed step, those that finished keep
        their outcomes as pending writes of the step's checkpoint, so the thread shows their
        writes (applied to ``before``, the values the step began with) and continuing it
        runs only the others (LangGraph saves each task's writes as it ends). Written once
        for sync and async runs: it yields the checkpoint for its driver to save (``save``
        or ``await asave``, with its ``outcomes_saved``) before the writes are put under
        it, unless the one saved stays right as it is (`CheckpointRecorder.stopped_save`).
        Those that asked a question keep their interrupts. ``cancelled``: an async run
        stopped at the step's timeout or by its caller: each task that had not ended was
        cancelled, and keeps LangGraph's ``CancelledError()`` as its error."""
        recorder = self.recorder
        record = recorder.record
        if recorder.scope.saver is None or record is None:
            return
        # in the order of the step's tasks, not the order they ended: LangGraph applies a
        # step's writes by task path (an order-sensitive reducer shows the difference)
        rank = {id(task): k for k, task in enumerate(record.tasks)}
        last = len(rank)
        self.results = sorted(
            ended, key=lambda item: rank.get(id(find_task(record, item[0])), last)
        )
        writes = recorder.keep_finished(ex, record, "", self.results, before)
        writes.extend(recorder.keep_asked(record, self.results))
        if cancelled:
            writes.extend(recorder.cancelled_unended(record, [aid for aid, _ in ended]))
        if not writes:
            return
        resave = recorder.stopped_save(record)
        if resave is not None:
            yield record, resave
        for task_id, task_writes in writes:
            recorder.writer.put_writes(record, task_id, task_writes)


def _leaving(error: ParentCommand, ns: str) -> ParentCommand:
    """A node's ``Command(graph=PARENT)`` leaving the run of its graph (namespace ``ns``,
    "" for the root): as LangGraph, the command now names the graph it is addressed to,
    this run's namespace, which the task running this graph takes as its own result (a
    parent's node), or "" when it escapes the root graph (its repr then shows no
    ``graph``). Its traceback stays the node's."""
    command = error.args[0] if error.args else None
    if not isinstance(command, Command) or command.graph != Command.PARENT:
        return error
    error.args = (dataclasses.replace(command, graph=ns), *error.args[1:])
    return error
