"""The mapping between the façade's `CheckpointRecord` and LangGraph's checkpoint protocol: what
a run writes through any `BaseCheckpointSaver` (``put``, ``put_writes``); how a record is
read back (``get_tuple``, ``list``) is `_lgread`.

A record is written as LangGraph writes a step: ``channel_values`` (the state keys, plus the
triggers of the tasks due next: ``__start__``, ``branch:to:<node>``, ``join:...``,
``__pregel_tasks``), ``channel_versions`` from the saver's ``get_next_version`` (one new
version per step for the channels it changed), ``versions_seen`` of the nodes that ran,
``updated_channels``, metadata ``source``/``step``/``parents``; only the channels changed
since the saver last saw the thread go in ``new_versions``. Task results, errors, interrupts
and resume answers are pending writes (LangGraph's channels ``__error__``,
``__interrupt__``, ``__resume__``).

Besides, the engine's resumable state (`ExecutionState` without its channel values, and the
record's task bookkeeping) rides in one extra channel, ``__superstep_facade__`` (not the
engine's own ``__superstep__``: one database holds both kinds of thread; see `_lgblob`), as
bytes of the engine's typed codec (values it does not know, a user's own classes, go through
the saver's serializer inside it, so its allowlist vets them as it vets channel values),
stamped with the checkpoint's id: LangGraph ignores channels its graph does not declare,
and a stamp that does not match (a checkpoint LangGraph wrote after
carrying the channel's version forward) means the state is rebuilt from LangGraph's own
fields instead (see `_lgrestore`).

Which records can go without that channel is `_restorable`'s to say. Never imports the host or
the engine's persistence stores.
"""

from __future__ import annotations

import binascii
import inspect
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from hashlib import sha1
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from xxhash import xxh3_128_hexdigest

from superstep_compat.pregel._lgblob import engine_blob, engine_codec
from superstep_compat.pregel._lgnames import (
    BRANCH_PREFIX,
    CURRENT_FORMAT,
    ENGINE_CHANNEL,
    ERROR,
    INTERRUPT,
    JOIN_PREFIX,
    NO_WRITES,
    PRIVATE_CHANNELS,
    PULL,
    PUSH,
    RESERVED_CHANNELS,
    RESUME,
    START_CHANNEL,
    TASKS,
)
from superstep_compat.pregel._record import CheckpointRecord, config_of
from superstep_compat.pregel._restorable import restorable
from superstep_compat.pregel._saver_bridge import saver_call as _call

__all__ = [
    "BRANCH_PREFIX",
    "CURRENT_FORMAT",
    "ENGINE_CHANNEL",
    "ERROR",
    "INTERRUPT",
    "NO_WRITES",
    "PULL",
    "PUSH",
    "RESUME",
    "START_CHANNEL",
    "TASKS",
    "build_checkpoint",
    "checkpoint_put",
    "engine_codec",
    "graph_versions",
    "is_state_channel",
    "lg_task_id",
    "put_task_writes",
    "step_new_versions",
    "takes_task_path",
    "task_writes_args",
    "triggers_of",
    "write_checkpoint",
]


def lg_task_id(
    checkpoint_id: str, ns: str, step: int, name: str, *path: str, format: int = CURRENT_FORMAT
) -> str:
    """LangGraph's id of a task of checkpoint ``checkpoint_id`` (its ``step`` is the
    checkpoint's plus one): xxh3-128 of the id's bytes, the task's namespace (``name``
    below ``ns``), the step, the name and its path (``PULL`` and the sorted triggers, or
    ``PUSH`` and the `Send`'s index), shaped as a uuid. A checkpoint of ``format`` 1 (the
    first layout) names its tasks by SHA-1 of the same bytes, as LangGraph still does for
    it, so the pending writes saved with it find their tasks."""
    task_ns = f"{ns}|{name}" if ns else name
    try:
        raw = binascii.unhexlify(checkpoint_id.replace("-", ""))
    except (binascii.Error, ValueError):
        raw = checkpoint_id.encode()
    parts = "".join((task_ns, str(step), name, *path)).encode()
    if format <= 1:
        digest = sha1(raw + parts, usedforsecurity=False).hexdigest()
    else:
        digest = xxh3_128_hexdigest(raw + parts)
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def is_state_channel(name: str) -> bool:
    """Whether a channel of a LangGraph checkpoint is a state key (not a trigger or ours)."""
    return not (
        name in RESERVED_CHANNELS or name.startswith(BRANCH_PREFIX) or name.startswith(JOIN_PREFIX)
    )


