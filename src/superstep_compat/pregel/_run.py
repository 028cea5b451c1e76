"""One invocation of a compiled façade graph: load the thread, apply the input, drive the
engine with the host, and turn committed supersteps into LangGraph's steps, stream events and
checkpoints (written by its `CheckpointRecorder`).

A LangGraph step is one engine superstep: its tasks are effects performed within it
(`superstep_core.runtime.within`), and it commits their writes atomically once every task
has ended (a sync host commits a step even after its stream was closed: `StepTracker.
values_before`). This module schedules nothing itself: which node runs when is the
engine's decision; here we only observe, record and stop at breakpoints.
`GraphRun` owns its collaborators: `place_run` finds the thread, namespace and saver it
reads and writes, a `Continuation` loads the thread and applies the input, a
`CheckpointRecorder` writes checkpoints, `RunValues` holds its view of the state and
`StepFailures` what its failed steps leave, `RunContexts` its tasks' run contexts;
`RunSteps` handles each committed superstep; this module holds the event loop.

A step with a task still waiting on an interrupt has not finished, whatever its other tasks
did: no new checkpoint, the same step number, and the interrupts stay reported until every
one is answered (LangGraph's rule).
"""

from __future__ import annotations

import asyncio
from collections.abc import (
    AsyncGenerator,
    Generator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, NoReturn

from langgraph.checkpoint.base import BaseCheckpointSaver

from superstep_compat._internal._constants import NS_END, NS_SEP
from superstep_compat.errors import GraphDrained, GraphInterrupt
from superstep_compat.pregel._checkpoint_recorder import CheckpointRecorder
from superstep_compat.pregel._checkpoint_tasks import (
    new_checkpoint_id,
    pending_tasks,
)
from superstep_compat.pregel._emitted import EmittedEvents
from superstep_compat.pregel._graph_attrs import breakpoints
from superstep_compat.pregel._live import AsyncLiveStep, advance_live
from superstep_compat.pregel._output_keys import OutputKeys
from superstep_compat.pregel._record import CheckpointRecord
from superstep_compat.pregel._resumer import Resumer
from superstep_compat.pregel._run_contexts import RunContexts
from superstep_compat.pregel._run_options import inherited, run_options
from superstep_compat.pregel._run_place import place_run
from superstep_compat.pregel._run_scope import RunKind, RunScope, names
from superstep_compat.pregel._run_setup import Continuation
from superstep_compat.pregel._run_stepper import ASK, Event, Raised, Stepper, as_is
from superstep_compat.pregel._run_steps import RunSteps
from superstep_compat.pregel._run_values import RunValues
from superstep_compat.pregel._saver_bridge import bound_here, sync_caller
from superstep_compat.pregel._start_gate import StartGate
from superstep_compat.pregel._step_failures import StepFailures
from superstep_compat.pregel._step_tasks import StepTasks
from superstep_compat.pregel._step_tracker import StepTracker
from superstep_compat.pregel._task_context import CHILD_KEY, ChildLink, TaskOutcome
from superstep_compat.pregel._task_watch import TaskWatch
from superstep_compat.pregel._work import TASK_KIND, TaskPerformer, TaskRequest
from superstep_compat.runtime import RunControl
from superstep_compat.types import Interrupt
from superstep_core.host import (
    AsyncHost,
    Clock,
    EffectLedger,
    Host,
    RandomSource,
    RunStopped,
    StepTimeoutError,
)
from superstep_core.runtime import Execution

if TYPE_CHECKING:
    from superstep_compat.pregel._compile import Pregel

__all__ = [
    "Event",
    "GraphRun",
    "new_checkpoint_id",
    "pending_tasks",
]


class GraphRun:
    """Drives one ``invoke``/``stream`` call. Iterate `events()` (or `aevents()`)."""

    def __init__(
        self,
        graph: Pregel[Any, Any, Any, Any],
        input: Any,
        config: Mapping[str, Any],
        *,
        modes: Sequence[str],
        context: Any = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        subgraphs: bool = False,
        durability: str | None = None,
        control: RunControl | None = None,
        output_keys: OutputKeys | None = None,
        kind: RunKind | None = None,
    ) -> None:
        self.graph = graph
        self.kind = kind  # what a kind of run changes (None: a plain graph's run)
        self.input = input
        # the channels its ``values``/``updates`` chunks show (`_output_keys`); None: all
        self.keys = output_keys
        self.config = dict(config)
        configurable = self.config.get("configurable") or {}
        self.link: ChildLink | None = configurable.get(CHILD_KEY)
        self.subgraphs = subgraphs or (self.link is not None and self.link.subgraphs)
        self.modes = frozenset(modes) | (self.link.modes if self.link is not None else frozenset())
        # the modes of its events it passes on to its parent's stream (`_forward`)
        self.forward_modes = self.link.modes if self.link is not None else frozenset()
        given = inherited(graph, configurable, context, control)
        self.context, self.store = given.context, given.store
        self.control: RunControl = given.control
        self._drain_stopped = False  # the host stopped it between steps (`drained`)
        self.before = names(interrupt_before, breakpoints(graph.interrupt_before_nodes))
        self.after = names(interrupt_after, breakpoints(graph.interrupt_after_nodes))
        place = place_run(graph, self.config, self.link)
        self.thread_id: str | None = place.thread_id
        self.ns: str = place.ns
        self.task_ns = place.ns
        self.parents: dict[str, str] = place.parents
        self.saver: BaseCheckpointSaver[Any] | None = place.saver
        replay = self.link.replay if self.link is not None else None
        options = run_options(self.config, durability)
        self.durable = options.durable
        self.durability: str | None = options.durability  # for `write_behind`
        self.clock: Clock = options.clock
        self.rng: RandomSource = options.rng
        self.ledger: EffectLedger | None = options.ledger
        self.max_concurrency: int | None = options.max_concurrency
        self.limit: int = options.limit
        # what the run's tasks emit, waiting for the driver (a live run's as it arrives)
        self.emitted = EmittedEvents()
        self._emit_transient = self.emitted.emit
        self._drain = self.emitted.drain
        self.interrupts: list[Interrupt[Any]] = []
        self.values = RunValues(graph, output_keys)
        self.tracker = StepTracker()
        self.scope = RunScope(
            graph=graph,
            config=self.config,
            saver=self.saver,
            thread_id=self.thread_id,
            ns=self.ns,
            link=self.link,
            modes=self.modes,
            keys=output_keys,
            durable=self.durable,
        )
        self.recorder = CheckpointRecorder(
            scope=self.scope,
            parents=self.parents,
            first_step_order=self.tracker.first_step_order,
            interrupts=self.interrupts,
            values=self.values,
        )
        self.writer = self.recorder.writer
        self.contexts = RunContexts(
            scope=self.scope,
            recorder=self.recorder,
            tracker=self.tracker,
            context=self.context,
            store=self.store,
            emit=self._emit_transient,
            task_ns=self.task_ns,
            subgraphs=self.subgraphs,
            clock=self.clock,
            rng=self.rng,
            control=self.control,
            limit=self.limit,
        )
        self.resumer = Resumer(self.writer, durable=self.durable)
        self.failures = StepFailures(graph, self.recorder)
        self.continuation = Continuation(
            scope=self.scope,
            recorder=self.recorder,
            values=self.values,
            resumer=self.resumer,
            first_step_order=self.tracker.first_step_order,
            input=input,
            replay=replay,
            addressed=place.addressed,
            fresh_resume_starts=kind is None or kind.fresh_resume_starts,
            apply_command=lambda ex: self.steps.apply_command(ex),
            run_context=self.contexts.run_context,
            emit=self._emit_transient,
        )
        self.contexts.continuation = self.continuation
        self.tasks = StepTasks(
            scope=self.scope,
            values=self.values,
            continuation=self.continuation,
            tracker=self.tracker,
            recorder=self.recorder,
            clock=self.clock,
            root=self.link is None,
            run_context=self.contexts.run_context,
        )
        self.steps = RunSteps(
            scope=self.scope,
            recorder=self.recorder,
            values=self.values,
            continuation=self.continuation,
            tasks=self.tasks,
            failures=self.failures,
            contexts=self.contexts,
            interrupts=self.interrupts,
            before=self.before,
            after=self.after,
            limit=self.limit,
        )
        self.watch = TaskWatch(
            tracker=self.tracker,
            continuation=self.continuation,
            contexts=self.contexts,
            tasks=self.tasks,
            failures=self.failures,
            emit=self._emit_transient,
        )

    # --- the run's state, kept by its collaborators ------------------------------------------

    @property
    def step(self) -> int:
        """LangGraph's number of the run's last step (the recorder's)."""
        return self.recorder.step

    @property
    def record(self) -> CheckpointRecord | None:
        """The checkpoint the run wrote or loaded last (the recorder's)."""
        return self.recorder.record

    @property
    def live(self) -> bool:
        """Whether the run streams live (`_live`): what its tasks emit reaches the caller
        while their step runs, a task's chunks as it ends."""
        return self.contexts.live

    @live.setter
    def live(self, live: bool) -> None:
        self.contexts.live = live

    @property
    def stopped(self) -> bool:
        """Whether the run stopped before the graph finished (an interrupt, a breakpoint, a
        drain): a subgraph's run then makes its parent's task wait (`GraphInterrupt`)."""
        return self.steps.stopped

    @property
    def breakpoint(self) -> str | None:
        """The breakpoint the run stopped at, as LangGraph names the loop's status then."""
        return self.steps.breakpoint

    @property
    def drained(self) -> bool:
        """Whether the run drained: the host stopped it between steps, or a task's
        subgraph drained."""
        return self._drain_stopped or self.tasks.drained

    def _prepare(self) -> tuple[Execution, list[Event]]:
        """The execution to drive, its input applied (`Continuation.prepare`), and the
        events the run shows first."""
        prepared = self.continuation.prepare()
        self.input = self.continuation.input
        if self.kind is not None:
            self.kind.prepared(prepared[0])
        return prepared

    # --- the loop --------------------------------------------------------------------------

    def events(self) -> Iterator[Event]:
        """Run to the end (or a breakpoint), yielding (namespace, mode, data) events. A
        subgraph's run also forwards them to its parent's stream, and raises
        `GraphInterrupt` when it stops on an interrupt, so the parent's task suspends.

        The host is advanced in this frame (the shared `_loop` asks for each superstep,
        as it asks `_aevents`), never under a wrapper generator: a subgraph run inline
        inside a node pays each frame here once per nesting level."""
        link = self.link
        forwarding = link is not None and link.emit is not None and link.subgraphs
        forwarded = self._forwarded if forwarding else as_is
        with sync_caller():  # on an async saver's own loop thread: its error, as LangGraph's
            ex, events = self._prepare()
        yield from forwarded(events)
        host = Host(
            {TASK_KIND: self.performer().perform},
            max_workers=self.max_concurrency or 8,
            clock=self.clock,
            rng=self.rng,
            ledger=self.ledger,
            step_timeout=self.graph.step_timeout,
        )
        self._observe(host, ex)
        held = self._held_starts()
        if forwarding:
            # as on asyncio (`_aevents`): a subgraph whose events its parent streams passes
            # on what its tasks emit as it arrives (a step's task starts before its tasks
            # end), its steps advanced in the background
            self.live = True
        # Under durability "exit" LangGraph's sync loop, closed inside a step, saves what its
        # tasks wrote by then: a task that ends afterwards (its pool waits for it) is lost.
        closed = None if self.durable else self.tracker.close_step
        completed = False
        try:
            steps = host.iterate(ex, stop=self.control)
            # LangGraph's TimeoutError on a sync run says "Timed out"
            stepper = Stepper(self._loop(ex, ("Timed out",)))
            while True:
                if forwarding:
                    yield from forwarded(stepper.until_asked())
                else:  # (no `as_is` around it: a generator less per superstep)
                    yield from stepper.until_asked()
                if stepper.done:
                    break
                try:
                    if not self.live:
                        stepper.answer = next(steps, None)
                    else:  # the step advances in the background, its chunks streamed meanwhile
                        stepper.answer = yield from forwarded(
                            advance_live(steps, *self.emitted.live_hooks(), held, closed)
                        )
                except (RunStopped, StepTimeoutError) as stopped:
                    stepper.answer = Raised(stopped)
            completed = True
        finally:
            host.close()
            for record, outcomes_saved in self._keep_stopped(ex, completed):
                self.writer.save(record, outcomes_saved=outcomes_saved)
            self.writer.settle(raising=completed)  # what it wrote is saved before it ends
            if self._saves_at_exit(completed):
                self.writer.save_final(self.record)
            self._unlink()
        self._raise_stopped()

    # --- what the sync and async loops share ----------------------------------------------

    def _loop(self, ex: Execution, timeout: tuple[str, ...]) -> Generator[Any, Any, None]:
        """The run's loop over its host, written once for `events` and `_aevents` (each a
        driver: it sends back what this loop asks for with `ASK`, the host's next superstep
        or what the host raised): each superstep becomes the run's events, until the run
        stops, drains or the host is done; then the run's last events. A step past the
        graph's ``step_timeout`` raises `TimeoutError` (``timeout``: its args)."""
        try:
            stop = yield from self.steps.before_first_step(ex)
            while not stop:
                outcome = yield ASK  # (`asked`, inline: a generator less per superstep)
                if type(outcome) is Raised:
                    raise outcome.error
                if outcome is None:
                    break
                # the events of the superstep the host drove: what its tasks emitted, then
                # the step's own (inline, for the same reason)
                yield from self._drain()
                self.tracker.stepped()  # the step committed (or paused, or failed)
                # LangGraph hands a step's chunks on only after its checkpoint is put: a
                # consumer that stops at one of them (breaks, closes the stream) still finds
                # the step saved
                made: list[Event] = []
                try:
                    stop = self.steps.after_superstep(ex, outcome, made)
                finally:  # what the step made before it raised goes out first
                    yield from made
                self.tracker.next_step()
        except RunStopped:
            self._stopped_by_drain()
        except StepTimeoutError:
            raise TimeoutError(*timeout) from None
        yield from self._ending(ex)

    def _observe(self, host: Host | AsyncHost, ex: Execution) -> None:
        """`TaskWatch.observe`; checkpoints may go to ``host.writes`` (`write_behind`)."""
        self.watch.observe(host, ex)
        self.writer.write_behind(host.writes, self.durability)

    def _held_starts(self) -> StartGate | None:
        """A root run streaming task starts live holds each step's tasks at their start
        until its consumer has pulled them all (LangGraph's lazy stream: no node of a step
        runs before its starts are yielded and the consumer asks for more); the gate the
        driver releases, else None. A subgraph's are not held (its parent's task, not the
        caller, consumes them)."""
        if self.link is not None or not self.contexts.orders_starts:
            return None
        self.watch.holds_starts = True
        gate = self.tracker.starts
        gate.wake = self.emitted.wake
        return gate

    def _ending(self, ex: Execution) -> Iterator[Event]:
        """The last events of a run the host stopped driving; raises the run's failure."""
        yield from self._drain()
        if ex.failure is not None:
            yield from self.tasks.events(self.failures.collect(ex))
            self.failures.raise_failure(ex)
        yield from self.steps.finish(ex)

    def _keep_stopped(
        self, ex: Execution, completed: bool, cancelled: bool = False
    ) -> Iterator[tuple[CheckpointRecord, bool]]:
        """What a run stopped inside a step (not ``completed``: its stream closed, its task
        cancelled) keeps, under each durability: the writes of the step's tasks that had
        finished, as LangGraph's loop put them as each ended (under "exit": by the close);
        not of those that finished after the run was cancelled (`RunControl.request_cancel`),
        as after an asyncio cancel. `StepFailures.keep_stopped`: each driver saves the
        checkpoint it yields. ``cancelled``: an async run stopped at the step's timeout or
        cancelled by its caller, whose unfinished tasks were cancelled."""
        tracker = self.tracker
        if completed or not (tracker.ended or cancelled):
            return iter(())
        return self.failures.keep_stopped(ex, tracker.ended, tracker.values_before, cancelled)

    def _stopped_by_drain(self) -> None:
        """The host ended the run at a step boundary (`RunStopped`): the step before was
        committed and checkpointed; what is left runs when the thread is continued."""
        self.steps.stopped = True
        self._drain_stopped = True

    def _raise_stopped(self) -> None:
        """How a run that stopped early ends: `GraphDrained` for a drain (also when a task's
        subgraph drained: the task is left to run again, its subgraph continuing from its
        checkpoint), else, in a subgraph's run, `GraphInterrupt` so that the parent's task
        waits."""
        if self.drained:
            raise GraphDrained(self.control.drain_reason or "shutdown")
        if self.link is not None and (self.interrupts or self.stopped):
            raise GraphInterrupt(tuple(self.interrupts))

    def _saves_at_exit(self, completed: bool) -> bool:
        """Durability "exit": whether the run saves its last checkpoint as it ends. A
        subgraph's run does only when it failed or stopped (the parent's task is then
        continued from it), or when it keeps one history per thread (``checkpointer=True``:
        no task ids in its namespace), as LangGraph."""
        if self.durable:
            return False
        if self.link is None or not completed or self.stopped:
            return True
        return all(NS_END not in part for part in self.ns.split(NS_SEP))

    def _forwarded(self, events: Iterable[Event]) -> Generator[Event, None, Any]:
        """``events``, each also forwarded to the parent's stream; returns their return value."""
        forward = self._forward
        it = iter(events)
        while True:
            try:
                event = next(it)
            except StopIteration as done:
                return done.value
            forward(event)
            yield event

    async def aevents(self) -> AsyncGenerator[Event, None]:
        """`events` on asyncio: coroutine tasks are awaited on the running loop."""
        async with aclosing(self._aevents()) as events:  # closed with this one
            async for event in events:
                self._forward(event)
                yield event
        self._raise_stopped()

    def _forward(self, event: Event) -> None:
        link = self.link
        if link is None or link.emit is None or not link.subgraphs:
            return
        kind = self.kind
        for ns, mode, data in (event,) if kind is None else kind.forwarded(event):
            if mode in self.forward_modes:
                link.emit(mode, data, ns or tuple(self.task_ns.split(NS_SEP)))  # type: ignore[call-arg]

    async def _aevents(self) -> AsyncGenerator[Event, None]:
        if bound_here(self.writer.saver):
            # reading the thread calls the saver in place; this loop is the saver's, where
            # only its coroutines may use it: read from a worker thread, the loop free
            ex, events = await asyncio.to_thread(self._prepare)
        else:
            ex, events = self._prepare()
        for e in events:
            yield e
        host = AsyncHost(
            {TASK_KIND: self.performer().handler()},
            clock=self.clock,
            rng=self.rng,
            ledger=self.ledger,
            max_concurrency=self.max_concurrency,
            step_timeout=self.graph.step_timeout,
        )
        self._observe(host, ex)
        held = self._held_starts()
        self.watch.stops_siblings = True
        link = self.link
        if link is not None and link.emit is not None and link.subgraphs:
            # A subgraph whose events its parent streams passes on what its tasks emit
            # (its own subgraphs' events included) as it arrives, not when its step ends:
            # however deep, a subgraph's chunks reach the caller while it runs (LangGraph).
            self.live = True
        completed = cancelled = False
        try:
            steps = host.iterate(ex, stop=self.control)
            # each superstep the shared loop asks for is awaited here; LangGraph's
            # TimeoutError is a bare one on an async run
            stepper = Stepper(self._loop(ex, ()))
            while True:
                for e in stepper.until_asked():
                    yield e
                if stepper.done:
                    break
                try:
                    if self.writer.step_settles:  # durability "sync", written behind
                        await self.writer.asettle()
                    if self.live:
                        live = AsyncLiveStep(steps, self._drain, self.emitted.set_notify, held)
                        try:
                            while live.running:
                                for e in await live.events():
                                    yield e
                        finally:
                            await live.cancel()  # a no-op unless the caller stopped the stream
                        stepper.answer = live.outcome()
                    else:
                        stepper.answer = await anext(steps, None)
                except (RunStopped, StepTimeoutError) as stopped:
                    # LangGraph's async runner cancels the tasks still running at the step's
                    # timeout (a thread cannot be: a sync run's finish); their saved errors
                    # only where steps are saved as they end
                    cancelled = isinstance(stopped, StepTimeoutError) and self.durable
                    stepper.answer = Raised(stopped)
            completed = True
        except (GeneratorExit, asyncio.CancelledError):
            # the caller cancelled the run or closed its stream: so are the step's tasks
            # (their saved errors, as LangGraph's, only where steps are saved as they end)
            cancelled = self.durable
            raise
        finally:
            await self.writer.asettle(raising=completed)
            for record, outcomes_saved in self._keep_stopped(ex, completed, cancelled):
                await self.writer.asave(record, outcomes_saved=outcomes_saved)
            if self._saves_at_exit(completed):
                # on the caller's loop (LangGraph awaits ``aput`` even for a cancelled run)
                await self.writer.asave_final(self.record)
            # what the lines above handed to the background (a saver bound to this loop)
            await self.writer.asettle(raising=False)
            self._unlink()

    def _unlink(self) -> None:
        """Cut what refers back into the ended run (the continuation's operations, the
        watch's host, a kind of run that owns this one): a cycle only the collector would
        free, ~100 objects a run (BENCH.md)."""
        self.continuation.apply_command = self.continuation.run_context = _ended
        self.watch.release()
        self.kind = None  # (the run has sent its last event through it)

    def performer(self) -> TaskPerformer:
        """What performs this run's tasks (the handler of `TASK_KIND` its host registers):
        each with a run context of its step; an outcome the run already has is handed back."""
        return TaskPerformer(
            self.graph.runner,
            self.contexts.run_context,
            saved=self._saved_outcome,
            options={} if self.kind is None else self.kind.task_options(),
            handed=self.watch.failure_handed,
        )

    def _saved_outcome(self, request: TaskRequest) -> TaskOutcome | None:
        """The saved outcome of a task that finished in a step that then stopped (it is not
        run again), or None."""
        continuation = self.continuation
        if not continuation.saved:
            return None
        return continuation.take_saved(
            request.node, request.activation_id, request.values, request.arg
        )


def _ended(*args: Any) -> NoReturn:
    raise RuntimeError("the run has ended")
