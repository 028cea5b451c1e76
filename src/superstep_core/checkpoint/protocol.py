"""The one seam between the engine and durable storage: `CheckpointStore`.

Every store (memory, SQLite, PostgreSQL) passes the same contract suite. A store never interprets
the bytes it is given: values, headers, writes, effect results and inputs are encoded by the
caller (with ``superstep_core.persistence.Codec``) and come back unchanged.

Cost model: ``put`` writes one checkpoint row (its versions map is small: channel -> int) plus one
blob row per entry of ``new_blobs``, so a superstep costs O(changed channels) in value bytes.
Every write operation is idempotent (upserts), so repeating it after a crash is harmless.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.persistence.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from superstep_core.checkpoint.model import Checkpoint, LoadedCheckpoint

__all__ = ["CheckpointStore"]


@runtime_checkable
class CheckpointStore(Protocol):
    """Durable checkpoints, pending writes, effect ledger and input log of threads.

    Thread ids and namespaces are strings (namespace ``""`` is the root graph); checkpoint ids
    are the derived ids of `checkpoint_id`. Methods raise ``ValueError`` for malformed arguments
    and `CheckpointError` subclasses for inconsistent stored data. Stores are safe to share
    between threads of one process; the SQLite and PostgreSQL stores also between processes.
    """

    def put(self, checkpoint: Checkpoint, new_blobs: Mapping[str, bytes]) -> None:
        """Commit ``checkpoint`` and the values of the channels whose version changed in it.

        ``new_blobs``: channel -> value bytes, each stored under
        ``(thread, namespace, channel, checkpoint.versions[channel])``; channels whose version
        did not change must be left out (their stored value is reused). One transaction. A
        second ``put`` of the same step replaces the checkpoint row and keeps existing blobs.
        Raises ``ValueError`` when a blob's channel has no version, or metadata is not JSON-able.
        """
        ...

    def get(
        self, thread_id: str, namespace: str = "", checkpoint_id: str | None = None
    ) -> LoadedCheckpoint | None:
        """The checkpoint ``checkpoint_id`` (the latest one when ``None``) with its channel
        values and pending writes, or ``None`` when there is no such checkpoint. Raises
        `MissingBlobError` when a channel version's value was never stored, ``ValueError`` when
        the id is malformed or belongs to another namespace."""
        ...

    def list(
        self,
        thread_id: str,
        namespace: str | None = None,
        before: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[Checkpoint]:
        """Checkpoints of a thread, newest first (by step; ties by namespace), without values.

        ``namespace=None`` lists every namespace; ``before`` keeps only steps lower than that
        checkpoint id's step; ``limit`` caps the count (``None``: all).
        """
        ...

    def put_writes(
        self,
        thread_id: str,
        namespace: str,
        checkpoint_id: str,
        task_id: str,
        writes: Sequence[tuple[str, bytes]],
        effects: Mapping[str, bytes] | None = None,
    ) -> None:
        """Record one task's writes (``(channel, value bytes)`` in order) made on top of
        ``checkpoint_id`` during a superstep in progress, replacing that task's earlier writes
        there. ``effects`` (idempotency key -> result bytes) are recorded in the ledger in the
        same transaction, as `record_effect` would."""
        ...

    def record_effect(self, thread_id: str, key: str, result: bytes) -> bytes:
        """Record the result of the completed effect ``key`` and return the ledger's result for
        it: the ledger is write-once, so if ``key`` was already recorded the first result is kept
        and returned (replay it instead of ``result``)."""
        ...

    def get_effect(self, thread_id: str, key: str) -> bytes | None:
        """The recorded result of effect ``key``, or ``None`` when it never completed."""
        ...

    def append_input(self, thread_id: str, seq: int, data: bytes) -> None:
        """Append input ``seq`` (an int, increasing) to the thread's input log. Appending the
        same bytes at the same ``seq`` again does nothing; different bytes raise
        `InputLogConflictError`."""
        ...

    def read_inputs(self, thread_id: str) -> builtins.list[tuple[int, bytes]]:
        """The thread's input log as ``(seq, bytes)`` pairs in ``seq`` order."""
        ...

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, blob, pending write, effect and input of the thread (every
        namespace). Deleting an unknown thread does nothing."""
        ...

    def close(self) -> None:
        """Release connections. The store must not be used afterwards."""
        ...