def graph_versions(versions: Mapping[str, Any]) -> dict[str, Any]:
    """The channel versions of a checkpoint without those of the engine's blob (channels no
    LangGraph graph has)."""
    return {k: v for k, v in versions.items() if k not in PRIVATE_CHANNELS}


# --- writing ----------------------------------------------------------------------------------


def _refilled(channel: str, before: Any, ran: Sequence[str]) -> bool:
    """Whether join ``channel`` (LangGraph's ``join:<source>+<source>:<target>``), holding
    ``before`` at the step's start and the same set after it, was emptied and written again:
    its target's pull task ran in the step, which consumes a full barrier (LangGraph's
    `NamedBarrierValue`), and the step's writes named every source again."""
    sources, _, target = channel[len(JOIN_PREFIX) :].rpartition(":")
    return target in ran and bool(before) and set(before) == set(sources.split("+"))


def _available(
    record: CheckpointRecord, updated: list[str], values: Mapping[str, Any]
) -> list[str]:
    """``updated`` without a deferred node's trigger that waits (``(value, False)``), which
    goes to ``record.emptied`` (its value is handed to the saver all the same): LangGraph
    lists an updated channel only when it can trigger a task now."""
    waiting = [k for k in updated if type(values[k]) is tuple and values[k][1] is False]
    if not waiting:
        return updated
    record.emptied = (*record.emptied, *waiting)
    return [k for k in updated if k not in waiting]


