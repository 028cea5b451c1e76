"""`InMemorySaver` (alias `MemorySaver`): checkpoints kept in this process's memory."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from superstep_compat.checkpoint._plain import lists_for_tuples
from superstep_compat.checkpoint.base import BaseCheckpointSaver, CheckpointRecord, PendingWrite
from superstep_compat.checkpoint.serde import (
    _shallow_copy,
    default_codec,
    encode_writes,
    resolve_codec,
)
from superstep_core.persistence import Codec

__all__ = ["InMemorySaver", "MemorySaver"]

_WritesKey = tuple[str, str, str]  # (thread, namespace, checkpoint id)


class InMemorySaver(BaseCheckpointSaver):
    """Checkpoints in a dict: thread -> namespace -> records, oldest first. Thread-safe.

    Records are kept as objects; pending writes are kept encoded with the codec (``serde``:
    as for `SqliteSaver`; a serializer of another kind is ignored and the default codec used),
    so a task result that a persistent saver would refuse is refused here too, and a saved
    result cannot change when the caller mutates the value afterwards.
    """

    def __init__(self, *, serde: object | None = None) -> None:
        self._threads: dict[str, dict[str, list[CheckpointRecord]]] = {}
        # (thread, namespace, checkpoint id) -> position in its list: saving is O(1)
        self._positions: dict[tuple[str, str, str], int] = {}
        # (thread, namespace, checkpoint id) -> (task id, index) -> (channel, encoded value)
        self._writes: dict[_WritesKey, dict[tuple[str, int], tuple[str, bytes]]] = {}
        self._lock = threading.Lock()
        self.codec: Codec = _codec_for(serde)

    def save(self, record: CheckpointRecord) -> None:
        record = _as_stored(record)
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
            for wkey in [k for k in self._writes if k[0] == thread_id]:
                del self._writes[wkey]

    def save_writes(
        self,
        thread_id: str,
        ns: str,
        checkpoint_id: str,
        task_id: str,
        writes: Sequence[tuple[str, Any]],
        task_path: str = "",
    ) -> None:
        encoded = encode_writes(writes, self.codec)
        with self._lock:
            saved = self._writes.setdefault((thread_id, ns, checkpoint_id), {})
            for index, channel, data in encoded:
                if index >= 0 and (task_id, index) in saved:
                    continue  # a regular write is saved once
                saved[(task_id, index)] = (channel, data)

    def load_writes(self, thread_id: str, ns: str, checkpoint_id: str) -> list[PendingWrite]:
        with self._lock:
            saved = list(self._writes.get((thread_id, ns, checkpoint_id), {}).items())
        loads = self.codec.loads
        return [(task_id, channel, loads(data)) for (task_id, _), (channel, data) in saved]


def _as_stored(record: CheckpointRecord) -> CheckpointRecord:
    """``record`` as a round trip through a serializer gives it back (LangGraph's savers: a
    tuple in state is a list); the record itself when its state holds no tuple."""
    values = lists_for_tuples(record.values)
    engine = record.engine
    engine_values = lists_for_tuples(engine.values) if engine is not None else None
    if values is record.values and (engine is None or engine_values is engine.values):
        return record
    if engine is not None:
        engine = _shallow_copy(engine, values=engine_values)
    return _shallow_copy(record, values=values, engine=engine)


def _codec_for(serde: object | None) -> Codec:
    try:
        return resolve_codec(serde)
    except TypeError:
        return default_codec()


MemorySaver = InMemorySaver
