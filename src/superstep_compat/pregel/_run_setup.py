"""Setting up one run of a compiled façade graph: the run context its tasks get, loading the
thread's checkpoint (or the one time travel addresses) into an `Execution`, applying the input,
and resuming interrupted activations with their answers (through the run's `Resumer`).

`RunSetup` is a part of `GraphRun` (which provides the attributes it declares).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from superstep_compat._internal._constants import START
from superstep_compat.errors import EmptyInputError
from superstep_compat.graph._writes import node_writes
from superstep_compat.pregel._checkpoint_tasks import (
    Event,
    node_of,
    pending_activations,
)
from superstep_compat.pregel._checkpointing import Checkpointing
from superstep_compat.pregel._lgcheckpoint import (
    INTERRUPT,
    START_CHANNEL,
    build_checkpoint,
    get_tuple,
    graph_versions,
    load_record,
)
from superstep_compat.pregel._lgrestore import NO_ANSWER, rebuild
from superstep_compat.pregel._record import CheckpointRecord, config_of, step_in_progress
from superstep_compat.pregel._replay import ReplayState
from superstep_compat.pregel._resumer import Resumer, as_list, run_again
from superstep_compat.pregel._start_gate import StartGate
from superstep_compat.pregel._task_context import (
    ChildLink,
    RunContext,
    TaskOutcome,
    spare_answers_of,
)
from superstep_compat.runtime import RunControl
from superstep_compat.types import Command
from superstep_compat.warnings import LangGraphDeprecatedSinceV10
from superstep_core.host import Clock, EffectLedger, NestedEffects, RandomSource
from superstep_core.node import Activated, External
from superstep_core.runtime import Execution

INPUT_EVENT = "__input__"
INPUT_WRITER = "__input__"
"""The writer of a low-level `Pregel`'s input (an edit of its input channels)."""