def build_checkpoint(
    saver: BaseCheckpointSaver[Any],
    record: CheckpointRecord,
    base: Mapping[str, Any] | None,
    *,
    ran: Sequence[str] = (),
    triggers_of: Callable[[str], Sequence[str]] = lambda name: (BRANCH_PREFIX + name,),
    top: Any = None,
    engine_versions: Mapping[str, Any] | None = None,
    listed: bool = True,
    written: Collection[str] | Callable[[], Collection[str]] = (),
    topics: Collection[str] = (),
    pushed: Collection[str] = (),
) -> dict[str, Any]:
    """The LangGraph checkpoint of ``record``, following ``base`` (the checkpoint its step
    started from; None for a thread's first), kept as ``record.checkpoint`` (without the
    engine's blob, added when it is written). ``ran``: the nodes whose pull tasks ran in
    that step (their ``versions_seen`` move on); ``top``: the highest of ``base``'s channel
    versions (the blob's aside) when the caller knows it (finding it takes a comparison per
    channel, and a thread's channels grow with every node a ``branch:to:`` reaches).
    ``engine_versions``: the engine's channel versions; a state channel whose version there
    is still none holds only its initial value (never written): as LangGraph, a checkpoint
    holds no channel that has no version yet. Only the channels new since ``base`` are
    looked up (not every channel the engine has: that grows with the nodes a run reached).

    A channel that was there and is gone (a consumed trigger) gets the new version but is
    not in ``updated_channels``, which names only channels that can trigger a task; a
    consumed ``__pregel_tasks`` or ``join:...`` channel stays, empty, as in LangGraph's.
    ``listed``: False for a checkpoint LangGraph writes outside its loop's steps (an
    ``update_state``/``bulk_update_state`` edit, a fork): its ``updated_channels`` is None
    there (LangGraph 1.2 `create_checkpoint` called without them), the versions move all
    the same. ``written``: channels the step wrote whose LangGraph channel is updated by
    any write (`CheckpointPolicy.always_updated`): each gets the new version even when its
    value is the object ``base`` held (LangGraph's channel ``update`` returned True);
    any other channel is updated when its object changed. ``written`` may be a function
    giving them: called only when some channel holds the object ``base`` held. ``topics``:
    the state keys whose channel is a `Topic`, which LangGraph saves emptied as ``[]`` (a
    new version when it held values), where the engine holds no value. ``pushed``: the
    nodes whose `Send` tasks ran in that step: each has a ``versions_seen`` entry from then
    on, empty if it had none (a push task is triggered by no channel; LangGraph's
    ``setdefault`` for every task that ran)."""
    prev_values: Mapping[str, Any] = base["channel_values"] if base else {}
    versions: dict[str, Any] = dict(base["channel_versions"]) if base else {}
    # A node's entry is replaced when it runs, never changed in place: the entries of nodes
    # that did not run are shared with ``base`` (copying them all made a step cost O(nodes)).
    seen: dict[str, dict[str, Any]] = dict(base["versions_seen"]) if base else {}
    if "__input__" not in seen:
        seen["__input__"] = {}
    values: dict[str, Any] = {**record.values, **record.triggers}
    missing = object()
    # new since ``base``, or another object than ``base`` held (one pass: the channels new
    # since ``base`` are among these, so the never-written ones are looked for here only)
    updated = [k for k, v in values.items() if prev_values.get(k, missing) is not v]
    if len(updated) < len(values):  # some channel holds the object it held: written again?
        rewritten = written() if callable(written) else written
        if rewritten:
            updated.extend(
                k for k in rewritten if k in values and prev_values.get(k, missing) is values[k]
            )
    if updated and prev_values:
        # a join's channel is a new set each time: updated when its sources changed, or when
        # its target ran on the full barrier (consumed) and the step's writes filled it again;
        # so is a deferred node's ``(value, finished)`` (a list once a saver read it)
        for k in [
            k
            for k in updated
            if k in prev_values and (k.startswith(JOIN_PREFIX) or type(values[k]) is tuple)
        ]:
            now, before = values[k], prev_values[k]
            if type(now) is tuple:
                same = type(before) in (tuple, list) and tuple(before) == now
                before_seen = before[0] if same else None
            else:
                same = now == before
                before_seen = before
            if same and not (k.startswith(JOIN_PREFIX) and _refilled(k, before_seen, ran)):
                values[k] = before
                updated.remove(k)
    if engine_versions:
        unwritten = [
            k for k in updated if k not in prev_values and not engine_versions.get(k, missing)
        ]
        if unwritten:
            for k in unwritten:
                del values[k]
            updated = [k for k in updated if k in values]
    consumed = False
    if TASKS not in values and TASKS in prev_values:
        # LangGraph's Send channel, once written, stays in its checkpoints: consumed, as an
        # empty list (a new version when it held Sends, not an updated channel)
        sent = prev_values[TASKS]
        consumed = bool(sent)
        values[TASKS] = sent if not consumed else []
    # A node that ran consumed its ``branch:to:`` trigger: present again, it was written
    # again in this step (a loop onto itself), so it is new even though it is the same None.
    for name in ran:
        trigger = BRANCH_PREFIX + name
        if trigger in values and trigger not in updated:
            updated.append(trigger)
    updated.sort()
    gone = []
    emptied = []
    for k in prev_values:
        if k in values or k in PRIVATE_CHANNELS:
            continue
        if k in topics or k.startswith(JOIN_PREFIX):
            # LangGraph's join channel, once written, stays in its checkpoints: consumed (its
            # target ran) as an empty set, a new version when it held sources, not updated;
            # an emptied `Topic` stays as an empty list the same way
            before = prev_values[k]
            if k in topics:
                values[k] = []
            elif type(before) in (tuple, list) and len(before) == 2 and type(before[1]) is bool:
                # a deferred node's join (LangGraph's after-finish barrier): consumed, not
                # finished
                values[k] = (set(), False)
                before = before[0]
            else:
                values[k] = set()
            if not before:
                continue
            emptied.append(k)
        gone.append(k)
    record.emptied = tuple(emptied)
    if consumed:
        # computed before the consumed list went in: never among ``updated``
        gone.append(TASKS)
    for name in ran:
        seen[name] = {ch: versions[ch] for ch in triggers_of(name) if ch in versions}
    for name in pushed:
        if name not in seen:
            seen[name] = {}
    if updated or gone:
        engine_version = versions.pop(ENGINE_CHANNEL, None)
        if top is None and versions:
            top = max(versions.values())
        next_version = saver.get_next_version(top, None)
        if engine_version is not None:
            versions[ENGINE_CHANNEL] = engine_version
        for k in updated:
            versions[k] = next_version
        for k in gone:
            versions[k] = next_version
    checkpoint: dict[str, Any] = {
        "v": CURRENT_FORMAT,
        "id": record.checkpoint_id,
        "ts": record.created_at,
        "channel_values": values,
        "channel_versions": versions,
        "versions_seen": seen,
        "updated_channels": _available(record, updated, values) if listed else None,
    }
    record.checkpoint = checkpoint
    return checkpoint


