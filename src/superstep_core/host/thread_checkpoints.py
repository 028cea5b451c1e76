"""An engine thread as ordinary checkpoints of any LangGraph `BaseCheckpointSaver`.

A durable execution (`superstep_core.host.durable`) commits each superstep as one checkpoint
(``put``) of its thread, namespace ``""``:

- ``id``: the superstep number, zero-padded to 12 digits (`checkpoint_id`), so ids sort in step
  order as the protocol requires and name the superstep they hold; ``v`` 4, ``ts`` from the
  host's wall clock, ``versions_seen`` empty (the engine schedules from its own state),
  ``updated_channels``: the channels the superstep wrote.
- ``channel_values``: every stored engine channel (long sequences as segments ``name#i``, see
  `superstep_core.persistence.durable`) as the bytes of the engine's typed codec, which every
  serde stores as given; plus one more channel, `STEP`: the encoded `StepHeader` (the rest of
  the execution: scheduler state, awaited effect requests, armed timers, how much of the input
  log is covered) with the input-log record the superstep logged, if any (one value, so one
  blob and one version per superstep for both). ``channel_versions`` come from the saver's
  ``get_next_version``, and ``new_versions`` names only the values that changed, so a saver
  that stores channels apart (ours, `InMemorySaver`, LangGraph's Postgres saver) writes
  O(changed channels) per superstep.
- ``metadata``: LangGraph's ``source``, ``step`` and ``parents``, plus the engine's own keys
  (status, written channels, trace digest, execution id, audit fields of an edit).

What happens between two supersteps is written as pending writes of the latest checkpoint
(``put_writes``), each write-once under its own task id (letters, digits and ``.:-_`` only, as a
uuid: `_task`): `INPUT` for input-log records (an
interrupt's answer, an external event, results delivered), `EFFECT` for the effect ledger (a
completed effect's result, recorded as soon as it completes), and ``__error__`` for a superstep
that failed and committed nothing. So the whole thread (history, input log, ledger) lives in the
saver, and any saver can hold any Superstep thread.

Every call on the saver is written once, as a twin core (`superstep_core.twin`): ``put`` and
``aput``, ``load`` and ``aload``, and so on, reach the saver through
`superstep_core.host.saver_io`, so a saver that implements only the async half of the
protocol (or only the sync half) holds a thread as well.

Must never import: the llm layer, compat.
"""

from __future__ import annotations

import builtins
import string
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import ormsgpack
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)

from superstep_core.host.saver_io import saver_call
from superstep_core.twin import Twin, twins

__all__ = [
    "EFFECT",
    "FAILURE",
    "INPUT",
    "STEP",
    "StoredStep",
    "ThreadCheckpoints",
    "checkpoint_id",
    "step_of",
]

STEP = "__superstep__"
"""Channel: ``msgpack [header, seq, record]``: the checkpoint's encoded `StepHeader` (everything
but channel values) and the input-log record ``seq`` the superstep logged (both ``None`` when it
logged none)."""
INPUT = "__superstep_input__"
"""Pending write: an input-log record logged after the checkpoint, task id ``input:<seq>``."""
EFFECT = "__superstep_effect__"
"""Pending write: the result of a completed effect (the ledger), task id ``effect:<key>``."""
FAILURE = "__error__"
"""Pending write: a superstep that failed on top of the checkpoint (LangGraph's error channel)."""

_RESERVED = frozenset({STEP})
_STEP_WIDTH = 12
_FORMAT = 4  # LangGraph 1.x's checkpoint format version


def checkpoint_id(step: int) -> str:
    """The checkpoint id of superstep ``step`` (>= 0): 12 digits, so ids sort in step order."""
    if step < 0 or step >= 10**_STEP_WIDTH:
        raise ValueError(f"superstep number {step} is out of range [0, 10**{_STEP_WIDTH})")
    return f"{step:0{_STEP_WIDTH}d}"


def step_of(value: str) -> int:
    """The superstep of checkpoint id ``value``; ``ValueError`` for an id not made by
    `checkpoint_id` (e.g. a LangGraph thread's uuid)."""
    if len(value) != _STEP_WIDTH or not value.isdigit():
        raise ValueError(f"{value!r} is not the checkpoint id of an engine superstep")
    return int(value)


_PLAIN = frozenset(string.ascii_letters + string.digits + ".:-_")


def _task(kind: str, key: str) -> str:
    """A pending write's task id: ``kind:key``, or ``kind.hex:HEX`` (the key's UTF-8 bytes)
    when the key has a character other than letters, digits and ``.:-_``. LangGraph's own task
    ids are uuids, and a saver may rely on that much: ``langgraph-checkpoint-objectstorage``
    makes the task id one segment of a path and refuses the ``/`` of an effect key such as
    ``thread/chat:1/e0``. Ids written as ``kind:key`` before keep reading back as they were."""
    if all(c in _PLAIN for c in key):
        return f"{kind}:{key}"
    return f"{kind}.hex:{key.encode().hex()}"


