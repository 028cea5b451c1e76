"""Errors of the engine. Each names what is wrong and where (node, edge, channel, cycle).

Must never import anything else of superstep_core.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "ChannelConflictError",
    "ExecutionFailedError",
    "GraphValidationError",
    "StaleResumeError",
    "SuperstepError",
    "SuperstepLimitError",
    "UndeclaredChannelError",
    "UnknownInterruptError",
]


class SuperstepError(Exception):
    """Base of every error the engine raises."""


class GraphValidationError(SuperstepError):
    """The graph definition is invalid; raised by ``Graph.compile()`` before anything runs."""


class ChannelConflictError(SuperstepError):
    """A last-value channel got more than one write in one superstep."""

    def __init__(self, channel: str, writers: Sequence[str]) -> None:
        self.channel = channel
        self.writers = tuple(writers)
        super().__init__(
            f"channel {channel!r} received {len(writers)} writes in one superstep "
            f"(from {', '.join(writers)}); a last-value channel takes one write per superstep: "
            f"give it a reducer or let a single node write it"
        )


class UndeclaredChannelError(SuperstepError):
    """A node wrote a channel the graph does not declare."""

    def __init__(
        self, node: str, channel: str, declared: Sequence[str], *, node_writes: bool = False
    ) -> None:
        self.node = node
        self.channel = channel
        if node_writes:  # the graph has the channel; the node did not list it in writes=
            message = (
                f"node {node!r} wrote channel {channel!r}, which is not among the channels it "
                f"declares it writes ({', '.join(sorted(declared)) or 'none'}); add it to "
                f"add_node({node!r}, ..., writes=[...])"
            )
        else:
            message = (
                f"node {node!r} wrote channel {channel!r}, which is not declared in the graph; "
                f"declared channels: {', '.join(sorted(declared)) or '(none)'}"
            )
        super().__init__(message)


class SuperstepLimitError(SuperstepError):
    """A host drove an execution past its ``max_supersteps`` (a cycle with no exit?). The
    execution is left consistent at its last committed superstep."""


class StaleResumeError(SuperstepError):
    """A resume was based on a state version the execution has moved past; nothing changed."""


class UnknownInterruptError(SuperstepError):
    """A resume named an activation that is not suspended."""


class ExecutionFailedError(SuperstepError):
    """An execution ended Failed; ``failure`` says which node failed and why. The execution's
    last committed superstep is kept, so it can be inspected and resumed."""

    def __init__(self, node: str, activation_id: str, message: str, error_type: str) -> None:
        self.node = node
        self.activation_id = activation_id
        self.error_type = error_type
        super().__init__(f"node {node!r} ({activation_id}) failed: {error_type}: {message}")
