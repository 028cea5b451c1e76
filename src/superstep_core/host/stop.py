"""`StopRequest`: asks a host to end a run at the next superstep boundary (graceful
shutdown, draining a worker), and `RunStopped`, how a run so ended reports it.

A stop is cooperative: the superstep in progress finishes and commits (its effects are
performed and their results delivered, so no completed work is dropped), then no further
superstep starts. The execution stays consistent at its last committed superstep and can be
driven again later (a resumed worker, a new process reading its checkpoint).

Must never import: llm, compat.
"""

from __future__ import annotations

__all__ = ["RunStopped", "StopRequest"]


class StopRequest:
    """A one-way flag a host reads between supersteps (``Host.run(..., stop=request)``).

    `request` may be called from any thread or task, also while an effect is running: the
    flag is one attribute written once per request, read by the host's loop, so it needs
    no lock. A request stays made: use a new `StopRequest` for each run that should start.
    """

    __slots__ = ("_reason",)

    def __init__(self) -> None:
        self._reason: str | None = None

    def request(self, reason: str = "shutdown") -> None:
        """Ask the run to stop at its next superstep boundary; ``reason`` is reported by
        `RunStopped` (a later request replaces the reason of an earlier one)."""
        self._reason = reason

    @property
    def requested(self) -> bool:
        """Whether a stop was requested."""
        return self._reason is not None

    @property
    def reason(self) -> str | None:
        """The reason of the last request, None while none was made."""
        return self._reason


class RunStopped(Exception):
    """Raised by a host's run (`Host.run`/`iterate`, their asyncio twins) that a
    `StopRequest` ended before the execution finished: ``execution_id``, ``reason`` (the
    request's) and ``step`` (the execution's last committed superstep). Drive the same
    execution again to continue it; an execution that had nothing left to run when the
    request was seen finishes normally instead."""

    def __init__(self, execution_id: str, reason: str, step: int) -> None:
        self.execution_id = execution_id
        self.reason = reason
        self.step = step
        super().__init__(
            f"execution {execution_id!r} stopped after superstep {step} ({reason}); "
            f"drive it again to continue"
        )
