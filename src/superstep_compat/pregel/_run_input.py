"""A run's input written onto the execution it drives: `InputWrites`, one collaborator of
`Continuation` (which decides what the input is: a value, a `Command` applied onto the
thread's checkpoint or onto the tasks due, a first `Command`, a low-level graph's input);
`unsent_input` tells it what input a loaded checkpoint has not received yet.

Never imports the run or the host.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from superstep_compat._internal._constants import NULL_TASK_ID, START
from superstep_compat.graph._writes import node_writes
from superstep_compat.pregel._checkpoint_recorder import CheckpointRecorder
from superstep_compat.pregel._checkpoint_tasks import Event, node_of, pending_activations
from superstep_compat.pregel._lgcheckpoint import RESUME, START_CHANNEL
from superstep_compat.pregel._lgnull import (
    accumulated,
    first_writes,
    run_view,
    take_command,
    with_command,
)
from superstep_compat.pregel._lgrestore import resume_map
from superstep_compat.pregel._record import CheckpointRecord
from superstep_compat.pregel._run_scope import RunScope
from superstep_compat.pregel._run_values import RunValues
from superstep_compat.pregel._task_context import RunContext, StartCommand, TaskOutcome
from superstep_compat.types import Command
from superstep_core.node import External
from superstep_core.runtime import Execution

__all__ = [
    "INPUT_EVENT",
    "INPUT_WRITER",
    "NO_INPUT",
    "InputWrites",
    "unsent_input",
]

INPUT_EVENT = "__input__"
INPUT_WRITER = "__input__"
"""The writer of a low-level `Pregel`'s input (an edit of its input channels)."""


@dataclass(eq=False, repr=False, slots=True)
class InputWrites:
    """Writes a run's input (or a `Command`'s update and goto) onto its execution, saving
    the checkpoints that takes: given the run's ``scope``, its ``recorder`` and
    ``values``."""

    scope: RunScope
    recorder: CheckpointRecorder
    values: RunValues

    def lowlevel(
        self,
        ex: Execution,
        inp: Any,
        *,
        before: Mapping[str, Any] | None = None,
        seen_by: Sequence[str] = (),
    ) -> list[Event]:
        """A low-level `Pregel`'s input: written to its input channels as the input step
        (LangGraph's step -1, which shows no ``values`` chunk), so the nodes subscribed to
        them run in the first step. ``before`` and ``seen_by``: see
        `CheckpointRecorder.checkpoint` (a `Command`'s update applied first)."""
        ex.edit(self.scope.graph.runner.input_writes(inp), writer=INPUT_WRITER)
        self.values.commit(ex.values)
        pending = pending_activations(ex, self.scope.graph.node_order)
        return self.recorder.checkpoint(
            ex,
            "input",
            next_=tuple(name for name, _ in pending),
            keys=[key for _, key in pending],
            values=self.values.of(ex.values),
            before=before,
            seen_by=seen_by,
        )

    def first_command(self, ex: Execution, command: Command[Any]) -> list[Event]:
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
        keys = runner.channel_keys
        written = node_writes(Command(update=command.update), keys)
        if written.writes:
            ex.edit(written.writes, writer=START)
        lowlevel = self.scope.graph.lowlevel is not None
        before: dict[str, Any] | None = None
        seen_by: list[str] = []
        if lowlevel:
            # LangGraph's input step marks the nodes the update triggered as having seen
            # it (so they do not run), at the update's version; the input goes on at the next
            before, _ = first_writes(
                self.scope.saver,
                self.scope.graph,
                Command(update=command.update),
                self.values.of(ex.values),
                ex,
            )
            seen_by = [name for name, _ in pending_activations(ex, self.scope.graph.node_order)]
            ex.abandon_pending()
            gotos = node_writes(Command(goto=command.goto), keys).goto
            runner._gotos(gotos, TaskOutcome(), INPUT_WRITER, RunContext(config={}))
        runner.warn_unknown(written.dropped, INPUT_WRITER, RunContext(config={}))
        if lowlevel:
            return self.lowlevel(ex, command, before=before, seen_by=seen_by)
        values = self.values.of(ex.values)
        # LangGraph applies them at one version, then its input step consumes the goto's
        # and Sends' triggers and writes ``__start__`` at the next
        before, seen_by = first_writes(self.scope.saver, self.scope.graph, command, values, ex)
        events = self.recorder.checkpoint(
            ex,
            "input",
            next_=(START,),
            values=values,
            start=command,
            before=before,
            seen_by=seen_by,
        )
        ex.send(External(INPUT_EVENT, StartCommand(command)))
        return events

    def keep_answer(self, record: CheckpointRecord | None, answer: Any) -> None:
        """A plain ``Command(resume=answer)`` (not a map by interrupt id) given at
        ``record``, kept as LangGraph keeps it: the checkpoint's ``__resume__`` write of no
        task, in one list after the writes of no task it holds (`accumulated`), replacing
        an answer kept before; should the step run again, its first interrupt without an
        answer of its own takes it (`give_kept_answer`). Not saved under durability
        "exit" (LangGraph saves no pending writes then)."""
        if (
            record is None
            or self.scope.saver is None
            or not self.scope.durable
            or resume_map(answer) is not None
        ):
            return
        pending = [w for w in record.pending if not (w[0] == NULL_TASK_ID and w[1] == RESUME)]
        saved = accumulated(pending, [(RESUME, answer)])
        record.pending = with_command(pending, saved)
        self.recorder.writer.put_writes(record, NULL_TASK_ID, saved)

    def onto_pending(self, ex: Execution, command: Command[Any]) -> list[tuple[str, Any]]:
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

    def onto_checkpoint(self, ex: Execution, record: CheckpointRecord | None, update: Any) -> None:
        """A resuming `Command`'s ``update``: as LangGraph, written onto the checkpoint the
        thread is at before the step goes on (so the resumed task and every later view of
        that checkpoint see it): saved there as writes of no task, the checkpoint itself
        not stored again (see `_lgnull`)."""
        written = node_writes(Command(update=update), self.scope.graph.runner.channel_keys)
        self.scope.graph.runner.warn_unknown(written.dropped, INPUT_WRITER, RunContext(config={}))
        ex.edit(written.writes, writer=START)
        if record is None or self.scope.saver is None or record.checkpoint is None:
            return
        stored = record.stored if record.stored is not None else record.checkpoint
        saved = take_command(self.scope.graph, record, written.writes)
        record.values = self.values.of(ex.values)
        if record.current_values is not None:
            local = self.scope.graph.runner.local_state(record.current_values, written.writes)
            record.current_values = self.values.of(local)
        run_view(self.scope.saver, record, ex, stored, self.recorder.policy.triggers_of)
        self.recorder.writer.put_writes(record, NULL_TASK_ID, saved)


NO_INPUT = object()


def unsent_input(ex: Execution, record: CheckpointRecord) -> Any:
    """The input of an input checkpoint (``next`` is ``__start__`` alone) that its engine
    state has not received yet; `NO_INPUT` for any other checkpoint."""
    if record.next != (START,) or START_CHANNEL not in record.triggers:
        return NO_INPUT
    if any(node_of(aid) == START for aid, _ in ex.queue):
        return NO_INPUT
    return record.triggers[START_CHANNEL]
