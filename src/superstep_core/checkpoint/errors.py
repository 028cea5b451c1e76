"""Errors of the engine's checkpoint savers.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.persistence.
"""

from __future__ import annotations

from superstep_core.errors import SuperstepError

__all__ = ["CheckpointError", "PreviousFormatError"]


class CheckpointError(SuperstepError):
    """Base of the errors the engine's savers raise."""


class PreviousFormatError(CheckpointError):
    """The database holds threads in the format of Superstep's own checkpoint store from
    before the engine stored its executions through LangGraph's checkpoint protocol; this
    version cannot read them (no migration is offered)."""

    def __init__(self, where: str, tables: str = "checkpoints, blobs, writes, effects, inputs"):
        self.where = where
        super().__init__(
            f"{where} holds threads in Superstep's previous checkpoint format (tables "
            f"{tables}), which this version cannot read: finish them with the previous "
            f"release, or move the database aside and start a new one"
        )
