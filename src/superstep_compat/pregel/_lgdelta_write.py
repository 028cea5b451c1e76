"""How the façade stores `DeltaChannel` keys: LangGraph 1.2's format, written.

LangGraph keeps such a key out of a checkpoint's ``channel_values`` except now and then, when
it stores the whole value as a ``_DeltaSnapshot`` blob; in between, the value is the nearest
ancestor's snapshot folded with the pending writes saved since (read back by `_lgdelta`).
When it snapshots (LangGraph's ``_loop._put_checkpoint`` / ``create_checkpoint``):

- every saved checkpoint moves each key's counters ``(updates, supersteps)`` on (``updates``
  only when the key changed in that step); a key with a version snapshots when ``updates``
  reaches its ``snapshot_frequency`` or ``supersteps`` reaches
  ``DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT`` (`_checkpoint`); its counters then start again.
  The non-zero counters are the metadata's ``counters_since_delta_snapshot``;
- a key snapshots anyway (forced) when an `Overwrite` set it, and on the first checkpoint a
  run (or edit) builds on one whose pending writes touch it that the run does not hand back
  (a fork or time travel: those writes are the old child's, and the new branch's walk must
  not replay them);
- a snapshot of a key whose version the saver already holds bumps the version (a saver
  only stores a blob for a version that moved), and the nodes that had seen the old version
  are moved on to the new one, the read kept in ``versions_seen["__snapshot_bumps__"]``;
- a `Command`'s ``update`` put onto the checkpoint the thread is at is no snapshot: it is
  saved as writes of no task on that checkpoint, as every key's is (`_lgnull`); readers
  apply them as the checkpoint's own, an edit of it does not (`_lgdelta`). A `Command` at a
  past checkpoint forks it instead, and the fork snapshots the keys it set;
- a ``__copy__`` stores the keys as its source does (same snapshots, same versions) and
  keeps its counters (`copied`);
- under durability "exit" (``_loop._put_exit_delta_writes``) the counters go on over the
  steps not saved, and at the end the run's writes of the keys that do not snapshot are
  saved as pending writes of an anchor: the checkpoint the run started from, or on a new
  thread an empty checkpoint (metadata ``{"step": -2}``) put first as the last one's parent.
  Their task ids carry the step (`exit_delta_task_id`, `exit_delta_late_task_id`) so a saver's
  order replays them in the order they were made. A run from a checkpoint named by its id
  snapshots every key it wrote instead (that checkpoint may have other children).

The run keeps every value whole in memory (its built checkpoint, its record's values): only
the ``put`` handed to the saver gets LangGraph's shape (`DeltaWrites.stored`). Zero cost for
a graph without such keys: the hooks exist only when it has some.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from langgraph.checkpoint.serde.types import _DeltaSnapshot

from superstep_compat.channels.base import MISSING
from superstep_compat.channels.binop import _overwrite_value
from superstep_compat.channels.delta import DeltaChannel
from superstep_compat.pregel._checkpoint import (
    delta_channels_to_snapshot,
    exit_delta_late_task_id,
    exit_delta_task_id,
)
from superstep_compat.pregel._checkpoint_tasks import new_checkpoint_id
from superstep_compat.pregel._lgcheckpoint import CURRENT_FORMAT, task_writes_args
from superstep_compat.pregel._record import CheckpointRecord, config_of, task_path_of

__all__ = ["COUNTERS", "DeltaWrites"]

COUNTERS = "counters_since_delta_snapshot"
SNAPSHOT_BUMPS = "__snapshot_bumps__"
# the separators LangGraph builds a bump mark's keys with (a node name holds neither)
_NS_SEP, _NS_END = "|", ":"
NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"
_KEEP = 8  # snapshot choices remembered (a record may be put again: an interrupted step)


class DeltaWrites:
    """One run's (or edit's) choice of snapshots for ``channels`` (a graph's `DeltaChannel`
    keys, non-empty). ``held_back``: durability "exit" (only the run's last checkpoint is
    saved; see `held_writes` and `exit_calls`)."""

    __slots__ = (
        "_exit_first",
        "_exit_writes",
        "_forced",
        "_snapshots",
        "addressed",
        "anchor_id",
        "channels",
        "first",
        "held_back",
        "resuming",
    )

    def __init__(self, channels: Mapping[str, DeltaChannel], *, held_back: bool = False) -> None:
        self.channels = dict(channels)
        self.held_back = held_back
        self.first = True
        """No checkpoint built yet: the next builds on a loaded one (or none)."""
        self.anchor_id: str | None = None
        """Held back, on a new thread: the id of the anchor it may need (made with the first
        checkpoint, so that it sorts before the run's checkpoints, as LangGraph's)."""
        self.resuming = False
        """The run goes on from the thread's latest checkpoint (a resume, not new input and
        not time travel): the writes of no task on it are handed back, not replaced."""
        self.addressed = False
        """The run started from a checkpoint named by its id (held back: the keys it wrote
        snapshot, see `exit_calls`)."""
        self._forced: set[str] = set()
        self._snapshots: dict[str, frozenset[str]] = {}
        self._exit_first: int | None = None
        self._exit_writes: list[tuple[int, str, str, str, Any]] = []

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
        if self.resuming:  # as LangGraph's resume: they are its input, applied again
            handed.add(NULL_TASK_ID)
        self.force(w[1] for w in pending if w[0] not in handed)

    def built(
        self,
        record: CheckpointRecord,
        prev_metadata: Mapping[str, Any] | None,
        saver: Any,
        saved_versions: Mapping[str, Any] | None,
        *,
        fresh_edit: bool = False,
        updated: Collection[str] | None = None,
    ) -> None:
        """Decide the snapshots of ``record`` (its checkpoint just built, its dicts its own):
        sets its metadata's counters, bumps the versions a snapshot needs. ``prev_metadata``:
        the metadata of the checkpoint it follows (its counters); ``saved_versions``: the
        channel versions the saver holds; ``fresh_edit``: an edit of a thread with no
        checkpoint (LangGraph then snapshots every key it wrote and keeps no counters);
        ``updated``: the keys the step wrote, when its checkpoint does not list them (an
        edit's ``updated_channels`` is None: LangGraph counts the keys its updates wrote)."""
        if self.first and self.held_back and prev_metadata is None:
            self.anchor_id = new_checkpoint_id(-2)
        self.first = False
        checkpoint = record.checkpoint
        assert checkpoint is not None
        versions: dict[str, Any] = checkpoint["channel_versions"]
        if fresh_edit:
            snap = {k for k in self.channels if k in versions}
            counters: dict[str, tuple[int, int]] = {}
        else:
            prev = (prev_metadata or {}).get(COUNTERS) or {}
            wrote = set((checkpoint.get("updated_channels") or ()) if updated is None else updated)
            counters = {}
            for k in self.channels:
                u, s = prev.get(k, (0, 0))
                counters[k] = (u + 1 if k in wrote else u, s + 1)
            if self.held_back:  # nothing saved yet: the counters go on (see `exit_calls`)
                _set_counters(record, counters)
                return
            snap = self._due(versions, counters)
        self._snapshot(record, snap, counters, saver, saved_versions)

    def copied(
        self, record: CheckpointRecord, whole: Iterable[str], metadata: Mapping[str, Any]
    ) -> None:
        """``record`` copies a checkpoint (``__copy__``: same values, same versions, same
        parent), whose metadata is ``metadata`` and which stores ``whole`` as snapshots: as
        LangGraph, it stores them the same way (no version moves: the saver has those blobs)
        and keeps the counters, a copy being no step."""
        self.first = False
        self._snapshots[record.checkpoint_id] = frozenset(k for k in whole if k in self.channels)
        _set_counters(record, dict(metadata.get(COUNTERS) or {}))

    def _due(
        self, versions: Mapping[str, Any], counters: Mapping[str, tuple[int, int]]
    ) -> set[str]:
        """The keys to snapshot: due by their counters, or forced (which this consumes)."""
        forced, self._forced = self._forced, set()
        return forced | delta_channels_to_snapshot(self.channels, counters, versions)

    def _snapshot(
        self,
        record: CheckpointRecord,
        snap: set[str],
        counters: dict[str, tuple[int, int]],
        saver: Any,
        saved_versions: Mapping[str, Any] | None,
    ) -> None:
        """Store ``snap`` whole in ``record``'s checkpoint (bumping the versions the saver
        holds), their counters started again."""
        checkpoint = record.checkpoint
        assert checkpoint is not None
        versions: dict[str, Any] = checkpoint["channel_versions"]
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
        _set_counters(record, counters)
        self._snapshots[record.checkpoint_id] = frozenset(snap)
        while len(self._snapshots) > _KEEP:
            del self._snapshots[next(iter(self._snapshots))]

    def held_writes(
        self, step: int, writes: Sequence[tuple[str, str, Sequence[tuple[str, Any]]]]
    ) -> None:
        """Held back: step ``step`` ran, its tasks wrote ``writes`` ``(task_id, task_path,
        [(channel, value)])``: kept for `exit_calls` (those of the delta keys)."""
        if self._exit_first is None:
            self._exit_first = step
        for task_id, path, task_writes in writes:
            for channel, value in task_writes:
                if channel in self.channels:
                    self._exit_writes.append((step, task_id, path, channel, value))

    def exit_calls(
        self,
        record: CheckpointRecord,
        anchor: CheckpointRecord | None,
        saver: Any,
        saved_versions: Mapping[str, Any] | None,
    ) -> tuple[CheckpointRecord | None, list[tuple[str, tuple[Any, ...]]]]:
        """Held back, the run ending with ``record`` (about to be saved, its parent
        ``anchor``, the checkpoint it started from, None on a new thread): the keys due
        snapshot in it (their counters as they went on, no step counted again), and the
        saver calls that save the held writes of the others. Returns the record of the
        empty anchor those need on a new thread (None: none; it is put first, as
        ``record``'s parent) and the calls ``(method, args)`` in order."""
        checkpoint = record.checkpoint
        assert checkpoint is not None
        counters = dict(record.metadata.get(COUNTERS) or {})
        if self.addressed and anchor is not None:
            # the checkpoint the run started from may have other children, whose walks
            # would read the writes saved on it: LangGraph snapshots those keys instead
            self.force(w[3] for w in self._exit_writes)
        snap = self._due(checkpoint["channel_versions"], counters)
        self._snapshot(record, snap, counters, saver, saved_versions)
        pending = [w for w in self._exit_writes if w[3] not in snap]
        self._exit_writes = []
        if not pending:
            return None, []
        calls: list[tuple[str, tuple[Any, ...]]] = []
        made = None
        if anchor is None:
            anchor_id = self.anchor_id or new_checkpoint_id(-2)
            made = CheckpointRecord(
                thread_id=record.thread_id,
                checkpoint_ns=record.checkpoint_ns,
                checkpoint_id=anchor_id,
                parent_id=None,
                step=-2,
                source="",
                values={},
                next=(),
                metadata={"step": -2},
            )
            empty = {
                "v": CURRENT_FORMAT,
                "id": anchor_id,
                "ts": datetime.now(UTC).isoformat(),
                "channel_values": {},
                "channel_versions": {},
                "versions_seen": {},
                "updated_channels": None,
            }
            config = config_of(record.thread_id, record.checkpoint_ns, None)
            calls.append(("put", (config, empty, {"step": -2}, {})))
            anchor = made
        grouped: dict[tuple[str, str], list[tuple[str, Any]]] = {}
        for step, task_id, path, channel, value in pending:
            if task_id == NULL_TASK_ID:
                key = (exit_delta_task_id(step, task_id), "")
            elif step == self._exit_first:
                key = (exit_delta_task_id(step, task_id), path)
            else:
                key = (exit_delta_late_task_id(step, task_id), f"~~{step:010d}{path}")
            grouped.setdefault(key, []).append((channel, value))
        for (task_id, path), task_writes in grouped.items():
            args = task_writes_args(
                saver,
                anchor.thread_id,
                anchor.checkpoint_ns,
                anchor.checkpoint_id,
                task_id,
                task_writes,
                path,
            )
            calls.append(("put_writes", args))
        return made, calls

    @staticmethod
    def task_path(record: CheckpointRecord, task_id: str) -> str:
        """The path string LangGraph hands ``put_writes`` for task ``task_id`` of ``record``
        (`task_path_of`): savers order a step's writes by it, and replaying them in the
        order the step applied them matters to an order-sensitive reducer."""
        return task_path_of(record, task_id)

    def stored(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """``put``'s arguments ``(config, checkpoint, metadata, new_versions)`` with the
        delta keys in LangGraph's shape: a snapshot blob where one was chosen (its version
        among the new ones), absent elsewhere."""
        config, checkpoint, metadata, new_versions = args
        snap = self._snapshots.get(checkpoint["id"], frozenset())
        values = dict(checkpoint["channel_values"])
        versions = dict(checkpoint["channel_versions"])
        new_versions = dict(new_versions)
        for k in self.channels:
            value = values.pop(k, MISSING)
            if k in snap and value is not MISSING and k in versions:
                values[k] = _DeltaSnapshot(value)
                new_versions[k] = versions[k]
        stored = {**checkpoint, "channel_values": values, "channel_versions": versions}
        return (config, stored, metadata, new_versions)


def _set_counters(record: CheckpointRecord, counters: Mapping[str, tuple[int, int]]) -> None:
    """``record``'s metadata with the non-zero ``counters`` (none: without the field)."""
    live = {k: v for k, v in counters.items() if v != (0, 0)}
    metadata = dict(record.metadata)
    if live:
        metadata[COUNTERS] = live
    else:
        metadata.pop(COUNTERS, None)
    record.metadata = metadata


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
