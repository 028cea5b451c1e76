"""`EntrypointPolicy`: the checkpoints of an `@entrypoint`'s run, as LangGraph writes them.
Its one task runs on its input channel (``__start__``), which its input checkpoint holds
among the state values; the task journal (`TaskJournal`) follows the run's checkpoints and
notes how the entrypoint's own task ended. A checkpoint whose engine state the
entrypoint's rebuild gives back (`_entrypoint_restore`: the call not started yet, or
done) is saved as LangGraph saves it, without the engine's blob; one whose call stopped at
an interrupt keeps it (which interrupt each answer went to).

Never imports the run, the host or the engine's persistence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from superstep_compat.func._entrypoint_restore import entry_restorable
from superstep_compat.func._journal import TaskJournal
from superstep_compat.func._runner import PREVIOUS_CHANNEL, START_CHANNEL
from superstep_compat.pregel._checkpoint_policy import CheckpointPolicy
from superstep_compat.pregel._record import CheckpointRecord
from superstep_core.runtime import Execution, QuietSnapshot

__all__ = ["EntrypointPolicy"]


class EntrypointPolicy(CheckpointPolicy):
    """The checkpoints of a run of the entrypoint named ``node_name`` (the name of its one
    task) whose task calls are saved in ``journal`` (None: the run saves nothing)."""

    lean = True

    def __init__(self, spec: Any, node_name: str, journal: TaskJournal | None) -> None:
        super().__init__(spec)
        self.node_name = node_name
        self.journal = journal

    def triggers_of(self, name: str) -> tuple[str, ...]:
        return (START_CHANNEL,)  # LangGraph's entrypoint runs on its input channel

    def pending_triggers(
        self, ex: Execution, pending: Sequence[tuple[str, str]], start: Any = None
    ) -> dict[str, Any]:
        """The channels a checkpoint holds beside the return value (``__end__``): what the
        next call receives as ``previous`` (``__previous__``), once a call wrote it, as
        LangGraph's checkpoints hold it (LangGraph reads ``previous`` from there). The input
        (``__start__``) is one of the state values (`input_checkpoint`)."""
        if ex.versions.get(PREVIOUS_CHANNEL) and PREVIOUS_CHANNEL in ex.values:
            return {PREVIOUS_CHANNEL: ex.values[PREVIOUS_CHANNEL]}
        return {}

    def input_checkpoint(
        self, next_: tuple[str, ...], values: dict[str, Any], start: Any
    ) -> tuple[tuple[str, ...], dict[str, Any]]:
        return (self.node_name,), {**values, START_CHANNEL: start}

    def restorable(self, record: CheckpointRecord, *, outcomes_saved: bool = False) -> bool:
        """Whether the checkpoint goes without the engine's blob: when the entrypoint's own
        rebuild gives its state back (`entry_restorable`)."""
        return entry_restorable(record, self.node_name)

    def paused_restorable(self, record: CheckpointRecord) -> bool:
        return entry_restorable(record, self.node_name)

    def quiet_restorable(self, record: CheckpointRecord, quiet: QuietSnapshot) -> bool:
        return False  # (the state is taken, and `restorable` decides)

    def checkpointed(self, record: CheckpointRecord | None) -> None:
        if self.journal is not None and record is not None:
            self.journal.attach(record.checkpoint_id, fresh=True)

    def stopped(self, record: CheckpointRecord | None, channel: str, value: Any) -> None:
        """Save how the entrypoint's own task ended (as LangGraph does), and whatever
        durability "exit" held back."""
        journal = self.journal
        if journal is None or record is None:
            return
        name = self.node_name
        for task in record.tasks:
            if task.name == name:
                journal.failure(task.id, name, [(channel, value)])
        journal.flush()