def _key(task_id: str) -> str:
    """The key `_task` put in ``task_id``."""
    kind, _, key = task_id.partition(":")
    return bytes.fromhex(key).decode() if kind.endswith(".hex") else key


@dataclass(frozen=True, slots=True)
class StoredStep:
    """One checkpoint of an engine thread as the engine reads it back.

    ``values``: stored channel (or segment) -> codec bytes; ``versions``: the saver's version of
    each of them (and of `STEP`); ``inputs``: the input-log records this checkpoint
    holds, ``(seq, bytes)`` in ``seq`` order (its own and the ones logged after it);
    ``effects``: ledger entries recorded on it, key -> result bytes; ``failures``: the
    supersteps that failed on top of it, in order.
    """

    checkpoint_id: str
    step: int
    parent_id: str | None
    metadata: Mapping[str, Any]
    header: bytes
    values: Mapping[str, bytes]
    versions: Mapping[str, Any]
    inputs: tuple[tuple[int, bytes], ...] = ()
    effects: Mapping[str, bytes] = field(default_factory=dict)
    failures: tuple[Mapping[str, Any], ...] = ()
    packed: bytes = b""  # the `STEP` value as stored


def _stored(found: CheckpointTuple) -> StoredStep:
    checkpoint = found.checkpoint
    values = checkpoint["channel_values"]
    packed = values.get(STEP)
    cid = str(found.config["configurable"]["checkpoint_id"])
    if not isinstance(packed, bytes | bytearray):
        raise ValueError(
            f"checkpoint {cid!r} of thread {found.config['configurable']['thread_id']!r} is not "
            f"an engine checkpoint (no {STEP} channel): it was written by a LangGraph graph"
        )
    header, own_seq, own_input = ormsgpack.unpackb(packed)
    inputs: list[tuple[int, bytes]] = []
    effects: dict[str, bytes] = {}
    failures: list[Mapping[str, Any]] = []
    for task_id, channel, value in found.pending_writes or ():
        if channel == INPUT:
            inputs.append((int(_key(task_id)), bytes(value)))
        elif channel == EFFECT:
            effects.setdefault(_key(task_id), bytes(value))
        elif channel == FAILURE and isinstance(value, Mapping):
            failures.append(value)
    metadata = dict(found.metadata)
    if own_input is not None:
        inputs.append((own_seq, own_input))
    inputs.sort(key=lambda i: i[0])
    failures.sort(key=lambda f: str(f.get("seq", "")))
    parent = found.parent_config
    return StoredStep(
        cid,
        step_of(cid),
        None if parent is None else str(parent["configurable"]["checkpoint_id"]),
        metadata,
        bytes(header),
        {k: bytes(v) for k, v in values.items() if k not in _RESERVED},
        dict(checkpoint["channel_versions"]),
        tuple(inputs),
        effects,
        tuple(failures),
        bytes(packed),
    )


