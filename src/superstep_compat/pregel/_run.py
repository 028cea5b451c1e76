"""One invocation of a compiled façade graph: load the thread, apply the input, drive the
engine with the host, and turn committed supersteps into LangGraph's steps, stream events and
checkpoints (written by `_checkpointing.Checkpointing`).

A LangGraph step is two engine supersteps: one that activates the step's tasks (each asks
for one effect: run the task), and one that delivers the task results and commits their
writes atomically. This module schedules nothing itself: which node runs when is the
engine's decision; here we only observe, record and stop at breakpoints.

A step with a task still waiting on an interrupt has not finished, whatever its other tasks
did: no new checkpoint, the same step number, and the interrupts stay reported until every
one is answered (LangGraph's rule).
"""

from __future__ import annotations

import dataclasses
import os
import random
import threading
from collections.abc import AsyncIterator, Generator, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from pydantic import BaseModel

from superstep_compat._internal._constants import (
    CONFIG_KEY_RUNTIME,
    NS_END,
    NS_SEP,
    ROOT_KEY,
    START,
)
from superstep_compat._internal._constants import PENDING_INTERRUPTS as PENDING_KEY
from superstep_compat.errors import (
    EmptyInputError,
    ErrorCode,
    GraphInterrupt,
    GraphRecursionError,
    create_error_message,
)
from superstep_compat.pregel._checkpoint_tasks import (
    new_checkpoint_id,
    node_of,
    pending_activations,
    pending_tasks,
    push_indexes,
    task_id_for,
    task_records,
)
from superstep_compat.pregel._checkpointing import Checkpointing
from superstep_compat.pregel._lgcheckpoint import (
    RESUME,
    START_CHANNEL,
    build_checkpoint,
    get_tuple,
    load_record,
    pending_writes,
    put_task_writes,
)
from superstep_compat.pregel._lgrestore import NO_ANSWER, rebuild, resume_answers
from superstep_compat.pregel._node import outcome_of
from superstep_compat.pregel._record import CheckpointRecord, config_of, step_in_progress
from superstep_compat.pregel._replay import ReplayState
from superstep_compat.pregel._task_context import (
    CHILD_KEY,
    RUN_AGAIN,
    ChildLink,
    RunContext,
    TaskOutcome,
    _now,
    task_uuid,
)
from superstep_compat.types import Command, Interrupt
from superstep_core.host import AsyncHost, Clock, EffectLedger, Host, NestedEffects, WallClock
from superstep_core.node import Activated, EffectCompleted, External
from superstep_core.runtime import Execution, StepOutcome

if TYPE_CHECKING:
    from superstep_compat.pregel._compile import CompiledStateGraph

__all__ = [
    "CLOCK_KEY",
    "INPUT_EVENT",
    "LEDGER_KEY",
    "RANDOM_KEY",
    "GraphRun",
    "new_checkpoint_id",
    "pending_tasks",
]

INPUT_EVENT = "__input__"
CLOCK_KEY = "__superstep_clock"
"""Configurable key of the run's clock (a `superstep_core.host.Clock` reading seconds since the
epoch; `WallClock` by default): retry backoff, timeouts and timestamps all read it, so a test
gives a `VirtualClock` and never waits. Subgraphs inherit it with the config."""
RANDOM_KEY = "__superstep_random"
"""Configurable key of the run's `random.Random` (retry jitter); a seeded one in tests."""
LEDGER_KEY = "__superstep_ledger"
"""Configurable key of an `EffectLedger` for the run's host: every task performed as an
effect is recorded in it, and a task whose effect id it already holds is not run again (its
recorded outcome stands in). Effect ids derive from the thread and the activation, so a run
repeated on the same input replays from the ledger."""
DEFAULT_RECURSION_LIMIT = int(os.environ.get("LANGGRAPH_DEFAULT_RECURSION_LIMIT", "10007"))
DURABILITY_KEY = "__pregel_durability"

Event = tuple[tuple[str, ...], str, Any]
"""(namespace, stream mode, data)."""


