"""`TaskWatch`: a façade run's view of its host's tasks as they begin and end, one
collaborator of `GraphRun` (the host's ``on_perform``/``on_result`` observers): it keeps the
step's launch order and ended tasks (`StepTracker`; not those ending after the run was
cancelled, or after its stream was closed under durability "exit"), announces task starts
in order, streams a live run's finished tasks' chunks as they end, and says when a failure
stops a step's other tasks. Never imports the run."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from functools import partial

from superstep_compat.errors import NodeError
from superstep_compat.pregel._run_contexts import RunContexts
from superstep_compat.pregel._run_setup import Continuation
from superstep_compat.pregel._step_failures import StepFailures
from superstep_compat.pregel._step_tasks import StepTasks
from superstep_compat.pregel._step_tracker import StepTracker
from superstep_compat.pregel._task_context import TaskOutcome
from superstep_core.host import AsyncHost, Host
from superstep_core.node import EffectCompleted
from superstep_core.runtime import EffectRequest, Execution

__all__ = ["TaskWatch"]


class TaskWatch:
    """Observes the tasks of the host a run drives (`observe`)."""

    def __init__(
        self,
        *,
        tracker: StepTracker,
        continuation: Continuation,
        contexts: RunContexts,
        tasks: StepTasks,
        failures: StepFailures,
        emit: Callable[..., None],
    ) -> None:
        self.tracker = tracker  # the tasks of the step the run is in
        self.continuation = continuation
        self.contexts = contexts  # whether the run is live; the host's nested effects
        self.tasks = tasks  # their stream events
        self.failures = failures
        self._emit_transient = emit
        # whether a task failing for good stops its step's others (async runs: `fails_step`)
        self.stops_siblings = False
        # a root run streaming task starts: its steps' tasks wait for the consumer to pull
        # their starts (`StartGate`), when the host can start them all at once
        self.holds_starts = False
        # False: the run streams its tasks' updates early only for LangGraph's async runner,
        # which hands a step's lone task's update on with the step (its fast path runs it
        # inline when no mode waits for mid-step chunks): after the step's checkpoint is put
        self.eager = True
        self._host: Host | AsyncHost | None = None
        self._handed: set[str] = set()  # failures streamed as their handler started

    def observe(self, host: Host | AsyncHost, ex: Execution) -> None:
        """Watch ``host``'s tasks as they begin and end (`tasks_begin`, `task_ended`);
        the host starts a step's push tasks first, as LangGraph."""
        self.contexts.nested = host.nested
        self._host = host
        host.on_result = self.task_ended
        host.on_perform = self.tasks_begin
        host.launch_key = self.tracker.watch(ex)

    def release(self) -> None:
        """Forget the host (the run has ended; the host holds this watch's methods)."""
        self._host = None

    def task_ended(self, request: EffectRequest, result: EffectCompleted) -> bool:
        """The host's result observer (each task's result as the task ends): a live run
        streams a finished task's chunks now (LangGraph emits them as the task ends, not
        when its step does); returns whether the step's other tasks stop
        (`StepFailures.fails_step`)."""
        outcome = result.result
        tracker = self.tracker
        if (
            isinstance(outcome, TaskOutcome)
            and not tracker.closed
            and not self.contexts.control.cancel_requested
        ):
            # (one that ends after the run was cancelled is not kept if the run then stops
            # inside its step: its driver abandoned the run first, see `RunControl`)
            tracker.task_ended(request.activation_id, outcome)
        aid = request.activation_id
        if (
            self.contexts.live
            and isinstance(outcome, TaskOutcome)
            and (self.eager or len(tracker.launched) != 1)
            and self._streams_early(outcome)
        ):
            # (an error handler's task too: its failure went out as it started)
            tracker.starts.ended(aid, partial(self._stream_ended, aid, outcome))
        elif tracker.starts.waiting:  # nothing to stream now (it goes out with its step)
            tracker.starts.ended(aid, _nothing)
        if not self.stops_siblings:
            return False
        attempt = getattr(request.effect.request, "attempt", 1)
        return self.failures.fails_step(result, request.node, attempt)

    def tasks_begin(self, requests: list[EffectRequest]) -> None:
        """The host's view of a step's tasks before they run: with task starts streamed, the
        starts go out in this order and the results after them all (`StartGate`)."""
        continuation = self.continuation
        held = continuation.held_starts  # finished before (taken once: a new list only then)
        if held:
            continuation.held_starts = []
        announce = continuation.held_start if self.contexts.orders_starts else None
        hold = announce is not None and self.holds_starts and self._all_start(requests)
        self.tracker.begin(requests, held, announce, hold)

    def _all_start(self, requests: list[EffectRequest]) -> bool:
        """Whether the host starts every one of ``requests`` without waiting for another
        to end (a worker, a concurrency slot each): only then can a step's tasks all wait
        at their start without holding up a sibling that has not started yet. A wider
        step is not held (its tasks run as they start; LangGraph would announce them all
        first)."""
        host = self._host
        n = len(requests)
        if isinstance(host, Host):
            return n <= host.max_workers
        if host is None or (host.max_concurrency is not None and n > host.max_concurrency):
            return False
        runner = self.contexts.graph.runner
        blocking = sum(1 for r in requests if runner.blocks(r.node))
        return blocking <= _executor_size()

    def _stream_ended(self, aid: str, outcome: TaskOutcome) -> None:
        for ns, mode, data in self.tasks.events([(aid, outcome)]):
            self._emit_transient(mode, data, ns)
        self.tracker.early.add(aid)

    def failure_handed(self, aid: str, failed: NodeError) -> None:
        """The performer's hook as error handler ``aid``'s task starts in the place of a
        task that has just failed for good: a live run streams the failure's result now
        (LangGraph emits it as the task fails, before the handler runs), unless its step
        reported it already (a hand-over held to the next step). The engine names the
        handler's activation after the failed one's sequence number (``<handler>:<seq>``
        for ``<node>:<seq>``); `StepFailures.new_handlers` still notes the failure for the
        step's checkpoint, and the step's events skip it."""
        tracker = self.tracker
        if (
            not self.contexts.live
            or tracker.closed
            or not (self.eager or len(tracker.launched) != 1)
            or not self._plain_step()
            or self.failures.reported(aid)
        ):
            return
        failed_aid = f"{failed.node}:{aid.rpartition(':')[2]}"
        if failed_aid in self._handed:  # (a retried handler starts again)
            return
        self._handed.add(failed_aid)
        outcome = TaskOutcome(error=failed.error)
        tracker.starts.ended(failed_aid, partial(self._stream_ended, failed_aid, outcome))

    def _streams_early(self, outcome: TaskOutcome) -> bool:
        """Whether a task's chunks can go out as it ends: a finished or interrupted task
        (LangGraph puts an interrupt's writes as the task ends, and emits its chunks with
        them) of a step with nothing to announce first (saved or cached outcomes, an input
        command, a step continued after a pause) keeps its place in the step's order
        otherwise, as does a task its subgraph's breakpoint stopped (reported once, with
        the step)."""
        return (
            outcome.error is None
            and not outcome.stopped
            and not outcome.cached
            and self._plain_step()
        )

    def _plain_step(self) -> bool:
        """The step has nothing to announce before its tasks' chunks (saved or cached
        outcomes, an input command, a step continued after a pause)."""
        continuation = self.continuation
        return (
            continuation.saved is None
            and not continuation.cached
            and not continuation.command_input
            and not continuation.reported
        )


def _executor_size() -> int:
    """The worker threads of the running loop's default executor (where the async host
    runs a plain function's task): the set one's, else what asyncio would create."""
    try:
        executor = getattr(asyncio.get_running_loop(), "_default_executor", None)
    except RuntimeError:  # not on the loop's thread: assume asyncio's own
        executor = None
    workers = getattr(executor, "_max_workers", None)
    if isinstance(workers, int):
        return workers
    return min(32, (os.cpu_count() or 1) + 4)


def _nothing() -> None:
    return None