def write_checkpoint(
    saver: BaseCheckpointSaver[Any],
    record: CheckpointRecord,
    saved_versions: Mapping[str, Any] | None,
    *,
    lean: bool = False,
    changed: Sequence[str] | None = None,
    outcomes_saved: bool = False,
) -> dict[str, Any]:
    """``put`` the checkpoint of ``record`` (see `checkpoint_put`); returns its channel
    versions."""
    args, versions = checkpoint_put(
        saver, record, saved_versions, lean=lean, changed=changed, outcomes_saved=outcomes_saved
    )
    _call(saver, "put", *args)
    return versions


def checkpoint_put(
    saver: BaseCheckpointSaver[Any],
    record: CheckpointRecord,
    saved_versions: Mapping[str, Any] | None,
    *,
    lean: bool = False,
    changed: Sequence[str] | None = None,
    outcomes_saved: bool = False,
    known_restorable: bool = False,
    restorable_test: Callable[..., bool] = restorable,
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The ``put`` of the checkpoint `build_checkpoint` made for ``record`` (or, written
    before, again under its id: a step that stopped part-way changed its engine state), with
    the engine's blob; ``lean``: without it when the record is `restorable` (a continuing run
    rebuilds the engine state from LangGraph's fields; encoding the blob was most of a plain
    step's checkpoint cost). ``saved_versions``: the channel versions the saver already holds
    values for (only the others go in ``new_versions``); ``changed``: when those are the
    versions the checkpoint was built on, its ``updated_channels`` (then they are the others,
    without comparing every channel's version); ``outcomes_saved``: see `restorable`;
    ``known_restorable``: the caller found it `restorable` (its engine state may not be
    filled in); ``restorable_test``: the test in place of `restorable` (the run's
    `CheckpointPolicy.restorable`).
    Returns ``put``'s arguments and the checkpoint's channel versions (sync and async
    drivers call ``put`` or ``aput``)."""
    if record.stored is not None:
        return _stored_put(saver, record, record.stored, saved_versions)
    built = record.checkpoint
    if built is None:
        raise ValueError(f"checkpoint {record.checkpoint_id} was never built")
    blob = not (
        lean and (known_restorable or restorable_test(record, outcomes_saved=outcomes_saved))
    )
    versions: dict[str, Any] = built["channel_versions"]
    values: dict[str, Any] = built["channel_values"]
    if not blob and ENGINE_CHANNEL not in versions and ENGINE_CHANNEL not in values:
        # The checkpoint as built is the one saved: handed over as it is, no copy. Nothing
        # changes a built checkpoint's dicts (the next one is built in new dicts, and a
        # record's checkpoint is replaced, never changed); a saver may keep them, and the
        # savers of the ecosystem copy before they change what they are given.
        checkpoint = built
    else:
        versions = dict(versions)
        values = dict(values)
        if not blob:
            versions.pop(ENGINE_CHANNEL, None)
            values.pop(ENGINE_CHANNEL, None)
        else:
            versions[ENGINE_CHANNEL] = saver.get_next_version(versions.get(ENGINE_CHANNEL), None)
            values[ENGINE_CHANNEL] = engine_blob(record, saver.serde)
        checkpoint = {**built, "channel_values": values, "channel_versions": versions}
        record.checkpoint = {**built, "channel_versions": versions}
    if changed is not None:
        new_versions = step_new_versions(record, versions, values, changed)
        if blob:
            new_versions[ENGINE_CHANNEL] = versions[ENGINE_CHANNEL]
    else:
        held = saved_versions or {}
        try:  # as a set difference: one C-level pass over the versions of every channel
            new_versions = dict(versions.items() - held.items())
        except TypeError:  # a saver whose versions are not hashable
            new_versions = {k: v for k, v in versions.items() if held.get(k) != v}
    args = (
        config_of(record.thread_id, record.checkpoint_ns, record.parent_id),
        checkpoint,
        dict(record.metadata),
        new_versions,
    )
    return args, versions


def step_new_versions(
    record: CheckpointRecord,
    versions: Mapping[str, Any],
    values: Mapping[str, Any],
    changed: Sequence[str],
) -> dict[str, Any]:
    """``put``'s ``new_versions`` of ``record``'s checkpoint (``versions``, ``values``, the
    engine's blob aside) written on the versions it was built on: its updated channels
    (``changed``) and those it holds at the step's version without their being updated."""
    new_versions = {k: versions[k] for k in changed if k in versions}
    # the Send channel's value (an empty list) under the version it got when its Sends
    # were consumed: not an updated channel, written all the same (LangGraph hands it
    # over once; again under the same version is the same blob)
    if (
        TASKS in values
        and TASKS not in new_versions
        and (not changed or versions.get(TASKS) == versions.get(changed[0]))
    ):
        new_versions[TASKS] = versions[TASKS]
    for k in record.emptied:
        new_versions[k] = versions[k]
    return new_versions


def _stored_put(
    saver: BaseCheckpointSaver[Any],
    record: CheckpointRecord,
    stored: Mapping[str, Any],
    saved_versions: Mapping[str, Any] | None,
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """`checkpoint_put` of a record whose run applied the checkpoint's writes of no task
    (see `_lgnull`): the checkpoint goes back as the saver holds it (``stored``: a reader
    applies those writes to it, as LangGraph's), with the engine's blob of the state the run
    is in, which notes how many of them it has applied (``null_applied``)."""
    versions = dict(stored["channel_versions"])
    values = dict(stored["channel_values"])
    versions[ENGINE_CHANNEL] = saver.get_next_version(versions.get(ENGINE_CHANNEL), None)
    checkpoint = {**stored, "channel_values": values, "channel_versions": versions}
    # the state the stored channels hold: a key only the writes of no task set is not one
    view = replace(
        record,
        values={k: values[k] for k in record.values if k in values},
        checkpoint=checkpoint,
    )
    values[ENGINE_CHANNEL] = engine_blob(view, saver.serde)
    record.stored = {**stored, "channel_versions": versions}
    held = saved_versions or {}
    new_versions = {k: v for k, v in versions.items() if held.get(k) != v}
    args = (
        config_of(record.thread_id, record.checkpoint_ns, record.parent_id),
        checkpoint,
        dict(record.metadata),
        new_versions,
    )
    return args, versions


def put_task_writes(
    saver: BaseCheckpointSaver[Any],
    thread_id: str,
    ns: str,
    checkpoint_id: str,
    task_id: str,
    writes: Sequence[tuple[str, Any]],
    task_path: str = "",
) -> None:
    """LangGraph's ``put_writes``: ``writes`` of task ``task_id`` as pending writes of the
    checkpoint ``checkpoint_id`` (``task_path`` only to a saver whose ``put_writes`` takes
    one: savers written before it existed do not, and LangGraph leaves it out for them)."""
    _call(
        saver,
        "put_writes",
        *task_writes_args(saver, thread_id, ns, checkpoint_id, task_id, writes, task_path),
    )


def task_writes_args(
    saver: BaseCheckpointSaver[Any],
    thread_id: str,
    ns: str,
    checkpoint_id: str,
    task_id: str,
    writes: Sequence[tuple[str, Any]],
    task_path: str = "",
) -> tuple[Any, ...]:
    """`put_task_writes`'s arguments to ``put_writes`` (a copy of ``writes``)."""
    config = config_of(thread_id, ns, checkpoint_id)
    if task_path and takes_task_path(type(saver)):
        return (config, list(writes), task_id, task_path)
    return (config, list(writes), task_id)


_TAKES_TASK_PATH: dict[type, bool] = {}


def takes_task_path(cls: type) -> bool:
    """Whether both ``put_writes`` and ``aput_writes`` of a saver class take ``task_path``
    (either may be called, see `saver_call`)."""
    known = _TAKES_TASK_PATH.get(cls)
    if known is None:
        known = True
        for name in ("put_writes", "aput_writes"):
            try:
                params = inspect.signature(getattr(cls, name)).parameters
            except (TypeError, ValueError, AttributeError):
                continue
            known = known and "task_path" in params
        _TAKES_TASK_PATH[cls] = known
    return known


def triggers_of(all_values: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """A checkpoint's channels besides the state keys ``values`` holds and ours."""
    return {k: v for k, v in all_values.items() if k not in values and k not in PRIVATE_CHANNELS}
