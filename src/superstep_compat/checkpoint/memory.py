"""`InMemorySaver` (alias `MemorySaver`): checkpoints kept in this process's memory."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from superstep_compat.checkpoint.base import BaseCheckpointSaver, CheckpointRecord

__all__ = ["InMemorySaver", "MemorySaver"]


class InMemorySaver(BaseCheckpointSaver):
    """Checkpoints in a dict: thread -> namespace -> records, oldest first. Thread-safe."""

    def __init__(self, *, serde: object | None = None) -> None:
        self._threads: dict[str, dict[str, list[CheckpointRecord]]] = {}
        # (thread, namespace, checkpoint id) -> position in its list: saving is O(1)
        self._positions: dict[tuple[str, str, str], int] = {}
        self._lock = threading.Lock()

    def save(self, record: CheckpointRecord) -> None:
        with self._lock:
            records = self._threads.setdefault(record.thread_id, {}).setdefault(
                record.checkpoint_ns, []
            )
            key = (record.thread_id, record.checkpoint_ns, record.checkpoint_id)
            at = self._positions.get(key)
            if at is not None:
                records[at] = record
                return
            self._positions[key] = len(records)
            records.append(record)

    def load(self, thread_id: str, ns: str, checkpoint_id: str | None) -> CheckpointRecord | None:
        with self._lock:
            records = self._threads.get(thread_id, {}).get(ns, [])
            if checkpoint_id is None:
                return records[-1] if records else None
            at = self._positions.get((thread_id, ns, checkpoint_id))
            return None if at is None else records[at]

    def records(self, thread_id: str, ns: str) -> Sequence[CheckpointRecord]:
        with self._lock:
            return list(self._threads.get(thread_id, {}).get(ns, []))

    def delete_thread(self, thread_id: str) -> None:
        with self._lock:
            self._threads.pop(thread_id, None)
            for key in [k for k in self._positions if k[0] == thread_id]:
                del self._positions[key]


MemorySaver = InMemorySaver
