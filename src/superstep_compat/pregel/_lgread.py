"""Reading LangGraph checkpoints back as the façade's `CheckpointRecord`s: a checkpoint tuple
from any `BaseCheckpointSaver` (``get_tuple``, ``list``) with its pending writes applied
(task results, errors, interrupts, writes of no task), and the engine state that rides in
``__superstep_facade__`` taken from its blob when its stamp matches (else `_lgrestore`
rebuilds it). The writing side is `_lgcheckpoint`.

Never imports the host or the engine's persistence stores.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

from superstep_compat.pregel._lgblob import record_from_blob
from superstep_compat.pregel._lgcheckpoint import (
    BRANCH_PREFIX,
    ENGINE_CHANNEL,
    ERROR,
    INTERRUPT,
    NO_WRITES,
    TASKS,
    is_state_channel,
    triggers_of,
)
from superstep_compat.pregel._record import CheckpointRecord, PendingWrite, config_of
from superstep_compat.pregel._saver_bridge import saver_call as _call
from superstep_compat.pregel._saver_bridge import saver_list as _list
from superstep_core.persistence import ForeignSerializer

__all__ = [
    "apply_pending",
    "get_tuple",
    "list_records",
    "load_record",
    "pending_writes",
    "record_of",
]


def pending_writes(
    saver: BaseCheckpointSaver[Any], thread_id: str, ns: str, checkpoint_id: str
) -> list[PendingWrite]:
    """The pending writes of one checkpoint, in the saver's order."""
    found = get_tuple(saver, config_of(thread_id, ns, checkpoint_id))
    return list(found.pending_writes or []) if found is not None else []


def get_tuple(saver: BaseCheckpointSaver[Any], config: Mapping[str, Any]) -> CheckpointTuple | None:
    """``saver.get_tuple(config)`` (see `_call`)."""
    found: CheckpointTuple | None = _call(saver, "get_tuple", config)
    return found


# --- reading ----------------------------------------------------------------------------------


def load_record(
    saver: BaseCheckpointSaver[Any],
    thread_id: str,
    ns: str,
    checkpoint_id: str | None,
    state_channels: Sequence[str] | None = None,
) -> CheckpointRecord | None:
    """The record of checkpoint ``checkpoint_id`` (the thread's latest when None)."""
    found = get_tuple(saver, config_of(thread_id, ns, checkpoint_id))
    return None if found is None else record_of(found, state_channels, saver.serde)


def list_records(
    saver: BaseCheckpointSaver[Any],
    thread_id: str,
    ns: str = "",
    *,
    filter: Mapping[str, Any] | None = None,
    before: Mapping[str, Any] | None = None,
    limit: int | None = None,
    state_channels: Sequence[str] | None = None,
    checkpoint_id: str | None = None,
) -> Iterator[CheckpointRecord]:
    """The thread's records newest first (``list``'s filters and paging); with
    ``checkpoint_id``, only that checkpoint (the saver's ``list`` of a config naming one, as
    LangGraph's ``get_state_history`` of such a config lists)."""
    for found in _list(
        saver,
        config_of(thread_id, ns, checkpoint_id),
        filter=dict(filter) if filter else None,
        before=before,
        limit=limit,
    ):
        yield record_of(found, state_channels, saver.serde)


def record_of(
    found: CheckpointTuple,
    state_channels: Sequence[str] | None = None,
    serde: ForeignSerializer | None = None,
) -> CheckpointRecord:
    """The record of one `CheckpointTuple`. A checkpoint Superstep wrote comes back exactly
    (its engine state included); one LangGraph wrote has ``engine`` None and no tasks: the
    caller rebuilds them from the graph (see `_lgrestore`)."""
    checkpoint = found.checkpoint
    conf = found.config["configurable"]
    all_values = checkpoint["channel_values"]
    metadata: dict[str, Any] = dict(found.metadata or {})
    parent = found.parent_config
    parent_id = parent["configurable"].get("checkpoint_id") if parent else None
    record = None
    blob = all_values.get(ENGINE_CHANNEL)
    if blob is not None:
        record = record_from_blob(blob, checkpoint["id"], all_values, serde)
        if record is not None:
            # the saver's row names the thread: a checkpoint copied to another thread
            # (``copy_thread``) carries the engine state written under the first one
            record.thread_id = conf["thread_id"]
            record.checkpoint_ns = conf.get("checkpoint_ns", "")
    if record is None:
        if state_channels is not None:
            values = {k: all_values[k] for k in state_channels if k in all_values}
        else:
            values = {k: v for k, v in all_values.items() if is_state_channel(k)}
        record = CheckpointRecord(
            thread_id=conf["thread_id"],
            checkpoint_ns=conf.get("checkpoint_ns", ""),
            checkpoint_id=checkpoint["id"],
            parent_id=parent_id,
            step=int(metadata.get("step", -1)),
            source=str(metadata.get("source", "loop")),
            values=values,
            next=(),
            created_at=checkpoint.get("ts", ""),
        )
    record.metadata = metadata
    record.parent_id = parent_id
    record.triggers = triggers_of(all_values, record.values)
    record.checkpoint = dict(checkpoint)
    record.pending = list(found.pending_writes or [])
    apply_pending(record, record.pending)
    return record


def apply_pending(record: CheckpointRecord, pending: Sequence[PendingWrite]) -> None:
    """Set each task's result, error and interrupts from the checkpoint's pending writes."""
    by_task: dict[str, list[tuple[str, Any]]] = {}
    for task_id, channel, value in pending:
        by_task.setdefault(task_id, []).append((channel, value))
    for task in record.tasks:
        writes = by_task.get(task.id)
        if not writes:
            continue
        result: dict[str, Any] = {}
        done = False
        for channel, value in writes:
            if channel == ERROR:
                task.error = task.error or _error_text(value)
            elif channel == INTERRUPT:
                task.interrupts = task.interrupts or tuple(value)
            elif channel == NO_WRITES:
                done = True
            elif is_state_channel(channel) and not channel.startswith("__"):
                result[channel] = value
                done = True
            elif channel.startswith(BRANCH_PREFIX) or channel == TASKS:
                done = True
        if done and task.result is None and result:
            task.result = result


def _error_text(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)