class RunSetup(Checkpointing):
    """The setting-up part of `GraphRun`."""

    # GraphRun's attributes (set in its __init__) that the parts of a run share
    input: Any
    link: ChildLink | None
    subgraphs: bool
    context: Any
    store: Any
    before: frozenset[str]
    after: frozenset[str]
    task_ns: str
    replay: ReplayState | None
    addressed: str | None
    clock: Clock
    rng: RandomSource
    ledger: EffectLedger | None
    nested: NestedEffects | None
    control: RunControl
    drained: bool
    limit: int
    _committed: Mapping[str, Any] | None
    _apply_command: Callable[[Execution], Iterator[Event]]  # RunSteps'
    values_shown: bool
    start_step: int
    stopped: bool
    live: bool
    _starts: StartGate
    resumer: Resumer  # answers the run's interrupts

    @property
    def _orders_starts(self) -> bool:
        """Whether tasks announce their starts to the run's `StartGate`: a live run that
        streams task starts (``tasks``/``debug``) and its tasks' results as they end."""
        return self.live and ("tasks" in self.modes or "debug" in self.modes)

    _run_template: tuple[tuple[Any, ...], RunContext] | None = None

    def _run_context(self) -> RunContext:
        """The run context of one task (a new one each time: a task sets fields of its own):
        a copy of one built when what it is built from last changed (the checkpoint and its
        tasks, the step budget, a live run's gate; before the first task: nested effects,
        replay, spare answers), with the step's number. Nothing else a run context is built
        from changes once a run's tasks run."""
        record = self.record
        tasks = None if record is None else record.tasks
        key = (self.stop, record, tasks, self.live, self.nested, self.replay, self.spare_answers)
        known = self._run_template
        if known is None or not _same(known[0], key):
            known = self._run_template = (key, self._new_run_context())
        ctx = known[1].fresh()
        ctx.step = self.step + 1
        return ctx

    def _new_run_context(self) -> RunContext:
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
            control=self.control,
            started=self._starts.started if self._orders_starts else None,
            task_ids={}
            if self.record is None
            else {t.key: t.id for t in self.record.tasks if t.key},
            spare_answers=self.spare_answers,
        )

    spare_answers: list[Any] | None = None
    """A subgraph run started afresh: the parent's answers no task took yet (see
    `RunContext.spare_answers`)."""

    fresh_resume_starts = True
    """`Command(resume=...)` on a thread with no checkpoint starts the graph (LangGraph's
    `StateGraph`); an entrypoint run refuses it instead (see `func._entrypoint_run`)."""

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
            self.record = self.writer.last_saved = record
            if record.checkpoint is not None:
                self.writer.saved_versions = dict(record.checkpoint["channel_versions"])
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
            spare = spare_answers_of(self.link)
            if spare and spare[-1] is self.link.resume[-1]:
                spare.pop()  # taken: no later subgraph run of the task takes it again
            inp = Command(resume=self.link.resume[-1])
        elif (
            self.link is not None
            and self.link.resuming
            and record is not None
            and (ex.queue or ex.interrupts)
        ):
            inp = None  # the parent's task runs again: go on from where we stopped
        elif self.link is not None and self.link.resuming and record is not None:
            # the parent's task was answered, but our checkpoint has no work left (a resume
            # at a past checkpoint of the parent, whose branch went on and finished us):
            # LangGraph's subgraph, told it resumes, takes its latest checkpoint as it is
            inp = None
        elif self.link is not None and record is None and self.link.resume:
            # a subgraph run starting afresh in a task that was answered: its first
            # interrupt() takes an answer the task's own did not (LangGraph's null resume)
            self.spare_answers = spare_answers_of(self.link) or None
        continuing = record is not None and (inp is None or isinstance(inp, Command))
        forked: list[Event] | None = None
        applied = False
        if rebuilt and record is not None and continuing:
            answer = inp.resume if isinstance(inp, Command) and inp.resume is not None else None
            if requested_id is None:
                self.resumer.answer_rebuilt(ex, record, NO_ANSWER if answer is None else answer)
            elif answer is not None:
                # answering a past interrupt again (time travel): LangGraph keeps the
                # answers saved for it since, and the new one comes after them
                self.resumer.answer_rebuilt(ex, record, answer)
        if isinstance(inp, Command) and inp.resume is not None and self.link is None:
            if self.saver is None:
                # LangGraph's words: an answer has nowhere to come from without checkpoints
                raise RuntimeError("Cannot use Command(resume=...) without checkpointer")
            if record is None and self.fresh_resume_starts:
                # A thread with no checkpoint has no interrupt to answer: LangGraph starts
                # the graph from START (the Command's update and goto as its input) and the
                # answer is dropped, so the first interrupt() asks again.
                if inp.goto:
                    inp = Command(update=inp.update, goto=inp.goto)
                else:
                    inp = {} if inp.update is None else inp.update
        if isinstance(inp, Command) and inp.resume is not None:
            update = inp.update
            if update is not None and not rebuilt:
                self._write_onto(ex, record, update)  # before the answer: it reads the update
                update = None
            if not rebuilt:
                past = record if requested_id is not None else None  # resumed at a past one
                if past is not None:
                    self.resumer.answers_given_since(ex, past)
                self.resumer.answer(ex, self.record, inp.resume)
                if past is not None:
                    self.resumer.rerun_answered(ex)
                # LangGraph runs every unfinished task of the step again: one the answers
                # did not reach asks again (its task starts, and ends with its interrupt)
                run_again(ex, interrupted=True)
            if update is not None or inp.goto:
                ex.send(External(INPUT_EVENT, Command(update=update, goto=inp.goto)))
        elif isinstance(inp, Command) and record is not None and (_tasks_due(ex) or _stopped(ex)):
            # LangGraph writes a Command's update and goto onto the checkpoint as writes of
            # no task: the goto's nodes run in the step of the tasks already due, not after
            # them (a START activation would share their superstep and route one too late);
            # a task its subgraph's breakpoint stopped is one of them (it goes on)
            run_again(ex)
            self._apply_to_pending(ex, inp)
            applied = True
        elif isinstance(inp, Command):
            ex.send(External(INPUT_EVENT, inp))
            self._command_input = record is not None
        elif inp is None:
            if record is None:
                raise EmptyInputError("Received no input for __start__")
            if requested_id is None and not rebuilt:
                self.resumer.saved_answers(ex, record)
                run_again(ex, interrupted=True)
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
            if graph.lowlevel is not None:
                events.extend(self._lowlevel_input(ex, inp))
            else:
                events.extend(
                    self._checkpoint(
                        ex, "input", next_=(START,), values=self._values(ex), start=inp
                    )
                )
                ex.send(External(INPUT_EVENT, inp))
        # LangGraph counts a continued thread's budget from the step after its checkpoint.
        self.start_step = self.step + 1 if continuing and forked is None else self.step
        if continuing and record is not None and record.source == "update":
            # LangGraph prepares the first step after an edit with no channels known to be
            # updated: its pull tasks in the order the nodes were added, not by name
            self.first_step_order.update(self.graph.node_order)
        if continuing and record is not None:
            self._command_input = self._command_input or applied
            _seen_on_resume(record)
            events = self._continue(ex, record, forked)
            self.values_shown = not self._command_input  # it shows the state it starts from
            if applied:
                self._command_input = False
                events.extend(self._apply_command(ex))
        return ex, events

    def _lowlevel_input(self, ex: Execution, inp: Any) -> list[Event]:
        """A low-level `Pregel`'s input: written to its input channels as the input step
        (LangGraph's step -1, which shows no ``values`` chunk), so the nodes subscribed to
        them run in the first step."""
        ex.edit(self.graph.runner.input_writes(inp), writer=INPUT_WRITER)
        self._committed = ex.values
        self._last_values = None
        pending = pending_activations(ex, self.graph.node_order)
        return self._checkpoint(
            ex,
            "input",
            next_=tuple(name for name, _ in pending),
            keys=[key for _, key in pending],
            values=self._values(ex),
        )

    def _apply_to_pending(self, ex: Execution, command: Command[Any]) -> None:
        """Commit a `Command`'s ``update`` as an edit of no node; its ``goto`` nodes and
        `Send`s join the activations already due."""
        written = node_writes(
            Command(update=command.update, goto=command.goto), self.graph.runner.channel_keys
        )
        routed = TaskOutcome(writes=written.writes)
        self.graph.runner._gotos(written.goto, routed, START, RunContext(config=dict(self.config)))
        ex.edit(
            written.writes,
            writer=START,
            activate=routed.gotos,
            spawn=[(send.node, send) for send in routed.sends],
        )

    def _write_onto(self, ex: Execution, record: CheckpointRecord | None, update: Any) -> None:
        """A resuming `Command`'s ``update``: as LangGraph, written onto the checkpoint the
        thread is at (writes of no task) before the step goes on, so the resumed task and
        every later view of that checkpoint see it."""
        written = node_writes(Command(update=update), self.graph.runner.channel_keys)
        ex.edit(written.writes, writer=START)
        if record is None or self.saver is None:
            return
        record.values = self._values(ex)
        if record.current_values is not None:
            local = self.graph.runner.local_state(record.current_values, written.writes)
            record.current_values = self._values_of(local)
        record.engine = ex.snapshot()
        build_checkpoint(self.saver, record, record.checkpoint, triggers_of=self._triggers_of)
        self.writer.save(record)

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


