"""`BaseCheckpointSaver`: what the façade stores per LangGraph checkpoint, and LangGraph's
saver API over it (`get_tuple`, `list`, `delete_thread`).

A `CheckpointRecord` is one LangGraph checkpoint of one thread and namespace: the state view
at that step (``values``), the tasks due next, metadata, and the engine's resumable
`ExecutionState` (``engine``). Savers store records; everything LangGraph shows
(`StateSnapshot`, history, time travel) is a view of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from superstep_core.runtime import ExecutionState

__all__ = [
    "BaseCheckpointSaver",
    "CheckpointRecord",
    "CheckpointTuple",
    "TaskRecord",
    "config_of",
]


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
    """Stores `CheckpointRecord`s. Subclasses implement `save`, `load`, `records`,
    `delete_thread`; the LangGraph-shaped methods are derived from them."""

    def save(self, record: CheckpointRecord) -> None:
        """Insert ``record``, or replace the record with the same id."""
        raise NotImplementedError

    def load(self, thread_id: str, ns: str, checkpoint_id: str | None) -> CheckpointRecord | None:
        """The record with ``checkpoint_id``, or the thread's latest when ``None``."""
        raise NotImplementedError

    def records(self, thread_id: str, ns: str) -> Sequence[CheckpointRecord]:
        """Every record of a thread and namespace, oldest first."""
        raise NotImplementedError

    def delete_thread(self, thread_id: str) -> None:
        raise NotImplementedError

    # --- LangGraph's saver API -----------------------------------------------------------

    def get_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        conf = config.get("configurable", {})
        record = self.load(
            conf["thread_id"], conf.get("checkpoint_ns", ""), conf.get("checkpoint_id")
        )
        return None if record is None else _as_tuple(record)

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
            yield _as_tuple(record)

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

    # LangGraph savers also answer these; the façade writes through `save`.
    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        raise NotImplementedError("the façade writes checkpoints through save()")

    def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        raise NotImplementedError("the façade writes checkpoints through save()")


def _as_tuple(record: CheckpointRecord) -> CheckpointTuple:
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
        [],
    )
