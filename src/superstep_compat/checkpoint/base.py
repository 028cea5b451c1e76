"""`BaseCheckpointSaver`: what the façade stores per LangGraph checkpoint, and LangGraph's
saver API over it (`get_tuple`, `list`, `put_writes`, `delete_thread`).

A `CheckpointRecord` is one LangGraph checkpoint of one thread and namespace: the state view
at that step (``values``), the tasks due next, metadata, and the engine's resumable
`ExecutionState` (``engine``). Savers store records; everything LangGraph shows
(`StateSnapshot`, history, time travel) is a view of them.

Pending writes are what a task wrote while a step was in progress, saved the moment the task
finished, against the checkpoint the step started from: the functional API saves each
finished `@task` call's result there (channel ``__return__``; ``__error__`` and
``__interrupt__`` for a failed or interrupted call), so a run that dies mid-step does not
redo those calls when it is continued. A new checkpoint starts with none. As in LangGraph,
a task's regular writes are kept once (the first save wins: a retried save changes nothing)
and its special writes (`SPECIAL_WRITES`: error, interrupt, ...) are replaced.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from superstep_core.runtime import ExecutionState

__all__ = [
    "SPECIAL_WRITES",
    "BaseCheckpointSaver",
    "CheckpointRecord",
    "CheckpointTuple",
    "PendingWrite",
    "TaskRecord",
    "config_of",
    "write_index",
]

PendingWrite = tuple[str, str, Any]
"""One pending write: (task id, channel, value)."""

SPECIAL_WRITES: Mapping[str, int] = {
    "__error__": -1,
    "__scheduled__": -2,
    "__interrupt__": -3,
    "__resume__": -4,
}
"""Channels of which a task has at most one write, replaced when saved again; the number is
its fixed index among the task's writes (LangGraph's ``WRITES_IDX_MAP``)."""


def write_index(channel: str, position: int) -> int:
    """Where a write goes among its task's writes: a special channel's fixed (negative)
    index, or its position in the batch saved."""
    return SPECIAL_WRITES.get(channel, position)


@dataclass
class TaskRecord:
    """A task of a checkpoint: pending (no result), finished, failed or interrupted."""

    id: str
    name: str
    path: tuple[Any, ...] = ("__pregel_pull", "")
    error: str | None = None
    interrupts: tuple[Any, ...] = ()
    result: Any = None
    state_ns: str = ""  # the checkpoint namespace of a subgraph this task runs
    key: str = ""  # the engine activation that runs it (empty: not numbered yet)


@dataclass
class CheckpointRecord:
    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_id: str | None
    step: int
    source: str
    values: dict[str, Any]
    next: tuple[str, ...]
    tasks: list[TaskRecord] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""
    engine: ExecutionState | None = None
    interrupts: tuple[Any, ...] = ()
    ran: tuple[str, ...] = ()
    # A step that did not finish (interrupted or failed): the ids of its tasks that did, and
    # the values with their writes applied (what LangGraph's live `get_state` shows).
    finished: tuple[str, ...] = ()
    current_values: dict[str, Any] | None = None


class CheckpointTuple(NamedTuple):
    """LangGraph's `CheckpointTuple` shape, for code that reads a saver directly."""

    config: dict[str, Any]
    checkpoint: dict[str, Any]
    metadata: dict[str, Any]
    parent_config: dict[str, Any] | None = None
    pending_writes: list[tuple[str, str, Any]] | None = None


def config_of(thread_id: str, ns: str, checkpoint_id: str | None) -> dict[str, Any]:
    """A checkpoint's config: ``{"configurable": {thread_id, checkpoint_ns, checkpoint_id}}``."""
    configurable: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": ns}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


