"""The seam between the façade's task-scoped functions and the executor that runs a task.

`interrupt()` and `push_message()` are public names whose behaviour needs the running task.
The executor binds a `TaskContext` around each node call with `bind_task_context`; outside a
run `current_task_context()` raises the RuntimeError LangGraph raises outside a runnable
context. This module imports nothing from the engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

__all__ = [
    "OUTSIDE_RUN_MESSAGE",
    "TaskContext",
    "bind_task_context",
    "current_task_context",
    "task_context_var",
]

OUTSIDE_RUN_MESSAGE = "Called get_config outside of a runnable context"


class TaskContext(Protocol):
    """What the executor provides to task-scoped functions while a node runs."""

    def interrupt(self, value: Any, response_schema: Any) -> Any:
        """Return the resume value for this call, or raise `GraphInterrupt` to suspend."""
        ...

    def push_message(self, message: Any, state_key: str | None) -> None:
        """Emit ``message`` on the messages stream and, with ``state_key``, write it there."""
        ...


task_context_var: ContextVar[TaskContext | None] = ContextVar(
    "superstep_compat_task_context", default=None
)


def current_task_context() -> TaskContext:
    """The context of the running task; RuntimeError outside a run."""
    ctx = task_context_var.get()
    if ctx is None:
        raise RuntimeError(OUTSIDE_RUN_MESSAGE)
    return ctx


@contextmanager
def bind_task_context(ctx: TaskContext) -> Iterator[TaskContext]:
    """Make ``ctx`` the current task context for the duration of the block."""
    token = task_context_var.set(ctx)
    try:
        yield ctx
    finally:
        task_context_var.reset(token)
