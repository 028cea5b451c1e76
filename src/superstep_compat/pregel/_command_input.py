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
`RuntimeError`, where the run's setup meets it.
"""

from __future__ import annotations

from typing import Any

from superstep_compat.errors import InvalidUpdateError
from superstep_compat.types import Command

__all__ = ["check_command_input"]

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
