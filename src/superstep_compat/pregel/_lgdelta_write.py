"""How the façade stores `DeltaChannel` keys: LangGraph 1.2's format, written.

LangGraph keeps such a key out of a checkpoint's ``channel_values`` except now and then, when
it stores the whole value as a ``_DeltaSnapshot`` blob; in between, the value is the nearest
ancestor's snapshot folded with the pending writes saved since (read back by `_lgdelta`).
When it snapshots (LangGraph's ``_loop._put_checkpoint`` / ``create_checkpoint``):

- every saved checkpoint moves each key's counters ``(updates, supersteps)`` on (``updates``
  only when the key changed in that step); a key with a version snapshots when ``updates``
  reaches its ``snapshot_frequency`` or ``supersteps`` reaches
  ``LANGGRAPH_DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT`` (5000); its counters then start again.
  The non-zero counters are the metadata's ``counters_since_delta_snapshot``;
- a key snapshots anyway (forced) when an `Overwrite` set it, and on the first checkpoint a
  run (or edit) builds on one whose pending writes touch it that the run does not hand back
  (a fork or time travel: those writes are the old child's, and the new branch's walk must
  not replay them);
- a snapshot of a key whose version the saver already holds bumps the version (a saver
  only stores a blob for a version that moved), and the nodes that had seen the old version
  are moved on to the new one, the read kept in ``versions_seen["__snapshot_bumps__"]``.

The run keeps every value whole in memory (its built checkpoint, its record's values): only
the ``put`` handed to the saver gets LangGraph's shape (`DeltaWrites.stored`). Zero cost for
a graph without such keys: the hooks exist only when it has some.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langgraph.checkpoint.serde.types import _DeltaSnapshot

from superstep_compat.channels.base import MISSING
from superstep_compat.channels.binop import _overwrite_value
from superstep_compat.channels.delta import DeltaChannel
from superstep_compat.pregel._record import CheckpointRecord

__all__ = ["COUNTERS", "MAX_SUPERSTEPS", "DeltaWrites"]

COUNTERS = "counters_since_delta_snapshot"
SNAPSHOT_BUMPS = "__snapshot_bumps__"
MAX_SUPERSTEPS = int(os.getenv("LANGGRAPH_DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT", "5000"))
# the separators LangGraph builds a bump mark's keys with (a node name holds neither)
_NS_SEP, _NS_END = "|", ":"
_KEEP = 8  # snapshot choices remembered (a record may be put again: an interrupted step)


class DeltaWrites:
    """One run's (or edit's) choice of snapshots for ``channels`` (a graph's `DeltaChannel`
    keys, non-empty). ``every_save``: snapshot every key on every saved checkpoint (durability
    "exit", whose steps' writes are not saved: nothing to replay from)."""

    __slots__ = ("_forced", "_snapshots", "channels", "every_save", "first")

    def __init__(self, channels: Mapping[str, DeltaChannel], *, every_save: bool = False) -> None:
        self.channels = dict(channels)
        self.every_save = every_save
        self.first = True
        """No checkpoint built yet: the next builds on a loaded one (or none)."""
        self._forced: set[str] = set()
        self._snapshots: dict[str, frozenset[str]] = {}

    def force(self, keys: Iterable[str]) -> None:
        """Snapshot ``keys`` (those of this graph's delta keys) at the next checkpoint."""
        self._forced.update(k for k in keys if k in self.channels)

    def force_overwritten(self, writes: Iterable[tuple[str, Any]]) -> None:
        """Snapshot the keys ``writes`` set with an `Overwrite`."""
        self.force(k for k, v in writes if _overwrite_value(v) is not MISSING)

    def force_pending(self, pending: Iterable[Sequence[Any]], *, kept: Iterable[str] = ()) -> None:
        """Snapshot the keys the pending writes ``(task_id, channel, value)`` of the checkpoint
        a branch starts from touch, but for those of tasks ``kept`` (handed back)."""
        handed = set(kept)
        self.force(w[1] for w in pending if w[0] not in handed)

    def built(
        self,
        record: CheckpointRecord,
        prev_metadata: Mapping[str, Any] | None,
        saver: Any,
        saved_versions: Mapping[str, Any] | None,
        *,
        fresh_edit: bool = False,
    ) -> None:
        """Decide the snapshots of ``record`` (its checkpoint just built, its dicts its own):
        sets its metadata's counters, bumps the versions a snapshot needs. ``prev_metadata``:
        the metadata of the checkpoint it follows (its counters); ``saved_versions``: the
        channel versions the saver holds; ``fresh_edit``: an edit of a thread with no
        checkpoint (LangGraph then snapshots every key it wrote and keeps no counters)."""
        self.first = False
        checkpoint = record.checkpoint
        assert checkpoint is not None
        versions: dict[str, Any] = checkpoint["channel_versions"]
        forced, self._forced = self._forced, set()
        if fresh_edit or self.every_save:
            snap = {k for k in self.channels if k in versions}
            counters: dict[str, tuple[int, int]] = {}
        else:
            prev = (prev_metadata or {}).get(COUNTERS) or {}
            updated = set(checkpoint.get("updated_channels") or ())
            counters = {}
            for k in self.channels:
                u, s = prev.get(k, (0, 0))
                counters[k] = (u + 1 if k in updated else u, s + 1)
            snap = {
                k
                for k, ch in self.channels.items()
                if k in versions
                and (counters[k][0] >= ch.snapshot_frequency or counters[k][1] >= MAX_SUPERSTEPS)
            }
            snap |= forced
        bumped: dict[str, tuple[Any, Any]] = {}
        held = saved_versions or {}
        for k in snap:
            old = versions.get(k)
            if old is None or old == held.get(k):
                versions[k] = saver.get_next_version(old, None)
                bumped[k] = (old, versions[k])
            if k not in record.values:
                record.values = {**record.values, k: self.channels[k].initial()}
            checkpoint["channel_values"] = {**checkpoint["channel_values"], k: record.values[k]}
            counters[k] = (0, 0)
        if bumped:
            checkpoint["versions_seen"] = _mark_bumps_seen(checkpoint["versions_seen"], bumped)
        live = {k: v for k, v in counters.items() if v != (0, 0)}
        metadata = dict(record.metadata)
        if live:
            metadata[COUNTERS] = live
        else:
            metadata.pop(COUNTERS, None)
        record.metadata = metadata
        self._snapshots[record.checkpoint_id] = frozenset(snap)
        while len(self._snapshots) > _KEEP:
            del self._snapshots[next(iter(self._snapshots))]

    def rewritten(self, record: CheckpointRecord) -> None:
        """``record``'s checkpoint was built again under its id (writes of no task put onto
        it, see `GraphRun.apply_command`): the delta keys those changed are stored whole
        from then on, as a reader's walk replays only the writes of its ancestors."""
        checkpoint = record.checkpoint
        assert checkpoint is not None
        changed = {k for k in checkpoint.get("updated_channels") or () if k in self.channels}
        if changed:
            known = self._snapshots.get(record.checkpoint_id, frozenset())
            self._snapshots[record.checkpoint_id] = known | changed

    @staticmethod
    def task_path(record: CheckpointRecord, task_id: str) -> str:
        """The path string LangGraph hands ``put_writes`` for task ``task_id`` of ``record``
        ("" for a task it does not list): savers order a step's writes by it, and replaying
        them in the order the step applied them matters to an order-sensitive reducer."""
        for task in record.tasks:
            if task.id == task_id:
                return _path_str(task.path)
        return ""

    def stored(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """``put``'s arguments ``(config, checkpoint, metadata, new_versions)`` with the
        delta keys in LangGraph's shape: a snapshot blob where one was chosen (its version
        among the new ones), absent elsewhere."""
        config, checkpoint, metadata, new_versions = args
        snap = self._snapshots.get(checkpoint["id"], frozenset())
        values = dict(checkpoint["channel_values"])
        versions = checkpoint["channel_versions"]
        new_versions = dict(new_versions)
        for k in self.channels:
            value = values.pop(k, MISSING)
            if k in snap and value is not MISSING and k in versions:
                values[k] = _DeltaSnapshot(value)
                new_versions[k] = versions[k]
        return (config, {**checkpoint, "channel_values": values}, metadata, new_versions)


def _path_str(part: Any) -> str:
    """LangGraph's ``task_path_str``: a tuple as ``~`` and its parts joined by ", ", an int
    zero-padded to ten digits (so the order of strings is the order of numbers)."""
    if isinstance(part, tuple | list):
        return "~" + ", ".join(_path_str(p) for p in part)
    if isinstance(part, int) and not isinstance(part, bool):
        return f"{part:010d}"
    return str(part)


def _mark_bumps_seen(
    versions_seen: Mapping[str, Mapping[str, Any]], bumped: Mapping[str, tuple[Any, Any]]
) -> dict[str, Any]:
    """``versions_seen`` with each node that had seen a bumped key's old version moved on to
    the new one (a bump is no write: it must not make the node due again), and LangGraph's
    marks of each move under ``__snapshot_bumps__`` (the new version, and the one the node
    really read unless an earlier bump already noted it)."""
    out: dict[str, Any] = dict(versions_seen)
    marks = dict(out.get(SNAPSHOT_BUMPS, {}))
    for node, seen in list(out.items()):
        if node == SNAPSHOT_BUMPS:
            continue
        for k, (old, new) in bumped.items():
            if old is None or seen.get(k) != old:
                continue
            advanced, read = f"{node}{_NS_SEP}{k}", f"{node}{_NS_END}{k}"
            if marks.get(advanced) != old:
                marks[read] = old
            marks[advanced] = new
            seen = out[node] = {**seen, k: new}
    if marks:
        out[SNAPSHOT_BUMPS] = marks
    return out