class ThreadCheckpoints:
    """The checkpoints of engine thread ``thread_id`` on ``saver`` (any `BaseCheckpointSaver`).

    Remembers the bytes and saver version of every stored channel since the last `put` (or
    `load`), so a superstep hands the saver the full ``channel_values`` (savers that store a
    checkpoint whole need them) but only the changed ones in ``new_versions``.
    """

    def __init__(self, saver: BaseCheckpointSaver[Any], thread_id: str) -> None:
        self.saver = saver
        self.thread_id = thread_id
        self._values: dict[str, bytes] = {}
        self._versions: dict[str, Any] = {}
        self._latest: str | None = None  # the checkpoint id pending writes go to

    def _config(self, checkpoint: str | None = None) -> RunnableConfig:
        configurable: dict[str, Any] = {"thread_id": self.thread_id, "checkpoint_ns": ""}
        if checkpoint is not None:
            configurable["checkpoint_id"] = checkpoint
        return {"configurable": configurable}

    # --- writing ------------------------------------------------------------------------------

    def _put(
        self,
        step: int,
        parent_id: str | None,
        header: bytes,
        stored: Collection[str],
        new_blobs: Mapping[str, bytes],
        metadata: Mapping[str, Any],
        *,
        ts: str,
        written: Iterable[str] = (),
        input_record: tuple[int, bytes] | None = None,
    ) -> Twin[str]:
        """Commit superstep ``step`` as one checkpoint and return its id. ``stored``: the stored
        channels (and segments) the checkpoint holds; ``new_blobs``: the bytes
        of those that changed; ``input_record``: the input-log record ``(seq, bytes)`` the
        superstep logged (committed with the checkpoint, in one ``put``)."""
        cid = checkpoint_id(step)
        if input_record is not None and cid == self._latest:
            # the same superstep again: its checkpoint row is replaced, so keep the record apart
            yield from self._log_input(*input_record)
            input_record = None
        new_versions: dict[str, Any] = {}
        next_version = self.saver.get_next_version
        # drop values no longer held; the set is unchanged (the usual step) when it has as many
        # names as before and every changed one is already known
        values = self._values
        if len(values) != len(stored) + (STEP in values) or any(n not in values for n in new_blobs):
            keep = set(stored)
            for name in [n for n in values if n not in keep and n not in _RESERVED]:
                del values[name]
                self._versions.pop(name, None)
        for name, data in new_blobs.items():
            self._values[name] = data
            new_versions[name] = self._versions[name] = next_version(self._versions.get(name), None)
        seq, record = input_record if input_record is not None else (None, None)
        self._values[STEP] = ormsgpack.packb([header, seq, record])
        new_versions[STEP] = self._versions[STEP] = next_version(self._versions.get(STEP), None)
        meta: dict[str, Any] = {**metadata, "parents": {}}
        checkpoint: Checkpoint = {
            "v": _FORMAT,
            "id": cid,
            "ts": ts,
            "channel_values": dict(self._values),
            "channel_versions": dict(self._versions),
            "versions_seen": {},
            "updated_channels": list(written),
        }
        config = self._config(parent_id)
        yield saver_call(self.saver, "put", config, checkpoint, _metadata(meta), new_versions)
        self._latest = cid
        return cid

    put, aput = twins(_put)

    def _log_input(self, seq: int, data: bytes) -> Twin[None]:
        """Append input-log record ``seq`` as a pending write of the latest checkpoint."""
        config = self._config(self._require())
        yield saver_call(
            self.saver, "put_writes", config, [(INPUT, data)], _task("input", f"{seq:012d}")
        )

    log_input, alog_input = twins(_log_input)

    def _record_effect(self, key: str, result: bytes) -> Twin[None]:
        """Record a completed effect's result in the ledger (write-once per key)."""
        config = self._config(self._require())
        yield saver_call(self.saver, "put_writes", config, [(EFFECT, result)], _task("effect", key))

    record_effect, arecord_effect = twins(_record_effect)

    def _record_failure(self, seq: int, failure: Mapping[str, Any]) -> Twin[None]:
        """Note a superstep that failed on top of the latest checkpoint (``seq``: the input-log
        record holding the failure)."""
        noted = {**failure, "seq": f"{seq:012d}"}
        config = self._config(self._require())
        yield saver_call(
            self.saver, "put_writes", config, [(FAILURE, noted)], _task("failure", noted["seq"])
        )

    record_failure, arecord_failure = twins(_record_failure)

    def _require(self) -> str:
        if self._latest is None:
            raise RuntimeError(f"thread {self.thread_id!r} has no checkpoint to write on yet")
        return self._latest

    # --- reading ------------------------------------------------------------------------------

    def _load(self, checkpoint: str | None = None) -> Twin[StoredStep | None]:
        """Checkpoint ``checkpoint`` (the latest when ``None``), or ``None``. Loading the
        latest makes it the one later writes follow. ``ValueError`` when the checkpoint was
        not written by the engine."""
        found = yield saver_call(self.saver, "get_tuple", self._config(checkpoint))
        if found is None:
            return None
        step = _stored(found)
        if checkpoint is None:
            self.follow(step)
        return step

    load, aload = twins(_load)

    def follow(self, step: StoredStep) -> None:
        """Continue the thread after ``step``: its values and versions are what the next `put`
        builds on, and pending writes go to it."""
        self._values = dict(step.values)
        self._values[STEP] = step.packed
        self._versions = dict(step.versions)
        self._latest = step.checkpoint_id

    def _exists(self) -> Twin[bool]:
        """Whether the thread has any checkpoint (the engine's or a LangGraph graph's)."""
        found = yield saver_call(self.saver, "get_tuple", self._config())
        return found is not None

    exists, aexists = twins(_exists)

    def _is_engine_thread(self) -> Twin[bool]:
        """Whether the thread's latest checkpoint was written by the engine."""
        found = yield saver_call(self.saver, "get_tuple", self._config())
        return found is not None and STEP in found.checkpoint["channel_values"]

    is_engine_thread, ais_engine_thread = twins(_is_engine_thread)

    def _history(self) -> Twin[builtins.list[StoredStep]]:
        """Every checkpoint of the thread, oldest first."""
        found: builtins.list[CheckpointTuple] = yield saver_call(self.saver, "list", self._config())
        return [_stored(t) for t in reversed(found)]

    history, ahistory = twins(_history)

    def _effects(self) -> Twin[dict[str, bytes]]:
        """Every ledger entry recorded on any checkpoint of the thread, key -> result bytes."""
        found: dict[str, bytes] = {}
        for step in (yield from self._history()):
            for key, data in step.effects.items():
                found.setdefault(key, data)
        return found

    effects, aeffects = twins(_effects)

    def _inputs(self) -> Twin[builtins.list[tuple[int, bytes]]]:
        """The thread's whole input log, ``(seq, bytes)`` in ``seq`` order."""
        log: dict[int, bytes] = {}
        for step in (yield from self._history()):
            for seq, data in step.inputs:
                log.setdefault(seq, data)
        return sorted(log.items())

    inputs, ainputs = twins(_inputs)


def _metadata(meta: dict[str, Any]) -> CheckpointMetadata:
    out: CheckpointMetadata = meta  # type: ignore[assignment]  # engine keys beside LangGraph's
    return out
