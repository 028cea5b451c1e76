"""Setting up a run: `Continuation`, how a run of a compiled façade graph starts, one
collaborator of `GraphRun`: loading the thread's checkpoint (or the one time travel
addresses) into an `Execution`, applying the input (its writes: `_run_input`), resuming
interrupted activations with their answers (through the run's `Resumer`), and what the run
keeps of the step it continues (saved outcomes, held tasks).

Never imports the run or the host.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from superstep_compat._internal._constants import NULL_TASK_ID, START
from superstep_compat.errors import EmptyInputError
from superstep_compat.pregel._checkpoint_recorder import CheckpointRecorder
from superstep_compat.pregel._checkpoint_tasks import (
    Event,
    find_task,
    node_of,
    pending_activations,
)
from superstep_compat.pregel._command_input import check_command_input
from superstep_compat.pregel._lgcheckpoint import INTERRUPT, PUSH, RESUME
from superstep_compat.pregel._lgdelta import hydrate_delta_channels
from superstep_compat.pregel._lgnull import (
    command_writes,
    go_on_from,
)
from superstep_compat.pregel._lgread import get_tuple, load_record
from superstep_compat.pregel._lgrestore import NO_ANSWER, rebuild
from superstep_compat.pregel._output_keys import read_keys
from superstep_compat.pregel._record import CheckpointRecord, config_of, step_in_progress
from superstep_compat.pregel._replay import ReplayState
from superstep_compat.pregel._resumer import (
    Resumer,
    run_again,
    seen_on_resume,
    takes_command,
)
from superstep_compat.pregel._run_input import INPUT_EVENT, NO_INPUT, InputWrites, unsent_input
from superstep_compat.pregel._run_scope import RunScope
from superstep_compat.pregel._run_values import RunValues
from superstep_compat.pregel._task_context import (
    RunContext,
    TaskOutcome,
    _now,
    spare_answers_of,
    task_uuid,
)
from superstep_compat.types import Command, Send
from superstep_core.node import External
from superstep_core.runtime import Execution


@dataclass(eq=False, repr=False)
class Continuation:
    """How one run of ``graph`` (a compiled `Pregel`) starts: the thread's checkpoint it
    loads (or the one time travel addresses) into an `Execution`, the input it applies, the
    interrupts it answers (through ``resumer``), and what the run then keeps of a step that
    did not finish; one collaborator of `GraphRun`, which owns it.

    Given the run's ``scope`` (its saver, thread, config, link to a parent task, the modes
    its stream shows), its ``recorder`` (checkpoints, step and record) and ``values``;
    ``first_step_order``: the run's, filled when the first step orders its tasks as the
    nodes were added; ``input``, ``replay`` and ``addressed`` (a subgraph's checkpoint the
    parent's map addresses) as the run resolved them; ``fresh_resume_starts``: whether a
    `Command` (``resume`` or not) on a thread with no checkpoint starts the graph with the
    Command as START's input (LangGraph's `StateGraph`; an entrypoint refuses a resume). The
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
    """The tasks of a resumed step that finished before it paused (announced on resume)."""
    spare_answers: list[Any] | None = None
    """A subgraph run started afresh: the parent's answers no task took yet."""
    start_step: int = -1
    """The step its recursion budget counts from."""
    command_writes: list[tuple[str, Any]] = field(default_factory=list)
    """The writes of no task of a `Command` put onto the checkpoint the thread is at
    (`_lgnull.command_writes`), saved there by the run's ``apply_command``."""
    resuming: bool = False
    """LangGraph's ``CONFIG_KEY_RESUMING`` (`RunContext.resuming`; a subgraph's: its task's)."""
    fork_values: dict[str, Any] | None = None
    """The values of the fork a `Command` made (time travel): the state the run starts
    from, and shows first, rather than the forked checkpoint's."""
    input_step: bool = False
    """Whether a low-level graph's input was written as its input step (step -1): the
    nodes it triggers are due before any superstep runs, so the run checks its
    ``interrupt_before`` breakpoints first (LangGraph's first tick does)."""
    ended_at_past: set[str] = field(default_factory=set)
    """A resume at a checkpoint the thread went past: the tasks that had finished there
    (their writes dropped to run them again; see `Resumer.answer_rebuilt`)."""

    def prepare(self) -> tuple[Execution, list[Event]]:
        """The execution the run drives (loaded, or new) with the input applied, and the
        events it shows first."""
        graph = self.scope.graph
        writes = InputWrites(self.scope, self.recorder, self.values)
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
            and requested_id is not None
            and (
                step_in_progress(record)
                if record.engine is not None
                # a checkpoint in LangGraph's format: its tasks' saved writes tell it
                else self.scope.link is None and any(w[0] != NULL_TASK_ID for w in record.pending)
            )
        ):
            self._rerun_addressed_step(record)
        rebuilt = record is not None and record.engine is None
        if record is not None and rebuilt:
            # a checkpoint LangGraph wrote
            rebuild(graph, record, record.pending, self.scope.saver, null=True)
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
            if self.scope.saver is not None:  # its writes of no task, as LangGraph applies them
                triggers = self.recorder.policy.triggers_of
                go_on_from(
                    graph, self.scope.saver, ex, record, rebuilt=rebuilt, triggers_of=triggers
                )
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
        # a root run tells its first step's subgraphs they resume, unless it replays a past
        # checkpoint: its subgraphs then load their state as of that checkpoint (`_replay`)
        root_resumes = continuing and requested_id is None
        self.resuming = root_resumes if self.scope.link is None else self.scope.link.resuming
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
                self.resumer.answer_rebuilt(ex, record, answer, self.ended_at_past)
        first_answer: tuple[Any, ...] = ()  # a low-level new thread's resume answer
        first_input: Command[Any] | None = None
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
                # the graph from START (the Command as its input, `InputWrites.first_command`) and
                # the answer is dropped, so the first interrupt() asks again. A low-level
                # graph takes the whole Command as its input value, and its first task due
                # takes the answer (LangGraph's null-task resume: no START task runs first).
                if graph.lowlevel is not None:
                    first_answer, first_input = (inp.resume,), inp
                inp = Command(update=inp.update, goto=inp.goto)
        if isinstance(inp, Command) and inp.resume is not None and not as_value:
            update = inp.update
            if update is not None:
                writes.onto_checkpoint(ex, record, update)  # before the answer: it reads the update
                update = None
            if self.scope.link is None:  # (a subgraph's answer comes through its task)
                writes.keep_answer(record, inp.resume)
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
            if inp.goto and record is not None:  # LangGraph's writes of no task: its nodes
                writes.onto_pending(ex, Command(goto=inp.goto))  # join the resumed step
            elif update is not None or inp.goto:
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
            written = writes.onto_pending(ex, inp)
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
            writes.onto_pending(ex, inp)
            self.command_writes = command_writes(inp, graph.runner.channel_keys)
            applied = True
        elif isinstance(inp, Command) and record is None and self.fresh_resume_starts:
            events.extend(writes.first_command(ex, first_input or inp))
            self.input_step = graph.lowlevel is not None
            if first_answer:
                self.resumer.answer(ex, None, first_answer[0])
        elif isinstance(inp, Command) and not as_value:
            ex.send(External(INPUT_EVENT, inp))
            self.command_input = record is not None
            self.command_writes = command_writes(inp, graph.runner.channel_keys)
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
            start = unsent_input(ex, record)
            # LangGraph's root forks whatever the checkpoint's step left (time travel
            # starts a branch even at the latest), except from an edit's own fork
            root_forks = self.scope.link is None and record.source not in ("update", "fork")
            if requested_id is not None and (
                (replaying and (record.next or ex.queue)) or root_forks
            ):
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
                    **({} if start is NO_INPUT else {"start": start}),
                )
            if start is not NO_INPUT:
                ex.send(External(INPUT_EVENT, start))
        else:
            dropped: list[str] = []
            if record is not None:
                # new input: LangGraph drops the tasks a run left, and a low-level graph's
                # input checkpoint marks them as having seen their triggers (so a node
                # left pending by interrupt_after does not run again on the new input)
                dropped = [name for name, _ in pending_activations(ex, graph.node_order)]
                ex.abandon_pending()
            if graph.lowlevel is not None:
                events.extend(writes.lowlevel(ex, inp, seen_by=dropped))
                self.input_step = True
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
            # LangGraph's next step empties an ephemeral channel it does not write, whatever
            # step wrote it (an interrupted step's checkpoint shows the values from before
            # it); a Command's writes of no task, made above, are no step and empty nothing
            ex.expire_ephemeral()
            self.command_input = self.command_input or applied
            seen_on_resume(record)
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
            events.extend(self.recorder.chunks.events(record, record.parent_id, parent_saved=True))
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

    def _rerun_addressed_step(self, record: CheckpointRecord) -> None:
        """``record``, addressed by id, is a step part-way done (interrupted, failed, or
        partly finished): what LangGraph runs of it again. Time travel (no input, or a
        `Command` without ``resume``; a subgraph's only once its thread went on) runs its
        tasks afresh, without the answers and writes saved since: the state is the
        checkpoint's own fields, even at the thread's latest checkpoint. A resume at a
        checkpoint the thread went past runs its finished tasks again too, but keeps the
        answers saved there (they come first) and which tasks wait on interrupts. A resume
        at the latest hands the finished tasks' writes back, as without an id."""
        inp = self.input
        resumes = isinstance(inp, Command) and inp.resume is not None
        root = self.scope.link is None
        kept: tuple[str, ...] | None = None  # the channels of the task writes that stay
        if not resumes and (inp is None or (root and isinstance(inp, Command))):
            if root or not self._is_latest(record):
                kept = ()  # (a `Command`'s writes of no task are the checkpoint's own)
        elif resumes and root and not self._is_latest(record):
            kept = (RESUME, INTERRUPT)
        if kept is None:
            return
        dropped = [w for w in record.pending if w[0] != NULL_TASK_ID and w[1] not in kept]
        if kept:  # (a resume: the tasks that had finished there keep their answers only)
            self.ended_at_past = {w[0] for w in dropped}
        delta = self.recorder.writer.delta
        if delta is not None:  # LangGraph's branch snapshots the delta keys they touch
            delta.force_pending(dropped)
        record.engine = None
        record.pending = [w for w in record.pending if w[0] == NULL_TASK_ID or w[1] in kept]

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
