"""Setting up a run: `Continuation`, how a run of a compiled façade graph starts, one
collaborator of `GraphRun`: loading the thread's checkpoint (or the one time travel
addresses) into an `Execution`, applying the input, resuming interrupted activations with
their answers (through the run's `Resumer`), and what the run keeps of the step it continues
(saved outcomes, held tasks).

Never imports the run or the host.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from superstep_compat._internal._constants import NULL_TASK_ID, START
from superstep_compat.errors import EmptyInputError
from superstep_compat.graph._writes import node_writes
from superstep_compat.pregel._checkpoint_recorder import CheckpointRecorder
from superstep_compat.pregel._checkpoint_tasks import (
    Event,
    find_task,
    node_of,
    pending_activations,
)
from superstep_compat.pregel._command_input import check_command_input, takes_command
from superstep_compat.pregel._lgcheckpoint import (
    INTERRUPT,
    PUSH,
    START_CHANNEL,
    build_checkpoint,
    get_tuple,
    graph_versions,
    load_record,
)
from superstep_compat.pregel._lgdelta import hydrate_delta_channels
from superstep_compat.pregel._lgrestore import NO_ANSWER, rebuild
from superstep_compat.pregel._output_keys import read_keys
from superstep_compat.pregel._record import CheckpointRecord, config_of, step_in_progress
from superstep_compat.pregel._replay import ReplayState
from superstep_compat.pregel._resumer import Resumer, run_again
from superstep_compat.pregel._run_scope import RunScope
from superstep_compat.pregel._run_values import RunValues
from superstep_compat.pregel._task_context import (
    RunContext,
    StartCommand,
    TaskOutcome,
    _now,
    spare_answers_of,
    task_uuid,
)
from superstep_compat.types import Command, Send
from superstep_core.node import External
from superstep_core.runtime import Execution

INPUT_EVENT = "__input__"
INPUT_WRITER = "__input__"
"""The writer of a low-level `Pregel`'s input (an edit of its input channels)."""


