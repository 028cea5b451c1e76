"""`RunContexts`: the run context each task of a façade run is given (`RunContext`: its
step, config, stream hooks, clock, replay and answers), one collaborator of `GraphRun`.

A run builds one per step budget, checkpoint and replay state, and copies it for each task
(`RunContext.fresh`): nothing else a run context is built from changes once a run's tasks
run. Never imports the run or the host.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from superstep_compat.pregel._checkpoint_recorder import CheckpointRecorder
from superstep_compat.pregel._record import CheckpointRecord
from superstep_compat.pregel._run_scope import RunScope
from superstep_compat.pregel._run_setup import Continuation
from superstep_compat.pregel._step_tracker import StepTracker
from superstep_compat.pregel._task_context import RunContext
from superstep_compat.runtime import RunControl
from superstep_core.host import Clock, NestedEffects, RandomSource

__all__ = ["RunContexts"]


class RunContexts:
    """Builds the run contexts of a run's tasks from the run's ``scope`` and collaborators.
    ``live`` (the run streams its tasks' chunks as they end) and ``nested`` (the host's
    nested effects) are set by the run as it learns them; ``continuation`` once the run has
    one (it is given `run_context`)."""

    continuation: Continuation

    def __init__(
        self,
        *,
        scope: RunScope,
        recorder: CheckpointRecorder,
        tracker: StepTracker,
        context: Any,
        store: Any,
        emit: Callable[..., None],
        task_ns: str,
        subgraphs: bool,
        clock: Clock,
        rng: RandomSource,
        control: RunControl,
        limit: int,
    ) -> None:
        self.graph: Any = scope.graph
        self.config = scope.config
        self.saver = scope.saver
        self.modes = scope.modes
        self.recorder = recorder
        self.tracker = tracker
        self.context = context
        self.store = store
        self._emit_transient = emit
        self.task_ns = task_ns
        self.subgraphs = subgraphs
        self.clock = clock
        self.rng = rng
        self.control = control
        self.limit = limit
        self.live = False
        self.nested: NestedEffects | None = None

    @property
    def orders_starts(self) -> bool:
        """Whether tasks announce their starts to the run's `StartGate`: a live run that
        streams task starts (``tasks``/``debug``) and its tasks' results as they end."""
        return self.live and ("tasks" in self.modes or "debug" in self.modes)

    _run_template: tuple[tuple[Any, ...], RunContext] | None = None
    _first_step: int | None = None  # the step of the first task context handed out

    def run_context(self) -> RunContext:
        """The context of a task of the run's next step (a new one each time: a task sets
        fields of its own): a copy of one built when what it is built from last changed
        (the checkpoint and its tasks, the step budget, a live run's gate; before the first
        task: nested effects, replay, spare answers), with the step's number. Nothing else
        a run context is built from changes once a run's tasks run."""
        record = self.recorder.record
        continuation = self.continuation
        tasks = None if record is None else record.tasks
        known = self._run_template
        # the parts compared spelled out (the step budget equal, the rest the same objects),
        # each read where it is compared: a helper call here cost a call per task per step,
        # and the key's tuple is made only when the template is
        if (
            known is None
            or (seen := known[0])[1] is not record
            or seen[2] is not tasks
            or seen[3] is not self.live
            or seen[4] is not self.nested
            or seen[5] is not continuation.replay
            or seen[6] is not continuation.spare_answers
            or seen[0] != continuation.start_step + self.limit + 1
        ):
            key = (
                continuation.start_step + self.limit + 1,  # `stop`, without a property call
                record,
                tasks,
                self.live,
                self.nested,
                continuation.replay,
                continuation.spare_answers,
            )
            if (
                known is not None
                and seen[0] == key[0]
                and seen[3] is key[3]
                and seen[4] is key[4]
                and seen[5] is key[5]
                and seen[6] is key[6]
            ):
                # a checkpointed run's every step: only what comes from the checkpoint
                # moved. Updated in place: the template itself never reaches a task (each
                # gets a copy, below), so no copy of it is needed.
                template = known[1]
                template.checkpoint_id = None if record is None else record.checkpoint_id
                template.task_ids = _task_ids(record)
            else:
                template = self._new_run_context()
            known = self._run_template = (key, template)
        ctx = known[1].fresh()
        ctx.step = self.recorder.step + 1
        if continuation.resuming:  # only the tasks of the run's first step resume
            first = self._first_step
            if first is None:
                first = self._first_step = ctx.step
            ctx.resuming = ctx.step == first
        return ctx

    def _new_run_context(self) -> RunContext:
        record = self.recorder.record
        return RunContext(
            config=self.config,
            context=self.context,
            store=self.store,
            step=self.recorder.step + 1,
            stop=self.stop,
            emit=self._emit_transient,
            stream_modes=self.modes,
            checkpoint_ns=self.task_ns,
            saver=self.saver,
            subgraphs=self.subgraphs,
            cache=self.graph.cache,
            checkpoint_id=None if record is None else record.checkpoint_id,
            saved_writes=() if record is None else record.pending,
            clock=self.clock,
            rng=self.rng,
            replay=self.continuation.replay,
            nested=self.nested,
            control=self.control,
            started=self.tracker.starts.started if self.orders_starts else None,
            task_ids=_task_ids(record),
            spare_answers=self.continuation.spare_answers,
            # (a new template, a new list: what a runtime is made of can change only with it)
            shared_runtime=[],
        )

    @property
    def stop(self) -> int:
        """The step the run's recursion budget ends at."""
        return self.continuation.start_step + self.limit + 1


def _task_ids(record: CheckpointRecord | None) -> dict[str, str]:
    """The LangGraph task id of each activation of ``record``'s tasks."""
    return {} if record is None else {t.key: t.id for t in record.tasks if t.key}
