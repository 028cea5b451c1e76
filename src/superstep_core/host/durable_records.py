"""The values and errors of durable executions (`superstep_core.host.durable`): the errors a
stored thread raises, the effect ledger on a store, and what `history` and `replay` report.

Must never import: the llm layer, compat.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from superstep_core.checkpoint import CheckpointStore
from superstep_core.errors import SuperstepError
from superstep_core.node import EffectCompleted
from superstep_core.persistence import Codec
from superstep_core.runtime import Execution

__all__ = [
    "HistoryEntry",
    "PermissionDeniedError",
    "RecoveryError",
    "ReplayReport",
    "StoreLedger",
    "UnknownThreadError",
]


class UnknownThreadError(SuperstepError, LookupError):
    """The store has no checkpoint for the thread (or checkpoint) named."""


class PermissionDeniedError(SuperstepError, PermissionError):
    """An edit by an actor outside the allow-list, or of a channel the actor may not write."""


class RecoveryError(SuperstepError):
    """A stored thread cannot be continued: it belongs to another graph, or an awaited effect
    can be neither replayed from the ledger nor performed again."""


class StoreLedger:
    """The host's `EffectLedger` on a store's effect ledger, for one thread."""

    def __init__(self, store: CheckpointStore, thread_id: str, codec: Codec) -> None:
        self.store = store
        self.thread_id = thread_id
        self.codec = codec

    def recorded(self, effect_id: str) -> EffectCompleted | None:
        data = self.store.get_effect(self.thread_id, effect_id)
        if data is None:
            return None
        value = self.codec.loads(data)
        return value if isinstance(value, EffectCompleted) else None

    def record(self, completed: EffectCompleted) -> None:
        data = self.codec.dumps(completed, completed.effect_id, kind="result of effect")
        self.store.record_effect(self.thread_id, completed.effect_id, data)


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One stored checkpoint of a thread, as `history` lists it. ``source``: ``"input"``
    (the start), ``"loop"`` (a superstep), ``"edit"`` (an audited edit), ``"fork"``.
    A superstep that failed is listed too, after the checkpoint it failed on
    (``checkpoint_id``), with status ``"failed"`` and ``failure`` saying which node failed
    and why: it committed nothing."""

    step: int
    checkpoint_id: str
    source: str
    status: str
    written: tuple[str, ...]
    actor: str | None = None
    permission: Any = None
    timestamp: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    failure: str | None = None


@dataclass(slots=True)
class ReplayReport:
    """What `DurableRunner.replay` found: ``matched`` when every stored checkpoint equals the
    replayed execution at that superstep (state and trace digest); ``mismatches`` says where
    not."""

    matched: bool
    inputs: int
    checkpoints: int
    mismatches: list[str]
    execution: Execution | None
