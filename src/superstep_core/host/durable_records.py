"""The values and errors of durable executions (`superstep_core.host.durable`): the errors a
stored thread raises, the effect ledger on a saver, and what `history` and `replay` report.

Must never import: the llm layer, compat.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from superstep_core.errors import SuperstepError
from superstep_core.host.thread_checkpoints import ThreadCheckpoints
from superstep_core.node import EffectCompleted
from superstep_core.persistence import Codec
from superstep_core.runtime import Execution
from superstep_core.twin import Twin, twins

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
    """The host's `EffectLedger` for one thread: each completed effect's result is recorded
        as a pending write of the thread's latest checkpoint (`ThreadCheckpoints.record_effect`)
        the moment it completes; lookups are answered from memory, seeded with the entries of the
        checkpoint a recovery starts from (``recorded``: key -> result bytes). Results are
        consumed by the next superstep, so the latest checkpoint's entries are all a recovery
        can still need. Safe to call from the host's worker threads; `AsyncHost` awaits
    ``arecord``, which writes through the saver's async methods."""

    def __init__(
        self,
        checkpoints: ThreadCheckpoints,
        codec: Codec,
        recorded: Mapping[str, bytes] | None = None,
    ) -> None:
        self.checkpoints = checkpoints
        self.codec = codec
        self._lock = threading.Lock()
        self._recorded: dict[str, bytes] = dict(recorded or {})

    def recorded(self, effect_id: str) -> EffectCompleted | None:
        with self._lock:
            data = self._recorded.get(effect_id)
        if data is None:
            return None
        value = self.codec.loads(data)
        return value if isinstance(value, EffectCompleted) else None

    def _record(self, completed: EffectCompleted) -> Twin[None]:
        """Record ``completed`` (`EffectLedger.record`; ``arecord``: awaited on the saver's
        async methods, as `AsyncHost` does)."""
        data = self.codec.dumps(completed, completed.effect_id, kind="result of effect")
        with self._lock:
            if completed.effect_id in self._recorded:  # write-once: the first result stays
                return
        yield from self.checkpoints._record_effect(completed.effect_id, data)
        with self._lock:  # known once the saver holds it
            self._recorded.setdefault(completed.effect_id, data)

    record, arecord = twins(_record)


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
