"""`langgraph.pregel._checkpoint`: the checkpoint-dict helpers test suites import.

The pure helpers on LangGraph's `Checkpoint` dict shape (``v``, ``id``, ``ts``,
``channel_values``, ``channel_versions``, ``versions_seen``, ``updated_channels``), and the
rules by which a checkpoint stores `DeltaChannel` keys (`pregel._lgdelta_write` applies them:
the bound and the predicate are read from here at each checkpoint, so patching this module's
``DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT`` moves the façade's snapshots as it moves LangGraph's).
How the façade itself builds and stores checkpoints lives in `superstep_compat.checkpoint`.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from superstep_compat.channels.delta import DeltaChannel
from superstep_compat.pregel._checkpoint_tasks import new_checkpoint_id
from superstep_compat.pregel._lgcheckpoint import CURRENT_FORMAT

__all__ = [
    "DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT",
    "copy_checkpoint",
    "delta_channels_to_snapshot",
    "empty_checkpoint",
    "exit_delta_late_task_id",
    "exit_delta_task_id",
]

DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT = int(
    os.getenv("LANGGRAPH_DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT", "5000")
)
"""A `DeltaChannel` key snapshots at the latest after this many saved steps since its last
snapshot, written or not (so a key no step writes any more is not replayed from ever further
back)."""

_NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"


def empty_checkpoint() -> dict[str, Any]:
    """A checkpoint of nothing, as LangGraph's: the current format, a fresh id whose clock
    sequence is step -2, now as its time, no values, versions or reads."""
    return {
        "v": CURRENT_FORMAT,
        "id": new_checkpoint_id(-2),
        "ts": datetime.now(UTC).isoformat(),
        "channel_values": {},
        "channel_versions": {},
        "versions_seen": {},
    }


def exit_delta_task_id(step: int, task_id: str) -> str:
    """The task id under which durability "exit" saves a `DeltaChannel` write of the run's
    first step (or a write of no task): ``task_id`` (a uuid) with its first group replaced by
    ``step``, zero-padded, so a saver's order by task id is the order of the steps. Never the
    id of no task (readers apply writes under that one as the checkpoint's own)."""
    parts = str(uuid.UUID(task_id)).split("-")
    made = f"{step:08d}-{parts[1]}-{parts[2]}-{parts[3]}-{parts[4]}"
    return f"{step:08d}-0000-0000-0000-000000000001" if made == _NULL_TASK_ID else made


def exit_delta_late_task_id(step: int, task_id: str) -> str:
    """The same for a write of a later step: an id that sorts after every real task id, the
    later steps after the earlier ones."""
    parts = str(uuid.UUID(task_id)).split("-")
    return f"ffffffff-{step >> 16:04x}-{step & 0xFFFF:04x}-{parts[3]}-{parts[4]}"


def delta_channels_to_snapshot(
    channels: Mapping[str, Any],
    counters_since_delta_snapshot: Mapping[str, tuple[int, int]],
    channel_versions: Mapping[str, Any],
) -> set[str]:
    """The `DeltaChannel` keys of ``channels`` due a snapshot now: those holding a value and
    a version (a key never written on this branch has nothing to store) whose counters
    ``(updates, supersteps)`` since their last snapshot reach the channel's
    ``snapshot_frequency`` or `DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT`. Other channels are
    skipped. Changes nothing."""
    due: set[str] = set()
    for name, channel in channels.items():
        if (
            not isinstance(channel, DeltaChannel)
            or not channel.is_available()
            or name not in channel_versions
        ):
            continue
        updates, supersteps = counters_since_delta_snapshot.get(name, (0, 0))
        if (
            updates >= channel.snapshot_frequency
            or supersteps >= DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT
        ):
            due.add(name)
    return due


def copy_checkpoint(checkpoint: Any) -> Any:
    """A copy of a LangGraph checkpoint dict whose mutable parts are copied one level deep
    (``channel_values``, ``channel_versions``, each ``versions_seen`` entry), as LangGraph's
    ``copy_checkpoint``: mutating the copy's maps never changes the original."""
    return {
        "v": checkpoint["v"],
        "ts": checkpoint["ts"],
        "id": checkpoint["id"],
        "channel_values": checkpoint["channel_values"].copy(),
        "channel_versions": checkpoint["channel_versions"].copy(),
        "versions_seen": {k: v.copy() for k, v in checkpoint["versions_seen"].items()},
        "updated_channels": checkpoint.get("updated_channels", None),
    }
