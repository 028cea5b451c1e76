"""What LangGraph rejects of a `Command` given as a run's input, before it runs anything.

LangGraph maps an input Command to writes of no task (its ``goto``, ``resume`` and
``update``) as the run starts, after loading the thread's checkpoint and before saving one:

- ``Command(graph=Command.PARENT)`` raises `InvalidUpdateError` "There is no parent graph"
  (a top-level run has none);
- a Command that maps to no write at all (no ``goto``, ``resume`` or ``update``, or empty
  ones: ``Command()``, ``Command(update={})``) raises the ``UnboundLocalError`` LangGraph
  1.2's loop raises there (it reads a flag it only sets for a ``resume``), with its text.
  A program sees that error whatever the graph (a `StateGraph`, a low-level `Pregel`, an
  ``@entrypoint``) and whether or not the thread has a checkpoint; nothing is saved.

``Command(resume=...)`` without a checkpointer is rejected first, with LangGraph's
`RuntimeError`, where the run's setup meets it. `takes_command` tells the setup whether a
Command given to an existing thread goes onto its checkpoint.
"""

from __future__ import annotations

from typing import Any

from superstep_compat._internal._constants import START
from superstep_compat.errors import InvalidUpdateError
from superstep_compat.pregel._checkpoint_tasks import node_of
from superstep_compat.pregel._record import CheckpointRecord
from superstep_compat.pregel._resumer import as_list
from superstep_compat.types import Command
from superstep_core.node import Activated
from superstep_core.runtime import Execution

__all__ = ["check_command_input", "takes_command"]

# LangGraph 1.2's words: Python's own message for the flag its loop reads unset
EMPTY_COMMAND_TEXT = (
    "cannot access local variable 'resume_is_map' where it is not associated with a value"
)


def check_command_input(command: Any, *, has_saver: bool) -> None:
    """Raise LangGraph's error for an input ``command`` it rejects (see the module
    docstring); anything else, a Command or not, passes."""
    if not isinstance(command, Command):
        return
    if command.resume is not None and not has_saver:
        return  # the setup's RuntimeError comes first, as LangGraph's
    if command.graph == Command.PARENT:
        raise InvalidUpdateError("There is no parent graph")
    if not command.goto and command.resume is None and not command.update:
        raise UnboundLocalError(EMPTY_COMMAND_TEXT)


def _stopped(ex: Execution) -> bool:
    """Whether a task waits on its subgraph's breakpoint (no interrupt of its own)."""
    return any(not as_list(value) for _, value in ex.interrupts)


def takes_command(ex: Execution, record: CheckpointRecord) -> bool:
    """Whether a `Command` goes onto (or forks) the checkpoint: nodes' activations wait to
    run, a task waits on its subgraph's breakpoint (`_stopped`), or nothing is left to run
    (a finished thread: its goto's nodes run in that checkpoint's step, as LangGraph's)."""
    if not record.next and not ex.queue and not ex.interrupts and not ex.held:
        return True
    due = (isinstance(event, Activated) and node_of(aid) != START for aid, event in ex.queue)
    return any(due) or _stopped(ex)