_NO_INPUT = object()


def _same(seen: tuple[Any, ...], key: tuple[Any, ...]) -> bool:
    """Whether a run context's parts ``key`` are those ``seen`` (`RunSetup._run_context`):
    the step budget equal, the rest the same objects."""
    return (
        seen[0] == key[0]
        and seen[1] is key[1]
        and seen[2] is key[2]
        and seen[3] is key[3]
        and seen[4] is key[4]
        and seen[5] is key[5]
        and seen[6] is key[6]
    )


def _unsent_input(ex: Execution, record: CheckpointRecord) -> Any:
    """The input of an input checkpoint (``next`` is ``__start__`` alone) that its engine
    state has not received yet; `_NO_INPUT` for any other checkpoint."""
    if record.next != (START,) or START_CHANNEL not in record.triggers:
        return _NO_INPUT
    if any(node_of(aid) == START for aid, _ in ex.queue):
        return _NO_INPUT
    return record.triggers[START_CHANNEL]


def _stopped(ex: Execution) -> bool:
    """Whether a task waits on its subgraph's breakpoint (no interrupt of its own)."""
    return any(not as_list(value) for _, value in ex.interrupts)


def _tasks_due(ex: Execution) -> bool:
    """Whether activations of nodes (not START's) wait in the queue to run."""
    return any(isinstance(event, Activated) and node_of(aid) != START for aid, event in ex.queue)


def _seen_on_resume(record: CheckpointRecord) -> None:
    """A run that goes on from ``record`` has seen every channel version it holds, as
    LangGraph notes under ``versions_seen["__interrupt__"]`` (the next checkpoint carries
    it; ``record``'s own, as saved, does not change)."""
    built = record.checkpoint
    if built is None or not built.get("channel_versions"):
        return
    seen = dict(built.get("versions_seen") or {})
    seen[INTERRUPT] = graph_versions(built["channel_versions"])
    record.checkpoint = {**built, "versions_seen": seen}


def legacy_durability(
    durability: str | None, kwargs: Mapping[str, Any], *, stacklevel: int = 3
) -> str | None:
    """The ``durability`` of a call that may pass LangGraph's deprecated ``checkpoint_during``
    (True: "async", False: "exit"), with LangGraph's warning (``stacklevel`` as for
    `warnings.warn`, counted from here); both given is a ValueError."""
    checkpoint_during = kwargs.get("checkpoint_during")
    if checkpoint_during is None:
        return durability
    warnings.warn(
        "`checkpoint_during` is deprecated and will be removed. Please use `durability` instead.",
        LangGraphDeprecatedSinceV10,
        stacklevel=stacklevel,
    )
    if durability is not None:
        raise ValueError(
            "Cannot use both `checkpoint_during` and `durability` parameters. "
            "Please use `durability` instead."
        )
    return "async" if checkpoint_during else "exit"