class GraphRun(Checkpointing):
    """Drives one ``invoke``/``stream`` call. Iterate `events()` (or `aevents()`)."""

    def __init__(
        self,
        graph: CompiledStateGraph[Any, Any, Any, Any],
        input: Any,
        config: Mapping[str, Any],
        *,
        modes: Sequence[str],
        context: Any = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        subgraphs: bool = False,
        durability: str | None = None,
    ) -> None:
        self.graph = graph
        self.input = input
        self.config = dict(config)
        configurable = self.config.get("configurable") or {}
        self.link: ChildLink | None = configurable.get(CHILD_KEY)
        self.subgraphs = subgraphs or (self.link is not None and self.link.subgraphs)
        self.modes = frozenset(modes) | (self.link.modes if self.link is not None else frozenset())
        # As LangGraph's Runtime.merge: a graph run inside a task (a tool calling an agent)
        # takes the task's context and store unless it is given its own.
        parent = configurable.get(CONFIG_KEY_RUNTIME)
        own = coerce_context(graph.spec.context_schema, context)
        self.context = own or (parent.context if parent is not None else None)
        self.store = graph.store or (parent.store if parent is not None else None)
        self.before = _names(interrupt_before, graph.interrupt_before_nodes)
        self.after = _names(interrupt_after, graph.interrupt_after_nodes)
        self.thread_id: str | None = configurable.get("thread_id")
        self.ns: str = configurable.get("checkpoint_ns", "") or ""
        if self.link is not None and (count := next(self.link.calls)):
            self.ns = f"{self.ns}{NS_SEP}{count}"  # a further run of a subgraph in one task
            self.config["configurable"] = {**configurable, "checkpoint_ns": self.ns}
        checkpoint_map: dict[str, str] = dict(configurable.get("checkpoint_map") or {})
        if self.link is None and self.ns:
            # A root graph given a subgraph's checkpoint config (a snapshot's) runs from its
            # own checkpoint of then (``checkpoint_map[""]``; none there: its latest).
            self.ns = ""
            own = {k: v for k, v in configurable.items() if k != "checkpoint_id"}
            if checkpoint_map.get(""):
                own["checkpoint_id"] = checkpoint_map[""]
            self.config["configurable"] = {**own, "checkpoint_ns": ""}
        # A ``checkpointer=True`` subgraph keeps one history per thread: it runs (its
        # checkpoints, tasks and stream events) under its namespace without the task ids,
        # keeping the numbers of further runs in one task (LangGraph's own checkpoint config).
        self.replay: ReplayState | None = self.link.replay if self.link is not None else None
        if self.link is not None and graph.checkpointer is True:
            self.ns = NS_SEP.join(part.split(NS_END)[0] for part in self.ns.split(NS_SEP))
            # LangGraph runs it under that namespace: its stream events and its tasks too
            self.config["configurable"] = {**self.config["configurable"], "checkpoint_ns": self.ns}
        self.task_ns = self.ns
        if self.link is not None and not self.link.checkpoint_ns:
            self.link.checkpoint_ns = self.ns
        # A subgraph's run addressed by the checkpoint map (time travel to one of its
        # checkpoints) starts from that checkpoint; its checkpoints name their ancestors'.
        self.addressed: str | None = None
        self.parents: dict[str, str] = {}
        if self.link is not None:
            self.addressed = checkpoint_map.get(self.ns)
            self.parents = {k: v for k, v in checkpoint_map.items() if k != self.ns}
        self.saver: BaseCheckpointSaver[Any] | None = graph.saver_for(self.config)
        if self.saver is None and self.link is not None and graph.checkpointer in (None, True):
            self.saver = self.link.saver  # a subgraph keeps its checkpoints in the parent's saver
        if self.saver is not None and self.thread_id is None:
            raise ValueError(
                "Checkpointer requires one or more of the following 'configurable' keys: "
                "thread_id, checkpoint_ns, checkpoint_id"
            )
        chosen = durability or configurable.get(DURABILITY_KEY)
        self.durable = chosen != "exit"
        if chosen is not None:  # LangGraph's subgraphs inherit it through the config
            self.config["configurable"] = {**self.config["configurable"], DURABILITY_KEY: chosen}
        self.clock: Clock = configurable.get(CLOCK_KEY) or WallClock()
        self.rng: random.Random = configurable.get(RANDOM_KEY) or random.Random()
        self.ledger: EffectLedger | None = configurable.get(LEDGER_KEY)
        self.nested: NestedEffects | None = None  # the host's, once the run has one
        self.step_writes = self.durable
        limit = self.config.get("recursion_limit", DEFAULT_RECURSION_LIMIT)
        if limit < 1:
            raise ValueError("recursion_limit must be at least 1")
        self.limit: int = limit
        self.pending: list[Event] = []
        self._pending_lock = threading.Lock()
        self.interrupts: list[Interrupt[Any]] = []
        self._committed: Mapping[str, Any] | None = None
        self._last_values: dict[str, Any] | None = None
        # Whether the run showed the state at least once (a ``values`` chunk, streamed or
        # not): LangGraph's ``invoke`` returns None for a run that never did.
        self.values_shown = False
        self.record: CheckpointRecord | None = None
        self.last_saved: CheckpointRecord | None = None
        self._saved_versions: dict[str, Any] | None = None
        self.step = -2  # a new thread's input checkpoint is step -1
        self.start_step = -1
        self.async_mode = False
        # Outcomes of tasks that ran inline in their node's reducer (see `_node.task_node`),
        # taken by the observer of the superstep they ran in.
        self.inline_results: list[tuple[str, TaskOutcome]] = []
        self.failed_results: list[tuple[str, TaskOutcome]] = []
        # Continuing a step that did not finish: the outcomes its finished tasks saved (by
        # activation id), the updates of those finished earlier to announce again, and
        # whether activations of the step still wait on interrupts.
        self.saved: dict[str, TaskOutcome] | None = None
        self._cached: list[tuple[str, Any]] = []
        self._held = False
        self._command_input = False
        # The run stopped before the graph finished (an interrupt or a breakpoint): a
        # subgraph's run then makes its parent's task wait (`GraphInterrupt`).
        self.stopped = False

    # --- stream plumbing -----------------------------------------------------------------

    def _emit_transient(self, mode: str, data: Any, ns: tuple[str, ...] = ()) -> None:
        with self._pending_lock:
            self.pending.append((ns, mode, data))

    def _drain(self) -> list[Event]:
        with self._pending_lock:
            out, self.pending = self.pending, []
        return out

    # --- setting up ----------------------------------------------------------------------

    def _run_context(self) -> RunContext:
        return RunContext(
            config=self.config,
            context=self.context,
            store=self.store,
            step=self.step + 1,
            stop=self.stop,
            emit=self._emit_transient,
            stream_modes=self.modes,
            checkpoint_ns=self.task_ns,
            saver=self.saver,
            subgraphs=self.subgraphs,
            cache=self.graph.cache,
            checkpoint_id=None if self.record is None else self.record.checkpoint_id,
            clock=self.clock,
            rng=self.rng,
            replay=self.replay,
            nested=self.nested,
            task_ids={}
            if self.record is None
            else {t.key: t.id for t in self.record.tasks if t.key},
        )

    def _prepare(self) -> tuple[Execution, list[Event]]:
        graph = self.graph
        events: list[Event] = []
        requested_id = (self.config.get("configurable") or {}).get("checkpoint_id")
        requested_id = requested_id or self.addressed
        record = None
        if self.saver is not None and self.thread_id is not None:
            if self.replay is not None and requested_id is None:
                record = self.replay.load(self.saver, self.thread_id, self.ns)
            else:
                record = load_record(self.saver, self.thread_id, self.ns, requested_id)
        if self.addressed is not None and record is not None:
            self.input = None  # it goes on from its checkpoint, whatever its parent passes
        if (
            self.link is None
            and record is not None
            and requested_id is not None
            and not (isinstance(self.input, Command) and self.input.resume is not None)
        ):
            # Time travel: the subgraphs start from their checkpoints before the replay
            # point (a fork's: before the checkpoint it was forked from).
            point = record.checkpoint_id
            if record.source in ("update", "fork") and record.parent_id is not None:
                point = record.parent_id
            self.replay = ReplayState(point)
        execution_id = self.thread_id or "run"
        if (
            record is not None
            and record.engine is not None
            and self.input is None
            and requested_id is not None
            and step_in_progress(record)
            and not self._is_latest(record)
        ):
            # Time travel to a step that went on after the checkpoint (interrupted, or
            # partly finished): LangGraph runs its tasks afresh, without the answers and
            # writes saved since, so the state is the checkpoint's own fields.
            record.engine = None
            record.pending = []
        rebuilt = record is not None and record.engine is None
        if record is not None and rebuilt:
            rebuild(graph, record, record.pending)  # a checkpoint LangGraph wrote
        if record is not None and record.engine is not None:
            ex = Execution.restore(graph.engine, record.engine, record_trace=False)
            self.step = record.step
            self.record = self.last_saved = record
            if record.checkpoint is not None:
                self._saved_versions = dict(record.checkpoint["channel_versions"])
        else:
            ex = Execution(graph.engine, execution_id, record_trace=False)
        inp = self.input
        if (
            self.link is not None
            and self.link.resume
            and record is not None
            and (ex.interrupts or ex.queue)
        ):
            # the parent's answer to our interrupt (our checkpoint may have been edited
            # since: then the step's tasks run afresh and the first to ask takes it)
            inp = Command(resume=self.link.resume[-1])
        elif (
            self.link is not None
            and self.link.resuming
            and record is not None
            and (ex.queue or ex.interrupts)
        ):
            inp = None  # the parent's task runs again: go on from where we stopped
        continuing = record is not None and (inp is None or isinstance(inp, Command))
        forked: list[Event] | None = None
        if rebuilt and record is not None and requested_id is None and continuing:
            answer = inp.resume if isinstance(inp, Command) and inp.resume is not None else None
            self._answer_rebuilt(ex, record, NO_ANSWER if answer is None else answer)
        if isinstance(inp, Command) and inp.resume is not None:
            if not rebuilt:
                self._resume(ex, inp.resume)
                _run_again(ex)
            if inp.update is not None or inp.goto:
                ex.send(External(INPUT_EVENT, Command(update=inp.update, goto=inp.goto)))
        elif isinstance(inp, Command):
            ex.send(External(INPUT_EVENT, inp))
            self._command_input = record is not None
        elif inp is None:
            if record is None:
                raise EmptyInputError("Received no input for __start__")
            if requested_id is None and not rebuilt:
                self._saved_answers(ex, record)
                _run_again(ex)
            latest = (
                get_tuple(self.saver, config_of(record.thread_id, self.ns, None))
                if self.saver
                else None
            )
            replaying = (
                latest is not None
                and latest.config["configurable"]["checkpoint_id"] != record.checkpoint_id
            )
            # An input checkpoint holds its input in ``__start__``, not yet in the engine
            # (saved before the input was sent): continuing from it sends the input.
            start = _unsent_input(ex, record)
            if requested_id is not None and replaying and (record.next or ex.queue):
                # the fork's tasks are the checkpoint's (an input checkpoint's START has no
                # activation yet: it is keyed by name)
                pending = pending_activations(ex, graph.node_order)
                same = tuple(name for name, _ in pending) == record.next
                forked = self._checkpoint(
                    ex,
                    "fork",
                    next_=record.next,
                    keys=[key for _, key in pending] if same else None,
                    values=record.values,
                    **({} if start is _NO_INPUT else {"start": start}),
                )
            if start is not _NO_INPUT:
                ex.send(External(INPUT_EVENT, start))
        else:
            if record is not None:
                ex.abandon_pending()  # new input: LangGraph drops the tasks a run left
            events.extend(
                self._checkpoint(ex, "input", next_=(START,), values=self._values(ex), start=inp)
            )
            ex.send(External(INPUT_EVENT, inp))
        # LangGraph counts a continued thread's budget from the step after its checkpoint.
        self.start_step = self.step + 1 if continuing and forked is None else self.step
        if continuing and record is not None:
            events = self._continue(ex, record, forked)
            self.values_shown = not self._command_input  # it shows the state it starts from
        return ex, events

    def _is_latest(self, record: CheckpointRecord) -> bool:
        """Whether ``record`` is the newest checkpoint of its thread and namespace."""
        if self.saver is None:
            return True
        latest = get_tuple(self.saver, config_of(record.thread_id, record.checkpoint_ns, None))
        return latest is None or (
            latest.config["configurable"]["checkpoint_id"] == record.checkpoint_id
        )

    @property
    def stop(self) -> int:
        return self.start_step + self.limit + 1

    def _resume(self, ex: Execution, value: Any) -> None:
        suspended = [(aid, intr) for aid, intr in ex.interrupts for intr in _as_list(intr)]
        if not suspended:
            # LangGraph keeps an answer given when no interrupt waits for the first one
            # the step raises (its null-task ``__resume__``): the first task due takes it.
            due = [aid for aid, ev in ex.queue if isinstance(ev, Activated)]
            inst = ex.instances.get(due[0]) if due else None
            if inst is not None and node_of(inst.id) != START:
                inst.memory["resume"] = [*inst.memory.get("resume", ()), value]
            return
        if (
            isinstance(value, Mapping)
            and value
            and all(any(getattr(i, "id", None) == k for _, i in suspended) for k in value)
        ):
            by_activation: dict[str, list[Any]] = {}
            for aid, intr in suspended:
                if intr.id in value:
                    by_activation.setdefault(aid, []).append(value[intr.id])
            for aid, answers in by_activation.items():
                self._resume_one(ex, aid, answers[0])
            return
        activations = {aid for aid, _ in suspended}
        if len(activations) > 1 or _raised_several(ex, suspended[0][0]):
            raise RuntimeError(
                "When there are multiple pending interrupts, you must specify the interrupt id "
                "when resuming. Docs: https://docs.langchain.com/oss/python/langgraph/"
                "interrupts#handling-multiple-interrupts."
            )
        self._resume_one(ex, next(iter(activations)), value)

    def _answer_rebuilt(self, ex: Execution, record: CheckpointRecord, answer: Any) -> None:
        """Give the interrupted tasks of a thread rebuilt from LangGraph's checkpoint their
        answers (saved first, as LangGraph's ``__resume__`` writes)."""
        answers = resume_answers(ex, record, record.pending, answer)
        if self.saver is None or answer is NO_ANSWER:
            return
        for task_id, given in answers.items():
            put_task_writes(
                self.saver,
                record.thread_id,
                record.checkpoint_ns,
                record.checkpoint_id,
                task_id,
                [(RESUME, given)],
            )

    def _resume_one(self, ex: Execution, activation_id: str, value: Any) -> None:
        """Answer ``activation_id``'s interrupt, the answer saved first (LangGraph's
        ``__resume__`` write: the task's answers so far): a run that dies before the answered
        task finishes continues with it (`_saved_answers`) instead of asking again."""
        record = self.record
        if self.saver is not None and record is not None:
            inst = ex.instances.get(activation_id)
            given = list(inst.memory.get("resume", ())) if inst is not None else []
            task = next((t for t in record.tasks if t.key == activation_id), None)
            task_id = (
                task.id if task is not None else task_id_for(record.checkpoint_id, activation_id)
            )
            put_task_writes(
                self.saver,
                record.thread_id,
                record.checkpoint_ns,
                record.checkpoint_id,
                task_id,
                [(RESUME, [*given, value])],
            )
        ex.resume(value, activation_id)

    def _saved_answers(self, ex: Execution, record: CheckpointRecord) -> None:
        """Apply the answers given to ``record``'s interrupts by a run that then died (or
        failed) before the answered task finished (see `_resume_one`)."""
        if self.saver is None or not ex.interrupts:
            return
        waiting = {aid for aid, _ in ex.interrupts}
        by_id = {t.id: t.key for t in record.tasks if t.key}
        by_id.update((task_id_for(record.checkpoint_id, aid), aid) for aid in waiting)
        writes = pending_writes(
            self.saver, record.thread_id, record.checkpoint_ns, record.checkpoint_id
        )
        for task_id, channel, answers in writes:
            aid = by_id.get(task_id)
            if channel != RESUME or aid is None or not isinstance(answers, list) or not answers:
                continue
            inst = ex.instances.get(aid)
            given = len(answers) - 1
            if aid in waiting and inst is not None and len(inst.memory.get("resume", ())) == given:
                ex.resume(answers[-1], aid)

    # --- the loop --------------------------------------------------------------------------

    def events(self) -> Iterator[Event]:
        """Run to the end (or a breakpoint), yielding (namespace, mode, data) events. A
        subgraph's run also forwards them to its parent's stream, and raises
        `GraphInterrupt` when it stops on an interrupt, so the parent's task suspends.

        One generator drives the host directly (no wrapper generators): a subgraph run
        inline inside a node pays each frame here once per nesting level."""
        from superstep_compat.pregel import _node

        link = self.link
        forwarding = link is not None and link.emit is not None and link.subgraphs
        forwarded = self._forwarded if forwarding else _as_is
        ex, events = self._prepare()
        yield from forwarded(events)
        host = Host(max_workers=8, clock=self.clock, rng=self.rng, ledger=self.ledger)
        self.nested = host.nested
        completed = False
        try:
            token = _node.current_run_context.set(self)
            try:
                for outcome in host.iterate(ex):
                    _node.current_run_context.set(self)
                    yield from forwarded(self._drain())
                    stop = yield from forwarded(self._after_superstep(ex, outcome))
                    if stop:
                        break
            finally:
                _reset(_node.current_run_context, token)
            yield from forwarded(self._drain())
            if ex.failure is not None:
                yield from forwarded(self._task_events(self._failed_results(ex)))
                self._raise_failure(ex)
            yield from forwarded(self._finish(ex))
            completed = True
        finally:
            host.close()
            if self._saves_at_exit(completed):
                self._save_final()
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

    async def aevents(self) -> AsyncIterator[Event]:
        """`events` on asyncio: coroutine tasks are awaited on the running loop."""
        async for event in self._aevents():
            self._forward(event)
            yield event
        if self.link is not None and (self.interrupts or self.stopped):
            raise GraphInterrupt(tuple(self.interrupts))

    def _forward(self, event: Event) -> None:
        link = self.link
        if link is None or link.emit is None or not link.subgraphs:
            return
        ns, mode, data = event
        if mode in link.modes:
            link.emit(mode, data, ns or tuple(self.task_ns.split(NS_SEP)))  # type: ignore[call-arg]

    async def _aevents(self) -> AsyncIterator[Event]:
        ex, events = self._prepare()
        for e in events:
            yield e
        from superstep_compat.pregel import _node

        host = AsyncHost(clock=self.clock, rng=self.rng, ledger=self.ledger)
        self.nested = host.nested
        self.async_mode = True
        token = _node.current_run_context.set(self)
        completed = False
        try:
            async for outcome in host.iterate(ex):
                _node.current_run_context.set(self)
                for e in self._drain():
                    yield e
                gen = self._after_superstep(ex, outcome)
                stop = False
                try:
                    while True:
                        yield next(gen)
                except StopIteration as done:
                    stop = bool(done.value)
                if stop:
                    break
            for e in self._drain():
                yield e
            if ex.failure is not None:
                for e in self._task_events(self._failed_results(ex)):
                    yield e
                self._raise_failure(ex)
            for e in self._finish(ex):
                yield e
            completed = True
        finally:
            _reset(_node.current_run_context, token)
            if self._saves_at_exit(completed):
                self._save_final()

    def task_context(self) -> RunContext:
        """The run context handed to the tasks of the superstep being built."""
        return self._run_context()

    def _after_superstep(self, ex: Execution, outcome: StepOutcome) -> Generator[Event, None, bool]:
        """Observe one committed superstep; returns True (as the generator's value) to stop."""
        if not outcome.committed:
            if ex.failure is None:  # held for a retry: a failed attempt is no task result
                self._take_inline()
            return False  # a failed superstep: `_failed_results` reports its tasks
        results = self._take_inline()
        for aid, ev in outcome.delivered:
            if isinstance(ev, EffectCompleted) and isinstance(ev.result, TaskOutcome):
                results.append((aid, ev.result))
        if not results:
            return False
        if self._command_input:
            self._command_input = False
            if all(node_of(aid) == START for aid, _ in results):
                yield from self._apply_command(ex)
                return False
        yield from self._task_events(results)
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
        if outcome.written:
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
            )
        if self.after or self.before:
            next_ = self._next(ex) if next_ is None else next_
            names_ran = {node_of(aid) for aid, _ in completed}
            if (_hit(names_ran, self.after) and next_) or _hit(set(next_), self.before):
                if "updates" in modes:
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
                    waiting = tuple(_as_list(value))
                    self.interrupts.extend(waiting)
                    yield from self._interrupt_events(waiting)
        finished = [(aid, r) for aid, r in results if not r.waiting and r.error is None]
        self._record_interrupts(ex, interrupted, finished)
        record = self.record
        wrote = any(r.writes for _, r in finished) or (
            self._held
            and record is not None
            and any(t.result for t in record.tasks if t.id in record.finished)
        )
        if wrote:
            self._committed = ex.values
            self._last_values = None
            self.values_shown = True
            if "values" in self.modes:
                yield ((), "values", self.values_chunk)

    def _interrupt_events(self, interrupts: tuple[Interrupt[Any], ...]) -> Iterator[Event]:
        if "updates" in self.modes:
            yield ((), "updates", {"__interrupt__": interrupts})
        if "values" in self.modes and self.last_values is not None and interrupts:
            # a task stopped without values (its subgraph's breakpoint) shows no chunk here
            chunk = {"__interrupt__": interrupts}  # a root state's value is not shown
            yield ((), "values", chunk if self.is_root else {**self.last_values, **chunk})

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
        pending = pending_activations(ex, self.graph.node_order)
        record.values = dict(self.last_values or {})
        record.next = tuple(name for name, _ in pending)
        known = {t.key: t for t in record.tasks if t.key}  # keep what they raised or did
        fresh = task_records(
            record.checkpoint_id,
            [p for p in pending if p[1] not in known],
            step=record.step,
            ns=record.checkpoint_ns,
            triggers_of=self._triggers_of,
            pushes=push_indexes(ex, pending),
        )
        record.tasks = [known[key] if key in known else fresh.pop(0) for _, key in pending]
        record.engine = ex.snapshot()
        record.triggers = self._pending_triggers(ex, pending)
        build_checkpoint(self.saver, record, record.checkpoint, triggers_of=self._triggers_of)
        if self.durable or record is self.last_saved:
            self._save(record)
        yield from self._checkpoint_events(record, record.parent_id)

    def _task_events(self, results: Sequence[tuple[str, TaskOutcome]]) -> Iterator[Event]:
        """Each task's chunks as LangGraph emits them when it finishes: its update (then its
        result), or its interrupt; tasks whose writes were saved first, as cached."""
        modes = self.modes
        updates = "updates" in modes
        if self._cached:
            cached, self._cached = self._cached, []
            if updates:
                for name, update in cached:
                    yield ((), "updates", {name: update, "__metadata__": {"cached": True}})
        ordered = results
        if self.saved is not None:  # the outcomes handed back come first, as in LangGraph
            ordered = sorted(results, key=lambda item: not item[1].cached)
        ctx = self._run_context() if "tasks" in modes or "debug" in modes else None
        for aid, r in ordered:
            name = node_of(aid)
            if r.waiting:
                yield from self._interrupt_events(tuple(r.interrupts))
            elif r.error is None and updates and name != START:
                chunk = {name: r.update}
                if r.cached:
                    chunk["__metadata__"] = {"cached": True}
                yield ((), "updates", chunk)
            if ctx is not None and not r.cached and name != START:
                yield from self._task_result(ctx, aid, r)

    def _task_result(self, ctx: RunContext, aid: str, r: TaskOutcome) -> Iterator[Event]:
        payload = {
            "id": task_uuid(ctx, aid),
            "name": node_of(aid),
            "error": r.error,
            "result": r.update if r.error is None and not r.interrupts else {},
            "interrupts": [
                {"value": i.value, "id": i.id, "response_schema": None} for i in r.interrupts
            ],
        }
        if r.error is None and not r.interrupts and payload["result"] is None:
            payload["result"] = {}
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

    @property
    def is_root(self) -> bool:
        """Whether the state is one value (a schema without fields: ``__root__``)."""
        return bool(self.graph.state_channels == (ROOT_KEY,))

    @property
    def values_chunk(self) -> Any:
        """What the ``values`` stream shows: the state channels, a root state's bare value."""
        values = self.last_values
        return values.get(ROOT_KEY) if self.is_root and values is not None else values

    def _finish(self, ex: Execution) -> Iterator[Event]:
        """A run that committed no step still answers with the thread's current values; one
        that continued a step still waiting on interrupts reports them again."""
        if self._held and not self.interrupts and ex.interrupts:
            yield from self._task_events(())
            yield from self._interrupted(ex, ())
        if self._committed is None and self._last_values is None:
            self._committed = ex.values

    def _take_inline(self) -> list[tuple[str, TaskOutcome]]:
        taken, self.inline_results = self.inline_results, []
        return taken

    def _failed_results(self, ex: Execution) -> list[tuple[str, TaskOutcome]]:
        """The outcomes of the superstep that failed (still queued: it did not commit)."""
        self.failed_results = self._take_inline()
        runner = self.graph.runner
        for aid, ev in ex.queue:
            if isinstance(ev, EffectCompleted):
                outcome = outcome_of(runner, node_of(aid), ev)  # a timeout: NodeTimeoutError
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


