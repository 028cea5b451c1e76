"""A façade task as an engine effect of a registered kind: its request is plain data, and a
host performs it with the handler it registered for the kind.

A graph node's activation (an entrypoint's too) asks for one effect of kind `TASK_KIND` whose
request, a `TaskRequest`, says everything about the task that varies from one task to the
next: the node, the activation (LangGraph's task), the state it reads, its input (a `Send`'s
argument, the graph input), the answers to its interrupts so far, the attempt, the results of
the `@task` calls it made before it was interrupted, and its index among its step's `Send`
tasks. What stays the same for every task of a run (the config, context, store, the stream
it writes to) is the performer's: a `TaskPerformer` bound to the run, registered with the
run's host under `TASK_KIND`. Nothing in the request is a callable, so a host records it, a
durable execution stores it, and a replay from the engine's input log reads the task's
outcome (the effect's result) from the log instead of calling the user's code again.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Mapping
from contextvars import copy_context
from dataclasses import dataclass
from typing import Any

from superstep_compat._internal._policies import TimeoutPolicy
from superstep_compat.errors import NodeError
from superstep_compat.pregel._task import TaskCall, TaskRunner
from superstep_compat.pregel._task_context import RunContext, TaskOutcome
from superstep_compat.pregel._task_support import attempt_observer, report_attempt
from superstep_core.host import EffectContext, SplitHandler, deadline_stop
from superstep_core.persistence import register
from superstep_core.twin import Block, Twin, adrive, drive, picked

__all__ = ["TASK_KIND", "SavedOutcomes", "TaskPerformer", "TaskRequest"]

TASK_KIND = "langgraph.task"
"""The effect kind of a façade task (a graph node's or an entrypoint's work)."""


@dataclass(slots=True)  # not frozen: one is built per task, and a frozen init costs ~4x
class TaskRequest:
    """One task to perform (treat it as read-only): node ``node`` in activation
    ``activation_id`` (LangGraph's task) reads ``values`` (the committed state of its
    superstep; shared, never copied), takes ``arg`` as its input when not None, has
    ``resume`` as the answers to its interrupts so far, is on attempt ``attempt`` (1-based),
    gets back ``memo`` (the results of the `@task` calls it made before it was interrupted),
    and is the ``push``-th `Send` task of its step (None: an edge or a goto started it);
    ``failed``: for an error handler's task, the failure it handles; ``timeout``: the limits
    its `Send` gave it, in place of its node's (None: the node's)."""

    node: str
    activation_id: str
    values: Mapping[str, Any]
    arg: Any = None
    resume: tuple[Any, ...] = ()
    attempt: int = 1
    memo: dict[str, Any] | None = None
    push: int | None = None
    failed: NodeError | None = None
    timeout: TimeoutPolicy | None = None


def _stored(request: TaskRequest) -> list[Any]:
    # the state is the runtime's read-only view of its committed values: stored as a dict
    return [
        request.node,
        request.activation_id,
        dict(request.values),
        request.arg,
        request.resume,
        request.attempt,
        request.memo,
        request.push,
        request.failed,
        request.timeout,
    ]


def _loaded(fields: list[Any]) -> TaskRequest:
    return TaskRequest(*fields)


register(TaskRequest, tag="superstep_compat:TaskRequest", encode=_stored, decode=_loaded)
register(TaskOutcome, tag="superstep_compat:TaskOutcome")
register(NodeError, tag="superstep_compat:NodeError")
"""A task's outcome is an effect's result: a durable host stores it with the input log (one
whose error or values the codec cannot hold is refused, naming the type)."""

SavedOutcomes = Callable[[TaskRequest], TaskOutcome | None]
"""The outcome a run already has for a task (it finished in a step that then stopped), or
None: the task must run."""


class TaskPerformer:
    """Performs the `TASK_KIND` effects of one run: the handler a host registers.

    ``context`` builds the run context of one task (a new one per task: a `Send` task sets its
    push index on it); ``saved`` (optional) hands back an outcome the run already has instead
    of running the task; ``options`` are further keyword arguments of the runner's ``run`` and
    ``arun``; ``handed`` (optional) is told ``(activation id, failure)`` as an error handler's
    task starts in the place of a task that failed for good (the failure has just happened)."""

    def __init__(
        self,
        runner: TaskRunner,
        context: Callable[[], RunContext],
        *,
        saved: SavedOutcomes | None = None,
        options: Mapping[str, Any] | None = None,
        handed: Callable[[str, NodeError], None] | None = None,
    ) -> None:
        self.runner = runner
        self.context = context
        self.saved = saved
        self.handed = handed
        self.options = dict(options or {})
        # a graph's own runner (not a subclass with a `run` of its own, an entrypoint's)
        kind = type(runner)
        own = kind.run is TaskRunner.run and kind.arun is TaskRunner.arun
        self.direct = own and not self.options
        self._observers: tuple[Any, Any] = (None, None)

    def _observer(self, run: RunContext) -> Callable[[dict[str, Any]], None] | None:
        """The run's attempt observer (`attempt_observer`), looked up once per run config
        (a run's own dict, never changed once its tasks run), not per task."""
        config, observer = self._observers
        if config is not run.config:
            observer = attempt_observer(run)
            self._observers = (run.config, observer)  # one tuple: threads see either pair
        return observer  # type: ignore[no-any-return]

    def _run_of(self, request: TaskRequest, effect: EffectContext | None) -> RunContext:
        """The run context of ``request``'s task: the step's, with the push index and the
        performing host's nested effects (for the task's @task calls) unless the run has
        its own."""
        run = self.context()
        if request.push is not None:
            run.push = request.push
        if request.failed is not None:
            run.node_error = request.failed
            if self.handed is not None:
                self.handed(request.activation_id, request.failed)
        if request.timeout is not None:
            run.timeout = request.timeout
        if run.nested is None and effect is not None:
            run.nested = effect.nested
        return run

    def handler(self) -> SplitHandler:
        """The async host's handler: a task whose node is a plain function is performed on a
        worker thread (`perform_blocking`), any other on the loop (`aperform`)."""
        return SplitHandler(self.perform_blocking, self.aperform, self.blocks)

    def blocks(self, request: TaskRequest) -> bool:
        return self.runner.blocks(request.node)

    def perform_blocking(
        self, request: TaskRequest, effect: EffectContext | None = None
    ) -> TaskOutcome:
        """`perform` for an async run, on a worker thread (a node's limits apply as in any
        async run)."""
        return self.perform(request, effect, in_loop=True)

    def perform(
        self, request: TaskRequest, effect: EffectContext | None = None, *, in_loop: bool = False
    ) -> TaskOutcome:
        """Run the task on this thread (the sync host's handler), in a context of its own."""
        try:
            return copy_context().run(drive, self._perform(request, effect, in_loop, True))
        except Exception as e:
            return _failed_setup(e)

    async def aperform(
        self, request: TaskRequest, effect: EffectContext | None = None
    ) -> TaskOutcome:
        """Run the task on the running event loop (the asyncio host's handler)."""
        try:
            return await adrive(self._perform(request, effect, True, False))
        except Exception as e:
            return _failed_setup(e)

    def _perform(
        self, request: TaskRequest, effect: EffectContext | None, in_loop: bool, scoped: bool
    ) -> Twin[TaskOutcome]:
        """`perform` and `aperform`'s core (``in_loop``, ``scoped``: the runner's, see
        `TaskRunner._node_task`): the saved outcome, or the task's run, told to the run's
        attempt observer."""
        if self.saved is not None and (outcome := self.saved(request)) is not None:
            return outcome
        runner = self.runner
        run = self._run_of(request, effect)
        observer = self._observer(run)
        started = time.time() if observer is not None else 0.0
        node = runner.spec.nodes.get(request.node) if self.direct else None
        try:
            # what the runner is told of the task: a `TaskCall`'s fields past the node's name
            # (spelled out in both calls: no tuple of them made and unpacked per task)
            if node is not None:
                # the runner's core itself, without `run`'s frames nor its `TaskCall`: a
                # subgraph run inside a node pays each frame between the host and the
                # user's function once per nesting level
                outcome = yield from runner._node_task(
                    node,
                    request.values,
                    request.arg,
                    request.resume,
                    run,
                    request.activation_id,
                    request.attempt,
                    request.memo,
                    in_loop,
                    scoped,
                )
            else:
                call = TaskCall(
                    request.node,
                    request.values,
                    request.arg,
                    request.resume,
                    run,
                    request.activation_id,
                    request.attempt,
                    request.memo,
                )
                outcome = yield Block(self._run, self._arun, (call,))
                assert isinstance(outcome, TaskOutcome)
        except asyncio.CancelledError as cancelled:
            # only the host on the loop cancels an attempt
            yield picked(_nothing, self._cancelled, request, run, observer, started, cancelled)
            raise
        if observer is not None:
            report_attempt(observer, run, request, started, outcome)
        return outcome

    def _run(self, call: TaskCall) -> TaskOutcome:
        return self.runner.run(call, **self.options)

    async def _arun(self, call: TaskCall) -> TaskOutcome:
        result = self.runner.arun(call, **self.options)
        outcome = await result if inspect.isawaitable(result) else result
        return outcome  # type: ignore[no-any-return]

    def _cancelled(
        self,
        request: TaskRequest,
        run: RunContext,
        observer: Callable[[dict[str, Any]], None] | None,
        started: float,
        cancelled: asyncio.CancelledError,
    ) -> None:
        """The host stopped the attempt at the task's timeout (its NodeTimeoutError) or at
        the step's: the observers hear of its end before any retry wait."""
        attempt = run.timed_attempt
        if observer is None and attempt is None:
            return
        stop = deadline_stop()
        if stop is None:
            if attempt is not None:
                attempt.finish(cancelled)
            return
        node = self.runner.spec.nodes.get(request.node)
        limits = request.timeout or (node.timeout if node is not None else None)
        if limits is not None:
            timed = self.runner.timed_out(request.node, stop.elapsed, stop.kind, request.timeout)
        else:  # the step's timeout (LangGraph's: a TimeoutError of the run)
            late = TimeoutError(f"the step's timeout passed after {stop.elapsed:.3f}s")
            timed = TaskOutcome(error=late)
        if attempt is not None:
            attempt.finish(timed.error)
        if observer is not None:
            report_attempt(observer, run, request, started, timed)


def _failed_setup(error: Exception) -> TaskOutcome:
    """The outcome of a task whose setup raised (before the node's own ``try``: its config,
    its run context; a `RecursionError` when the stack reaches the limit there): the task's
    error, so the run raises it with its own type as LangGraph does. Left to the host, it
    would come back as a failed effect holding only a type name and a message (`TaskError`)."""
    return TaskOutcome(error=error)


def _nothing(*args: Any) -> None:
    return None
