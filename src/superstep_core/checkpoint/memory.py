"""The in-memory `CheckpointStore`: the fake every test can use, and the reference the SQL
stores are checked against. Nothing survives the process.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.persistence.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace

import orjson

from superstep_core.checkpoint.errors import InputLogConflictError, MissingBlobError
from superstep_core.checkpoint.model import (
    Checkpoint,
    LoadedCheckpoint,
    PendingWrite,
    check_put,
    encode_metadata,
    parse_checkpoint_id,
    step_in,
)

__all__ = ["MemoryCheckpointStore"]

_Lane = tuple[str, str]  # (thread_id, namespace)


class MemoryCheckpointStore:
    """A `CheckpointStore` in dicts, guarded by one lock. Metadata is stored as its JSON form
    (so it comes back as the SQL stores return it); every bytes value is kept as given."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._checkpoints: dict[_Lane, dict[int, Checkpoint]] = {}
        self._blobs: dict[tuple[str, str, str, int], bytes] = {}
        self._writes: dict[tuple[str, str, int], dict[str, tuple[PendingWrite, ...]]] = {}
        self._effects: dict[tuple[str, str], bytes] = {}
        self._inputs: dict[str, dict[int, bytes]] = {}

    def put(self, checkpoint: Checkpoint, new_blobs: Mapping[str, bytes]) -> None:
        check_put(checkpoint, new_blobs)
        stored = replace(
            checkpoint,
            metadata=orjson.loads(encode_metadata(checkpoint)),
            versions=dict(checkpoint.versions),
        )
        thread, ns = checkpoint.thread_id, checkpoint.namespace
        with self._lock:
            for channel, value in new_blobs.items():
                key = (thread, ns, channel, checkpoint.versions[channel])
                self._blobs.setdefault(key, bytes(value))
            self._checkpoints.setdefault((thread, ns), {})[checkpoint.step] = stored

    def get(
        self, thread_id: str, namespace: str = "", checkpoint_id: str | None = None
    ) -> LoadedCheckpoint | None:
        with self._lock:
            lane = self._checkpoints.get((thread_id, namespace), {})
            if checkpoint_id is None:
                if not lane:
                    return None
                checkpoint = lane[max(lane)]
            else:
                found = lane.get(step_in(namespace, checkpoint_id))
                if found is None:
                    return None
                checkpoint = found
            values: dict[str, bytes] = {}
            missing: dict[str, int] = {}
            for channel, version in checkpoint.versions.items():
                blob = self._blobs.get((thread_id, namespace, channel, version))
                if blob is None:
                    missing[channel] = version
                else:
                    values[channel] = blob
            tasks = self._writes.get((thread_id, namespace, checkpoint.step), {})
            writes = tuple(w for task in sorted(tasks) for w in tasks[task])
        if missing:
            raise MissingBlobError(thread_id, checkpoint.id, missing)
        return LoadedCheckpoint(checkpoint, values, writes)

    def list(
        self,
        thread_id: str,
        namespace: str | None = None,
        before: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[Checkpoint]:
        below = None if before is None else parse_checkpoint_id(before)[1]
        with self._lock:
            found = [
                checkpoint
                for (thread, ns), lane in self._checkpoints.items()
                if thread == thread_id and (namespace is None or ns == namespace)
                for checkpoint in lane.values()
                if below is None or checkpoint.step < below
            ]
        found.sort(key=lambda c: c.namespace)
        found.sort(key=lambda c: c.step, reverse=True)
        return found if limit is None else found[:limit]

    def put_writes(
        self,
        thread_id: str,
        namespace: str,
        checkpoint_id: str,
        task_id: str,
        writes: Sequence[tuple[str, bytes]],
        effects: Mapping[str, bytes] | None = None,
    ) -> None:
        step = step_in(namespace, checkpoint_id)
        pending = tuple(
            PendingWrite(task_id, index, channel, bytes(value))
            for index, (channel, value) in enumerate(writes)
        )
        with self._lock:
            self._writes.setdefault((thread_id, namespace, step), {})[task_id] = pending
            for key, result in (effects or {}).items():
                self._effects.setdefault((thread_id, key), bytes(result))

    def record_effect(self, thread_id: str, key: str, result: bytes) -> bytes:
        with self._lock:
            return self._effects.setdefault((thread_id, key), bytes(result))

    def get_effect(self, thread_id: str, key: str) -> bytes | None:
        with self._lock:
            return self._effects.get((thread_id, key))

    def append_input(self, thread_id: str, seq: int, data: bytes) -> None:
        with self._lock:
            log = self._inputs.setdefault(thread_id, {})
            if log.setdefault(seq, bytes(data)) != data:
                raise InputLogConflictError(thread_id, seq)

    def read_inputs(self, thread_id: str) -> builtins.list[tuple[int, bytes]]:
        with self._lock:
            return sorted(self._inputs.get(thread_id, {}).items())

    def delete_thread(self, thread_id: str) -> None:
        with self._lock:
            for lane in [k for k in self._checkpoints if k[0] == thread_id]:
                del self._checkpoints[lane]
            for blob in [k for k in self._blobs if k[0] == thread_id]:
                del self._blobs[blob]
            for writes in [k for k in self._writes if k[0] == thread_id]:
                del self._writes[writes]
            for effect in [k for k in self._effects if k[0] == thread_id]:
                del self._effects[effect]
            self._inputs.pop(thread_id, None)

    def close(self) -> None:
        """Nothing to release; kept for the protocol."""