class BaseCheckpointSaver:
    """Stores `CheckpointRecord`s and pending writes. Subclasses implement `save`, `load`,
    `records`, `delete_thread`, `save_writes`, `load_writes`; the LangGraph-shaped methods
    are derived from them. A saver without `save_writes` still works: finished task calls
    are then kept only in memory until the step ends (see `keeps_writes`)."""

    def save(self, record: CheckpointRecord) -> None:
        """Insert ``record``, or replace the record with the same id."""
        raise NotImplementedError

    def save_many(self, records: Sequence[CheckpointRecord]) -> None:
        """`save` each of ``records`` in order; a store with transactions saves them in one
        (a step updates its parent's task results and adds its own checkpoint at once)."""
        for record in records:
            self.save(record)

    def load(self, thread_id: str, ns: str, checkpoint_id: str | None) -> CheckpointRecord | None:
        """The record with ``checkpoint_id``, or the thread's latest when ``None``."""
        raise NotImplementedError

    def records(self, thread_id: str, ns: str) -> Sequence[CheckpointRecord]:
        """Every record of a thread and namespace, oldest first."""
        raise NotImplementedError

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint and pending write of the thread (all namespaces)."""
        raise NotImplementedError

    def save_writes(
        self,
        thread_id: str,
        ns: str,
        checkpoint_id: str,
        task_id: str,
        writes: Sequence[tuple[str, Any]],
        task_path: str = "",
    ) -> None:
        """Save one task's ``writes`` ((channel, value) pairs) as pending writes of the
        checkpoint ``checkpoint_id``, durably before returning. A regular write already saved
        for the task at the same index is kept; a special one (`SPECIAL_WRITES`) is
        replaced. Values are encoded with the saver's codec: a value it cannot hold raises
        `UnsupportedTypeError` naming the channel, and nothing of the batch is saved."""
        raise NotImplementedError(f"{type(self).__name__} does not keep pending writes")

    def load_writes(self, thread_id: str, ns: str, checkpoint_id: str) -> list[PendingWrite]:
        """The pending writes of a checkpoint, in the order they were first saved."""
        return []

    @property
    def keeps_writes(self) -> bool:
        """Whether this saver implements `save_writes` (every saver of this package does)."""
        return type(self).save_writes is not BaseCheckpointSaver.save_writes

    # --- LangGraph's saver API -----------------------------------------------------------

    def get_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        conf = config.get("configurable", {})
        record = self.load(
            conf["thread_id"], conf.get("checkpoint_ns", ""), conf.get("checkpoint_id")
        )
        return None if record is None else self._as_tuple(record)

    def get(self, config: Mapping[str, Any]) -> dict[str, Any] | None:
        found = self.get_tuple(config)
        return None if found is None else found.checkpoint

    def list(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Checkpoints newest first, optionally filtered by metadata and paged."""
        if config is None:
            return
        conf = config.get("configurable", {})
        for record in self.history(
            conf["thread_id"],
            conf.get("checkpoint_ns", ""),
            filter=filter,
            before=before,
            limit=limit,
        ):
            yield self._as_tuple(record)

    def _as_tuple(self, record: CheckpointRecord) -> CheckpointTuple:
        writes = self.load_writes(record.thread_id, record.checkpoint_ns, record.checkpoint_id)
        return _as_tuple(record, writes)

    def history(
        self,
        thread_id: str,
        ns: str = "",
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointRecord]:
        before_id = (before or {}).get("configurable", {}).get("checkpoint_id")
        count = 0
        for record in reversed(self.records(thread_id, ns)):
            if before_id is not None and record.checkpoint_id >= before_id:
                continue
            if filter and any(record.metadata.get(k) != v for k, v in filter.items()):
                continue
            if limit is not None and count >= limit:
                return
            count += 1
            yield record

    # LangGraph savers also answer this; the façade writes checkpoints through `save`.
    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        raise NotImplementedError("the façade writes checkpoints through save()")

    def put_writes(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """LangGraph's ``put_writes``: save ``writes`` of task ``task_id`` against the
        checkpoint ``config`` names (``thread_id``, ``checkpoint_ns``, ``checkpoint_id``)."""
        conf = config.get("configurable", {})
        checkpoint_id = conf.get("checkpoint_id")
        if not checkpoint_id:
            raise ValueError(
                "put_writes needs the checkpoint the writes belong to: "
                "config['configurable']['checkpoint_id'] is missing"
            )
        self.save_writes(
            conf["thread_id"],
            conf.get("checkpoint_ns", ""),
            checkpoint_id,
            task_id,
            list(writes),
            task_path,
        )


def _as_tuple(record: CheckpointRecord, writes: list[PendingWrite]) -> CheckpointTuple:
    checkpoint = {
        "v": 4,
        "id": record.checkpoint_id,
        "ts": record.created_at,
        "channel_values": dict(record.values),
        "channel_versions": {},
        "versions_seen": {},
        "updated_channels": None,
    }
    parent = (
        None
        if record.parent_id is None
        else config_of(record.thread_id, record.checkpoint_ns, record.parent_id)
    )
    return CheckpointTuple(
        config_of(record.thread_id, record.checkpoint_ns, record.checkpoint_id),
        checkpoint,
        dict(record.metadata),
        parent,
        writes,
    )