def coerce_context(schema: Any, context: Any) -> Any:
    """The run's context as LangGraph builds it: a dict given for a dataclass or pydantic
    ``context_schema`` becomes an instance of it; anything else is kept as given."""
    if not isinstance(context, dict) or not isinstance(schema, type):
        return context
    if dataclasses.is_dataclass(schema) or issubclass(schema, BaseModel):
        return schema(**context)
    return context


def _raised_several(ex: Execution, activation_id: str) -> bool:
    """Whether the suspended activation raised more than one interrupt in its last run (the
    functional API's parallel tasks surface one at a time; LangGraph still wants ids)."""
    inst = ex.instances.get(activation_id)
    memo = inst.memory.get("memo") if inst is not None else None
    return isinstance(memo, dict) and int(memo.get(PENDING_KEY, 0)) > 1


def _hit(names: set[str] | frozenset[str], breakpoints: frozenset[str]) -> bool:
    """Whether any of ``names`` is a breakpoint (``"*"``: every node but ``__start__``,
    which LangGraph hides from breakpoints)."""
    if "*" in breakpoints:
        return bool(names - {START})
    return bool(names & breakpoints)


def _reset(var: Any, token: Any) -> None:
    # An async generator may be finalised in another context (e.g. by astream_events):
    # the token then cannot be used, and the context it belonged to is gone anyway.
    try:
        var.reset(token)
    except ValueError:
        var.set(None)


def _names(given: Sequence[str] | str | None, default: frozenset[str]) -> frozenset[str]:
    if given is None:
        return default
    if given == "*":
        return frozenset({"*"})
    return frozenset(given)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, tuple | list) else [value]


def _as_is(events: Iterable[Event]) -> Generator[Event, None, Any]:
    return (yield from events)


_NO_INPUT = object()


def _unsent_input(ex: Execution, record: CheckpointRecord) -> Any:
    """The input of an input checkpoint (``next`` is ``__start__`` alone) that its engine
    state has not received yet; `_NO_INPUT` for any other checkpoint."""
    if record.next != (START,) or START_CHANNEL not in record.triggers:
        return _NO_INPUT
    if any(node_of(aid) == START for aid, _ in ex.queue):
        return _NO_INPUT
    return record.triggers[START_CHANNEL]


def _run_again(ex: Execution) -> None:
    """Resume the activations that wait without an interrupt (their subgraph stopped at a
    breakpoint): continuing the thread runs them again, as LangGraph runs the task again."""
    for aid, value in ex.interrupts:
        if not _as_list(value):
            ex.resume(RUN_AGAIN, aid)
