"""`langgraph.errors`: LangGraph's exception hierarchy, messages and error codes.

Control-flow exceptions (`GraphBubbleUp` and subclasses) are raised inside nodes by
`interrupt()` and `Command(graph=Command.PARENT)`; the executor catches them.
Must never import: the engine's runtime or host.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal

from superstep_compat.warnings import LangGraphDeprecatedSinceV10

try:
    # A channel read before anything was written to it: LangGraph's own class, the
    # checkpoint protocol's (one class whichever module a caller catches it from)
    from langgraph.checkpoint.base import EmptyChannelError
except ImportError:  # a stand-in `langgraph.checkpoint` without the protocol's base module

    class EmptyChannelError(Exception):  # type: ignore[no-redef]
        """A channel was read before anything was written to it."""


if TYPE_CHECKING:
    from superstep_compat.types import Command, Interrupt

__all__ = (
    "EmptyChannelError",
    "EmptyInputError",
    "ErrorCode",
    "GraphBubbleUp",
    "GraphDrained",
    "GraphInterrupt",
    "GraphRecursionError",
    "InvalidUpdateError",
    "NodeCancelledError",
    "NodeError",
    "NodeInterrupt",
    "NodeTimeoutError",
    "ParentCommand",
    "TaskNotFound",
    "UnknownInterruptError",
    "create_error_message",
    "is_invalid_resume",
)

_TROUBLESHOOTING = "https://docs.langchain.com/oss/python/langgraph/errors/"


class ErrorCode(Enum):
    """Codes that name a troubleshooting page; `create_error_message` appends its URL."""

    GRAPH_RECURSION_LIMIT = "GRAPH_RECURSION_LIMIT"
    INVALID_CONCURRENT_GRAPH_UPDATE = "INVALID_CONCURRENT_GRAPH_UPDATE"
    INVALID_GRAPH_NODE_RETURN_VALUE = "INVALID_GRAPH_NODE_RETURN_VALUE"
    MULTIPLE_SUBGRAPHS = "MULTIPLE_SUBGRAPHS"
    INVALID_CHAT_HISTORY = "INVALID_CHAT_HISTORY"


def create_error_message(*, message: str, error_code: ErrorCode) -> str:
    """``message`` followed by a line with the troubleshooting URL of ``error_code``."""
    return f"{message}\nFor troubleshooting, visit: {_TROUBLESHOOTING}{error_code.value}"


class GraphRecursionError(RecursionError):
    """The run used up its `recursion_limit` steps without reaching a stop condition."""


class InvalidUpdateError(Exception):
    """A node's update cannot be applied: a second write to a last-value key in one step, a
    return value that is not a dict, or a bad `update_state`."""


class GraphBubbleUp(Exception):
    """Base of the control-flow exceptions that travel up through nodes to the executor."""


class GraphInterrupt(GraphBubbleUp):
    """Raised by `interrupt()` inside a node; carries the `Interrupt`s to surface."""

    def __init__(self, interrupts: Sequence[Interrupt[Any]] = ()) -> None:
        super().__init__(interrupts)


class NodeInterrupt(GraphInterrupt):
    """Deprecated: raise it in a node to interrupt with ``value``. Use `interrupt()` instead."""

    def __init__(self, value: Any, id: str | None = None) -> None:
        from superstep_compat.types import Interrupt

        warnings.warn(
            "NodeInterrupt is deprecated. Please use `langgraph.types.interrupt` instead.",
            LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        if id is None:
            super().__init__([Interrupt(value=value)])
        else:
            super().__init__([Interrupt(value=value, id=id)])


class ParentCommand(GraphBubbleUp):
    """Carries a `Command(graph=Command.PARENT)` from a subgraph to the graph containing it."""

    args: tuple[Command[Any]]

    def __init__(self, command: Command[Any]) -> None:
        super().__init__(command)


class GraphDrained(GraphBubbleUp):
    """The run stopped at a superstep boundary because a drain was requested; resumable."""

    def __init__(self, reason: str = "shutdown") -> None:
        self.reason = reason
        super().__init__(f"Graph drained: {reason}")


class EmptyInputError(Exception):
    """The graph was invoked with no input and there is no checkpoint to continue from."""


class TaskNotFound(Exception):
    """The executor could not find a task (distributed mode)."""


class NodeTimeoutError(Exception):
    """A node exceeded its run or idle timeout. Not a `TimeoutError` (an `OSError`), so the
    default retry policy retries it."""

    def __init__(
        self,
        node: str,
        elapsed: float,
        *,
        kind: Literal["idle", "run"],
        idle_timeout: float | None = None,
        run_timeout: float | None = None,
    ) -> None:
        timeout = idle_timeout if kind == "idle" else run_timeout
        self.timeout = timeout
        self.node = node
        self.elapsed = elapsed
        self.kind = kind
        self.idle_timeout = idle_timeout
        self.run_timeout = run_timeout
        limit = f"{timeout:.3f}s" if timeout is not None else "?"
        progress = " without making progress" if kind == "idle" else ""
        super().__init__(
            f"Node '{node}' exceeded its {kind} timeout of {limit}{progress} "
            f"(elapsed: {elapsed:.3f}s)."
        )


class NodeCancelledError(Exception):
    """A node body raised `asyncio.CancelledError` itself; reported as a node failure."""

    def __init__(self, node: str, message: str | None = None) -> None:
        self.node = node
        super().__init__(message or f"Node '{node}' raised asyncio.CancelledError")


@dataclass(frozen=True)
class NodeError:
    """What a node-level error handler receives: the failed node and its exception."""

    node: str
    error: BaseException


class UnknownInterruptError(Exception):
    """A resume does not match the pending interrupts (strict resume mode); ``reason`` says
    how: ``not_pending``, ``empty_map`` or ``ambiguous``."""

    def __init__(
        self,
        message: str,
        *,
        reason: Literal["not_pending", "empty_map", "ambiguous"],
        interrupt_ids: Sequence[str] = (),
        pending_ids: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.interrupt_ids = tuple(interrupt_ids)
        self.pending_ids = tuple(pending_ids)


_INVALID_RESUME_ATTR = "__superstep_invalid_resume__"


def mark_invalid_resume(error: BaseException) -> BaseException:
    """Flag ``error`` as caused by a resume value that failed validation."""
    setattr(error, _INVALID_RESUME_ATTR, True)
    return error


def is_invalid_resume(error: BaseException) -> bool:
    """Whether ``error`` was raised because a resume value failed its response schema."""
    return bool(getattr(error, _INVALID_RESUME_ATTR, False))


def one_overwrite_error() -> InvalidUpdateError:
    """LangGraph's error for a second `Overwrite` of one channel in a superstep: the message
    with the INVALID_CONCURRENT_GRAPH_UPDATE troubleshooting link, as every LangGraph channel
    that takes an Overwrite words it."""
    return InvalidUpdateError(
        create_error_message(
            message="Can receive only one Overwrite value per super-step.",
            error_code=ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE,
        )
    )


# --- the classes' module under the shim ---------------------------------------------------
#
# Under the shim ``langgraph.errors`` *is* this module, and LangGraph's classes say so: what
# a user sees of an exception's class (``str(type(e))``, a traceback's last line, the name
# pickle writes) names ``langgraph.errors``. They carry that name while the shim is
# installed (`superstep_compat.shim.install` calls `as_langgraph`, and so does importing
# this module once it is), and this module's own name otherwise, so that pickling them
# without the shim finds them where they are.

_OWN_MODULE = __name__
_LANGGRAPH_MODULE = "langgraph.errors"


def as_langgraph(on: bool) -> None:
    """Name this module's classes ``langgraph.errors`` (``on``) or this module again."""
    for value in list(globals().values()):
        if isinstance(value, type) and value.__module__ in (_OWN_MODULE, _LANGGRAPH_MODULE):
            value.__module__ = _LANGGRAPH_MODULE if on else _OWN_MODULE


def _shim_installed() -> bool:
    """Whether the shim's finder is installed and aliases ``langgraph.errors`` to this."""
    import sys

    from superstep_compat.shim import LangGraphAliasFinder  # stdlib only: no cycle

    for finder in sys.meta_path:
        if isinstance(finder, LangGraphAliasFinder):
            return "errors" not in finder.real
    return False


if _shim_installed():
    as_langgraph(True)