@dataclass(eq=False, repr=False)
class Continuation:
    """How one run of ``graph`` (a compiled `Pregel`) starts: the thread's checkpoint it
    loads (or the one time travel addresses) into an `Execution`, the input it applies, the
    interrupts it answers (through ``resumer``), and what the run then keeps of a step that
    did not finish; one collaborator of `GraphRun`, which owns it.

    Given the run's ``scope`` (its saver, thread, config, link to a parent task, the modes
    its stream shows), its ``recorder`` (checkpoints, step and record) and ``values``;
    ``first_step_order``: the run's, filled
    when the first step orders its tasks as the nodes were added; ``input``, ``replay`` and
    ``addressed`` (a subgraph's checkpoint the parent's map addresses) as the run resolved
    them; ``fresh_resume_starts``: whether a `Command` (``resume`` or not) on a thread with no
    checkpoint starts the graph with the Command as START's input (LangGraph's
    `StateGraph`; an entrypoint refuses a resume). The
    run hands it three of its own operations: ``apply_command`` (an input `Command` applied
    to the checkpoint, as the run's step logic does), ``run_context`` (its tasks' context)
    and ``emit`` (a transient stream event)."""

    scope: RunScope  # what the run is about
    recorder: CheckpointRecorder
    values: RunValues
    resumer: Resumer
    first_step_order: dict[str, int]
    input: Any
    replay: ReplayState | None
    addressed: str | None
    fresh_resume_starts: bool
    apply_command: Callable[[Execution], Iterator[Event]]
    run_context: Callable[[], RunContext]
    emit: Callable[..., None]
    saved: dict[str, TaskOutcome] | None = None
    """The outcomes the finished tasks of the step it continues saved (by activation id),
    handed back instead of running them again."""
    cached: list[tuple[str, Any]] = field(default_factory=list)
    """The updates of tasks that finished earlier, to announce again (as cached)."""
    held: bool = False
    """Whether activations of the step it continues still wait on interrupts."""
    reported: set[str] = field(default_factory=set)
    """Activations whose results wait in the engine for a paused step (see
    `suspend_holds_step`), reported already when the step paused."""
    command_input: bool = False
    """Whether the input is a `Command` without ``resume`` on an existing thread."""
    held_starts: list[str] = field(default_factory=list)
    """The tasks of a resumed step that finished before it paused, to announce as it
    resumes."""
    spare_answers: list[Any] | None = None
    """A subgraph run started afresh: the parent's answers no task took yet (see
    `RunContext.spare_answers`)."""
    start_step: int = -1
    """The step its recursion budget counts from."""
    fork_values: dict[str, Any] | None = None
    """The values of the fork a `Command` made (time travel): the state the run starts
    from, and shows first, rather than the forked checkpoint's."""

    def prepare(self) -> tuple[Execution, list[Event]]:
        """The execution the run drives (loaded, or new) with the input applied, and the
        events it shows first."""
        graph = self.scope.graph
        check_command_input(self.input, has_saver=self.scope.saver is not None)
        events: list[Event] = []
        requested_id = (self.scope.config.get("configurable") or {}).get("checkpoint_id")
        requested_id = requested_id or self.addressed
        record = None
        if self.scope.saver is not None and self.scope.thread_id is not None:
            if self.replay is not None and requested_id is None:
                record = self.replay.load(self.scope.saver, self.scope.thread_id, self.scope.ns)
            else:
                record = load_record(
                    self.scope.saver, self.scope.thread_id, self.scope.ns, requested_id
                )
        if self.addressed is not None and record is not None:
            self.input = None  # it goes on from its checkpoint, whatever its parent passes
        if (
            self.scope.link is None
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
        execution_id = self.scope.thread_id or "run"
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
            rebuild(graph, record, record.pending, self.scope.saver)  # a checkpoint LangGraph wrote
        elif record is not None:
            hydrate_delta_channels(graph, record, self.scope.saver)
        if record is not None and record.engine is not None:
            ex = Execution.restore(
                graph.engine, record.engine, record_trace=False, log_inputs=False
            )
            self.recorder.step = record.step
            self.recorder.record = self.recorder.writer.last_saved = record
            if record.checkpoint is not None:
                self.recorder.writer.saved_versions = dict(record.checkpoint["channel_versions"])
        else:
            ex = Execution(graph.engine, execution_id, record_trace=False, log_inputs=False)
        inp = self.input
        if (
            self.scope.link is not None
            and self.scope.link.resume
            and record is not None
            and (ex.interrupts or ex.queue)
        ):
            # the parent's answer to our interrupt (our checkpoint may have been edited
            # since: then the step's tasks run afresh and the first to ask takes it)
            spare = spare_answers_of(self.scope.link)
            if spare and spare[-1] is self.scope.link.resume[-1]:
                spare.pop()  # taken: no later subgraph run of the task takes it again
            inp = Command(resume=self.scope.link.resume[-1])
        elif (
            self.scope.link is not None
            and self.scope.link.resuming
            and record is not None
            and (ex.queue or ex.interrupts)
        ):
            inp = None  # the parent's task runs again: go on from where we stopped
        elif self.scope.link is not None and self.scope.link.resuming and record is not None:
            # the parent's task was answered, but our checkpoint has no work left (a resume
            # at a past checkpoint of the parent, whose branch went on and finished us):
            # LangGraph's subgraph, told it resumes, takes its latest checkpoint as it is
            inp = None
        elif self.scope.link is not None and record is None and self.scope.link.resume:
            # a subgraph run starting afresh in a task that was answered: its first
            # interrupt() takes an answer the task's own did not (LangGraph's null resume)
            self.spare_answers = spare_answers_of(self.scope.link) or None
        continuing = record is not None and (inp is None or isinstance(inp, Command))
        delta = self.recorder.writer.delta
        if delta is not None:
            delta.resuming = continuing and requested_id is None
            delta.addressed = record is not None and requested_id is not None
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
        # an entrypoint's new thread takes a Command as its input value, as LangGraph's
        # (the function is called with it; a resume has nothing to answer yet)
        as_value = (
            isinstance(inp, Command)
            and record is None
            and not self.fresh_resume_starts
            and self.scope.link is None
            and graph.lowlevel is None
            and (inp.resume is None or self.scope.saver is not None)
        )
        if (
            isinstance(inp, Command)
            and inp.resume is not None
            and not as_value
            and self.scope.link is None
        ):
            if self.scope.saver is None:
                # LangGraph's words: an answer has nowhere to come from without checkpoints
                raise RuntimeError("Cannot use Command(resume=...) without checkpointer")
            if record is None and self.fresh_resume_starts:
                # A thread with no checkpoint has no interrupt to answer: LangGraph starts
                # the graph from START (the Command as its input, see `_first_command`) and
                # the answer is dropped, so the first interrupt() asks again.
                inp = Command(update=inp.update, goto=inp.goto)
        if isinstance(inp, Command) and inp.resume is not None and not as_value:
            update = inp.update
            if update is not None:
                self._write_onto(ex, record, update)  # before the answer: it reads the update
                update = None
            if not rebuilt:
                past = record if requested_id is not None else None  # resumed at a past one
                if past is not None:
                    self.resumer.answers_given_since(ex, past)
                self.resumer.answer(ex, self.recorder.record, inp.resume)
                if past is not None:
                    self.resumer.rerun_answered(ex)
                # LangGraph runs every unfinished task of the step again: one the answers
                # did not reach asks again (its task starts, and ends with its interrupt)
                run_again(ex, interrupted=True)
            if update is not None or inp.goto:
                ex.send(External(INPUT_EVENT, Command(update=update, goto=inp.goto)))
        elif (
            isinstance(inp, Command)
            and record is not None
            and requested_id is not None
            and takes_command(ex, record)
            and (record.source not in ("update", "fork") or not self._is_latest(record))
        ):
            # time travel with a Command (a finished thread's newest checkpoint named by id
            # too): LangGraph forks the checkpoint (a sibling step holding the update and
            # goto) rather than writing onto one that may have children, and runs the
            # step's tasks afresh from the fork
            run_again(ex)
            written = self._apply_to_pending(ex, inp)
            if delta is not None:
                delta.force(k for k, _ in written)  # the fork stores them whole
            pending = pending_activations(ex, graph.node_order)
            forked = self.recorder.checkpoint(
                ex,
                "fork",
                next_=tuple(name for name, _ in pending),
                keys=[key for _, key in pending],
                values=self.values.of(ex.values),
            )
            self.fork_values = self.values.of(ex.values)
        elif isinstance(inp, Command) and record is not None and takes_command(ex, record):
            # LangGraph writes a Command's update and goto onto the checkpoint as writes of
            # no task: the goto's nodes run in the step of the tasks already due, not after
            # them (a START activation would share their superstep and route one too late);
            # a task its subgraph's breakpoint stopped is one of them (it goes on)
            run_again(ex)
            written = self._apply_to_pending(ex, inp)
            if delta is not None:
                delta.edited(written)  # saved onto the checkpoint (`apply_command`)
            applied = True
        elif isinstance(inp, Command) and record is None and self.fresh_resume_starts:
            events.extend(self._first_command(ex, inp))
        elif isinstance(inp, Command) and not as_value:
            ex.send(External(INPUT_EVENT, inp))
            self.command_input = record is not None
        elif inp is None:
            if record is None:
                raise EmptyInputError("Received no input for __start__")
            if requested_id is None and not rebuilt:
                self.resumer.saved_answers(ex, record)
                run_again(ex, interrupted=True)
            latest = (
                get_tuple(self.scope.saver, config_of(record.thread_id, self.scope.ns, None))
                if self.scope.saver
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
                forked = self.recorder.checkpoint(
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
                    self.recorder.checkpoint(
                        ex, "input", next_=(START,), values=self.values.of(ex.values), start=inp
                    )
                )
                ex.send(External(INPUT_EVENT, inp))
        # LangGraph counts a continued thread's budget from the step after its checkpoint.
        self.start_step = (
            self.recorder.step + 1 if continuing and forked is None else self.recorder.step
        )
        if continuing and record is not None and record.source == "update":
            # LangGraph prepares the first step after an edit with no channels known to be
            # updated: its pull tasks in the order the nodes were added, not by name
            self.first_step_order.update(self.scope.graph.node_order)
        if continuing and record is not None:
            self.command_input = self.command_input or applied
            _seen_on_resume(record)
            events = self._continue(ex, record, forked)
            self.values.shown = not self.command_input  # it shows the state it starts from
            if applied:
                self.command_input = False
                events.extend(self.apply_command(ex))
        return ex, events

    # --- continuing from a checkpoint ---------------------------------------------------------

    def _continue(
        self, ex: Execution, record: CheckpointRecord, forked: list[Event] | None
    ) -> list[Event]:
        """A run that continues the thread from ``record``: it first shows the state it
        starts from (``values``, then the checkpoint), as LangGraph does; a top-level
        `Command` without ``resume`` shows it once applied (see `_apply_command`)."""
        start = record.values if self.fork_values is None else self.fork_values
        self.values.start_from(start)
        # a step paused on interrupts (its interrupted tasks may be about to run again,
        # their siblings' outcomes held)
        self.held = bool(ex.interrupts) or bool(ex.held)
        self.reported = {aid for aid, _ in ex.held}  # reported when their step paused
        if ex.held and ("tasks" in self.scope.modes or "debug" in self.scope.modes):
            # LangGraph announces every task of the step it resumes, finished ones too
            self.held_starts = list(dict.fromkeys(aid for aid, _ in ex.held))
        # time travel runs the step's finished tasks again; continuing hands their work back
        # (and a failure an error handler took goes to the handler again, not to its node)
        if forked is None and (record.finished or any(t.error for t in record.tasks)):
            self.saved = self.recorder.load_finished(ex, record) or None
            served = {
                task.id for aid in self.saved or () if (task := find_task(record, aid)) is not None
            }
            # in the order LangGraph prepares the step's tasks (it reports them so):
            # `Send`s first, as sent; then nodes by name, or as added after an edit
            order = self.first_step_order
            self.cached = [
                (t.name, t.result)
                for t in sorted(
                    record.tasks,
                    key=lambda t: (t.path[:1] != (PUSH,), order.get(t.name, 0), t.name),
                )
                if t.id in record.finished and t.id not in served and t.name != START
            ]
        if self.command_input:
            return forked or []
        events: list[Event] = []
        if "values" in self.scope.modes:
            keys = self.scope.keys  # a continued thread shows its state whatever wrote it
            shown = dict(start) if keys is None else read_keys(start, keys)
            events.append(((), "values", shown))
        if forked is not None:
            events.extend(forked)
        else:
            events.extend(
                self.recorder.checkpoint_events(record, record.parent_id, parent_saved=True)
            )
        return events

    def take_saved(
        self, name: str, activation_id: str, values: Any, arg: Any
    ) -> TaskOutcome | None:
        """The saved outcome of activation ``activation_id`` (a task that finished in a step
        that then failed), announced as a task start as LangGraph does; None: run it."""
        saved = self.saved
        outcome = None if saved is None else saved.pop(activation_id, None)
        if outcome is None or ("tasks" not in self.scope.modes and "debug" not in self.scope.modes):
            return outcome
        ctx = self.run_context()
        node = self.scope.graph.spec.nodes.get(name)
        state = arg
        if state is None and node is not None:
            state = self.scope.graph.runner.read(node.input_schema, values, ctx)
        start = {
            "id": task_uuid(ctx, activation_id),
            "name": name,
            "input": state,
            "triggers": (f"branch:to:{name}",),
        }
        self._emit_start(ctx.step, start)
        return outcome

    def _emit_start(self, step: int, start: dict[str, Any]) -> None:
        """A task's start, in the ``tasks`` and ``debug`` modes."""
        if "tasks" in self.scope.modes:
            self.emit("tasks", start)
        if "debug" in self.scope.modes:
            self.emit(
                "debug", {"step": step, "timestamp": _now(), "type": "task", "payload": start}
            )

    def held_start(self, ex: Execution, activation_id: str) -> Callable[[], None]:
        """What announces the start of a task that finished before its step paused (its
        result held in the engine) when the step resumes: its input as it first ran."""
        inst = ex.instances.get(activation_id)
        payload = inst.payload if inst is not None else None
        name = node_of(activation_id)
        ctx = self.run_context()
        node = self.scope.graph.spec.nodes.get(name)
        state = payload.arg if isinstance(payload, Send) else None  # a Send's task: its arg
        if state is None and node is not None:
            state = self.scope.graph.runner.read(node.input_schema, ex.values, ctx)
        start = {
            "id": task_uuid(ctx, activation_id),
            "name": name,
            "input": state,
            "triggers": (PUSH,)
            if isinstance(payload, Send)
            else self.recorder.policy.triggers_of(name),
        }
        return partial(self._emit_start, ctx.step, start)

    def _lowlevel_input(self, ex: Execution, inp: Any) -> list[Event]:
        """A low-level `Pregel`'s input: written to its input channels as the input step
        (LangGraph's step -1, which shows no ``values`` chunk), so the nodes subscribed to
        them run in the first step."""
        ex.edit(self.scope.graph.runner.input_writes(inp), writer=INPUT_WRITER)
        self.values.commit(ex.values)
        pending = pending_activations(ex, self.scope.graph.node_order)
        return self.recorder.checkpoint(
            ex,
            "input",
            next_=tuple(name for name, _ in pending),
            keys=[key for _, key in pending],
            values=self.values.of(ex.values),
        )

    def _first_command(self, ex: Execution, command: Command[Any]) -> list[Event]:
        """A `Command` as the first input of a thread (no checkpoint, or no checkpointer):
        LangGraph has nothing to resume, so it first applies the Command's writes as writes
        of no task (its ``goto`` triggers are then dropped by the input step, which clears
        the triggers it did not write), saves the input checkpoint (step -1, ``__start__``
        holding the Command) and runs START with the Command as its input: the ``update``
        is written a second time (a reducer sees it twice), and START writes the ``goto``
        and follows its own edges (`StartCommand`). A low-level `Pregel` drops the tasks the
        update triggered, warns of its gotos (no such channels) and takes the Command itself
        as its input value."""
        runner = self.scope.graph.runner
        written = node_writes(Command(update=command.update), runner.channel_keys)
        if written.writes:
            ex.edit(written.writes, writer=START)
        if self.scope.graph.lowlevel is not None:
            ex.abandon_pending()
            gotos = node_writes(Command(goto=command.goto), runner.channel_keys).goto
            runner._gotos(gotos, TaskOutcome(), INPUT_WRITER, RunContext(config={}))
        runner.warn_unknown(written.dropped, INPUT_WRITER, RunContext(config={}))
        if self.scope.graph.lowlevel is not None:
            return self._lowlevel_input(ex, command)
        events = self.recorder.checkpoint(
            ex, "input", next_=(START,), values=self.values.of(ex.values), start=command
        )
        ex.send(External(INPUT_EVENT, StartCommand(command)))
        return events

    def _apply_to_pending(self, ex: Execution, command: Command[Any]) -> list[tuple[str, Any]]:
        """Commit a `Command`'s ``update`` as an edit of no node; its ``goto`` nodes and
        `Send`s join the activations already due. Returns the update's writes."""
        written = node_writes(
            Command(update=command.update, goto=command.goto), self.scope.graph.runner.channel_keys
        )
        routed = TaskOutcome(writes=written.writes)
        run = RunContext(config=dict(self.scope.config))
        self.scope.graph.runner._gotos(written.goto, routed, INPUT_WRITER, run)
        self.scope.graph.runner.warn_unknown(written.dropped, INPUT_WRITER, run)
        ex.edit(
            written.writes,
            writer=START,
            activate=routed.gotos,
            spawn=[(send.node, send) for send in routed.sends],
        )
        return list(written.writes)

    def _write_onto(self, ex: Execution, record: CheckpointRecord | None, update: Any) -> None:
        """A resuming `Command`'s ``update``: as LangGraph, written onto the checkpoint the
        thread is at (writes of no task) before the step goes on, so the resumed task and
        every later view of that checkpoint see it."""
        written = node_writes(Command(update=update), self.scope.graph.runner.channel_keys)
        self.scope.graph.runner.warn_unknown(written.dropped, INPUT_WRITER, RunContext(config={}))
        ex.edit(written.writes, writer=START)
        if record is None or self.scope.saver is None:
            return
        record.values = self.values.of(ex.values)
        if record.current_values is not None:
            local = self.scope.graph.runner.local_state(record.current_values, written.writes)
            record.current_values = self.values.of(local)
        record.engine = ex.snapshot()
        before = record.checkpoint
        build_checkpoint(
            self.scope.saver,
            record,
            record.checkpoint,
            triggers_of=self.recorder.policy.triggers_of,
        )
        writer = self.recorder.writer
        onto: list[tuple[str, Any]] = []
        if writer.delta is not None:
            writer.delta.edited(written.writes)
            onto = writer.delta.rewritten(record, before)
        writer.save(record)
        # as LangGraph, the update of a delta key is saved as writes of no task
        writer.put_writes(record, NULL_TASK_ID, onto)

    def _is_latest(self, record: CheckpointRecord) -> bool:
        """Whether ``record`` is the newest checkpoint of its thread and namespace."""
        if self.scope.saver is None:
            return True
        latest = get_tuple(
            self.scope.saver, config_of(record.thread_id, record.checkpoint_ns, None)
        )
        return latest is None or (
            latest.config["configurable"]["checkpoint_id"] == record.checkpoint_id
        )


_NO_INPUT = object()


def _unsent_input(ex: Execution, record: CheckpointRecord) -> Any:
    """The input of an input checkpoint (``next`` is ``__start__`` alone) that its engine
    state has not received yet; `_NO_INPUT` for any other checkpoint."""
    if record.next != (START,) or START_CHANNEL not in record.triggers:
        return _NO_INPUT
    if any(node_of(aid) == START for aid, _ in ex.queue):
        return _NO_INPUT
    return record.triggers[START_CHANNEL]


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
