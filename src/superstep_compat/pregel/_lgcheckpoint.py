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

Never imports the host or the engine's persistence stores.
"""

from __future__ import annotations

import binascii
import inspect
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from hashlib import sha1
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from xxhash import xxh3_128_hexdigest

from superstep_compat.pregel._lgblob import engine_blob, engine_codec
from superstep_compat.pregel._record import CheckpointRecord, config_of
from superstep_compat.pregel._saver_bridge import saver_call as _call
from superstep_compat.types import Send
from superstep_core.node import Activated
from superstep_core.runtime import QuietSnapshot

__all__ = [
    "BRANCH_PREFIX",
    "CURRENT_FORMAT",
    "ENGINE_CHANNEL",
    "ERROR",
    "INTERRUPT",
    "NO_WRITES",
    "RESUME",
    "START_CHANNEL",
    "TASKS",
    "build_checkpoint",
    "checkpoint_put",
    "engine_codec",
    "graph_versions",
    "is_state_channel",
    "lg_task_id",
    "paused_restorable",
    "put_task_writes",
    "quiet_restorable",
    "restorable",
    "step_new_versions",
    "task_writes_args",
    "triggers_of",
    "write_checkpoint",
    "written_lean",
]

CURRENT_FORMAT = 4
"""The checkpoint layout (``v``) LangGraph 1.2 writes; older ones are migrated on read."""
ENGINE_CHANNEL = "__superstep_facade__"
# the channel's name before it was told apart from the engine's own ``__superstep__``
# (`superstep_core.host.thread_checkpoints.STEP`), which an engine thread holds
_ENGINE_CHANNEL_BEFORE = "__superstep__"
START_CHANNEL = "__start__"
TASKS = "__pregel_tasks"
BRANCH_PREFIX = "branch:to:"
JOIN_PREFIX = "join:"
ERROR = "__error__"
INTERRUPT = "__interrupt__"
RESUME = "__resume__"
NO_WRITES = "__no_writes__"
_LG_PRIVATE = (ENGINE_CHANNEL, _ENGINE_CHANNEL_BEFORE)
_LG_CHANNELS = frozenset(
    {START_CHANNEL, TASKS, ENGINE_CHANNEL, _ENGINE_CHANNEL_BEFORE, "__previous__", "__end__"}
)


PULL = "__pregel_pull"
PUSH = "__pregel_push"


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
        name in _LG_CHANNELS or name.startswith(BRANCH_PREFIX) or name.startswith(JOIN_PREFIX)
    )


def graph_versions(versions: Mapping[str, Any]) -> dict[str, Any]:
    """The channel versions of a checkpoint without those of the engine's blob (channels no
    LangGraph graph has)."""
    return {k: v for k, v in versions.items() if k not in _LG_PRIVATE}


# --- writing ----------------------------------------------------------------------------------


def _refilled(channel: str, before: Any, ran: Sequence[str]) -> bool:
    """Whether join ``channel`` (LangGraph's ``join:<source>+<source>:<target>``), holding
    ``before`` at the step's start and the same set after it, was emptied and written again:
    its target's pull task ran in the step, which consumes a full barrier (LangGraph's
    `NamedBarrierValue`), and the step's writes named every source again."""
    sources, _, target = channel[len(JOIN_PREFIX) :].rpartition(":")
    return target in ran and bool(before) and set(before) == set(sources.split("+"))


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
    new version when it held values), where the engine holds no value."""
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
        # its target ran on the full barrier (consumed) and the step's writes filled it again
        for k in [k for k in updated if k.startswith(JOIN_PREFIX) and k in prev_values]:
            if values[k] == prev_values[k] and not _refilled(k, prev_values[k], ran):
                values[k] = prev_values[k]
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
        if k in values or k in _LG_PRIVATE:
            continue
        if k in topics or k.startswith(JOIN_PREFIX):
            # LangGraph's join channel, once written, stays in its checkpoints: consumed (its
            # target ran) as an empty set, a new version when it held sources, not updated;
            # an emptied `Topic` stays as an empty list the same way
            values[k] = [] if k in topics else set()
            if not prev_values[k]:
                continue
            emptied.append(k)
        gone.append(k)
    record.emptied = tuple(emptied)
    if consumed:
        # computed before the consumed list went in: never among ``updated``
        gone.append(TASKS)
    for name in ran:
        seen[name] = {ch: versions[ch] for ch in triggers_of(name) if ch in versions}
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
        "updated_channels": updated if listed else None,
    }
    record.checkpoint = checkpoint
    return checkpoint


def restorable(record: CheckpointRecord, *, outcomes_saved: bool = False) -> bool:
    """Whether rebuilding ``record``'s engine state from LangGraph's own fields (what
    `_lgrestore.rebuild` does for a checkpoint LangGraph wrote) gives the same run: a step
    of the root graph whose pending tasks are plain pull or `Send` tasks (fresh activations,
    a join's target its complete barrier started among them; nothing in flight: no effects, timers,
    partial joins, deferred nodes, failures or outcomes kept from a step that stopped
    part-way) and whose engine values are the state values. A task may
    wait on the interrupts it raised on its first attempt, with no answers yet and no work
    of its own kept (its ``__interrupt__`` pending write is all a rebuild needs: the task
    runs afresh with its answer, as LangGraph runs it). Such a checkpoint is written
    without the engine's blob, as LangGraph writes it. Live ephemeral channels (written by
    the step: an `EphemeralValue`, a non-accumulating `Topic`) do not matter: whoever goes
    on from a checkpoint (a run, an edit) empties those its next step does not write.

    ``outcomes_saved``: the record's step failed after it was written, its engine state is
    the one from before the step, and what the step's tasks did (finished tasks' writes,
    the failed task's ``__error__``) is saved as pending writes, from which a rebuild takes
    it; so finished tasks, results and errors do not make the record unrestorable."""
    engine = record.engine
    settled = not outcomes_saved and (record.finished or record.current_values is not None)
    if settled or engine is None:
        return False
    if (
        engine.awaited
        or engine.timers
        or engine.barriers
        or engine.outputs
        or engine.deferred
        or engine.failure is not None
        or engine.held
    ):
        return False
    if not _same_values(record.values, engine.values, engine.queue):
        return False
    found = _instances_restorable(engine.instances, record)
    return found is not None and _tasks_restorable(record, outcomes_saved, *found)


def paused_restorable(record: CheckpointRecord) -> bool:
    """`restorable` of the checkpoint of a step that paused on interrupts: ``record`` was
    saved without the engine's blob as the step began (`written_lean`), its ``engine`` is
    the state the step paused in. The tasks that finished beside the interrupted ones are
    gone from it, their writes committed (``record.current_values``); they are saved as
    the tasks' pending writes, from which a rebuild hands their outcomes back when the step
    runs again (as LangGraph runs it). The rest is as `restorable` asks: the interrupted
    tasks raised on their first attempt with no answers, nothing else in flight."""
    engine = record.engine
    if (
        engine is None
        or engine.awaited
        or engine.timers
        or engine.barriers
        or engine.outputs
        or engine.deferred
        or engine.failure is not None
        or engine.held
    ):
        return False
    current = record.values if record.current_values is None else record.current_values
    if not _same_values(current, engine.values, engine.queue):
        return False
    found = _instances_restorable(engine.instances, record)
    return found is not None and _tasks_restorable(record, True, *found)


def _instances_restorable(
    instances: Iterable[Any], record: CheckpointRecord
) -> tuple[int, set[str]] | None:
    """`restorable`'s test of the engine's activations: each on its first attempt, given
    its payload again by a rebuild, nothing in flight; either active and fresh, or
    suspended on the interrupts it raised (``waiting``) or on its subgraph's breakpoint
    (``stopped``) with no answers but those ``record``'s pending writes save for its task
    (a rebuild gives them back, `resume_answers`). Returns (waiting, stopped), None when
    not so."""
    waiting = 0
    stopped: set[str] = set()
    saved: dict[str, Any] | None = None  # the saved answers by activation, found once
    for inst in instances:
        if (
            inst.attempt != 1
            # a suspended task issued its one task effect, whose answer was the interrupt
            or inst.effects_issued > (1 if inst.state == "suspended" else 0)
            or inst.pending_effects
            or inst.holding
            or not _rebuilt_payload(inst)
        ):
            return None
        if inst.state == "suspended":
            # raised on its first run, holding nothing but the answers it was given
            if inst.interrupt is None:
                return None
            if not _fresh_memory(inst.memory):
                if saved is None:
                    saved = _saved_answers(record)
                if not _fresh_memory(inst.memory, saved.get(inst.id)):
                    return None
            if inst.interrupt:
                waiting += 1
            else:  # no interrupt of its own: its subgraph stopped at a breakpoint
                stopped.add(inst.id)
        elif inst.state != "active" or inst.memory or inst.interrupt is not None:
            return None
    return waiting, stopped


def quiet_restorable(record: CheckpointRecord, quiet: QuietSnapshot) -> bool:
    """`restorable` of a record of the root graph whose ``engine`` is not filled in yet
    (`CheckpointRecorder` takes it only when it is read, see `CheckpointRecorder.engine_of`),
    as the recorder has just made it for a step: ``quiet`` its engine state; its tasks are
    fresh pull or `Send` tasks (no error, result, interrupt or subgraph yet), nothing of it
    finished and no interrupt noted, so of `restorable`'s tests only those of the engine
    state are left to make: nothing in flight and every activation on its first attempt
    and active (what makes ``quiet``), each given its payload again by a rebuild, the
    values the state values."""
    for inst in quiet.instances:
        if not _rebuilt_payload(inst):
            return False
    return _same_values(record.values, quiet.values, quiet.queue)


def _same_values(
    values: Mapping[str, Any], engine_values: Mapping[str, Any], queue: Sequence[tuple[str, Any]]
) -> bool:
    """Whether the engine's values are the state ``values`` (the same objects) and its
    queue holds only fresh activations (no payload): what `restorable` needs of them."""
    missing = object()
    for key, value in engine_values.items():
        if values.get(key, missing) is not value:
            return False
    for _, event in queue:
        if type(event) is not Activated or not (
            event.payload is None or type(event.payload) is Send or _join_payload(event.payload)
        ):
            return False
    return True


def _join_payload(payload: Any) -> bool:
    """Whether ``payload`` is what a join's complete barrier starts a façade node with: each
    source's output, None (a façade task's outcome goes to channels, never to the barrier)."""
    return type(payload) is dict and all(v is None for v in payload.values())


def _rebuilt_payload(inst: Any) -> bool:
    """Whether a rebuild gives activation ``inst`` its payload and start: none; when its
    join's complete barrier started it, the join's (`_lgrestore` fires the join again); when
    a `Send` spawned it, that packet (saved in ``__pregel_tasks``, spawned again)."""
    if inst.spawned:
        return type(inst.payload) is Send
    return inst.payload is None or (inst.joined is not None and _join_payload(inst.payload))


def _tasks_restorable(
    record: CheckpointRecord, outcomes_saved: bool, waiting: int, stopped: Collection[str] = ()
) -> bool:
    """`restorable`'s test of ``record``'s tasks, ``waiting`` of its activations suspended
    on interrupts, ``stopped`` on their subgraph's breakpoint. A task waiting on its
    subgraph (its interrupts, or its breakpoint) is rebuilt as LangGraph runs it again: due,
    with the subgraph's interrupts as its ``__interrupt__`` write; the subgraph goes on from
    its own checkpoint."""
    asked = 0
    raised = 0  # the interrupts of all tasks (counted here: no second pass over the tasks)
    found = 0
    parent = record.checkpoint_ns
    for task in record.tasks:
        if task.path[:1] not in ((PULL,), (PUSH,)) or (
            not outcomes_saved and (task.error is not None or task.result is not None)
        ):
            return False
        if task.state_ns and task.state_ns != (
            f"{parent}|{task.name}:{task.id}" if parent else f"{task.name}:{task.id}"
        ):
            # a subgraph saved under a namespace of its own (``checkpointer=True``: no task
            # id), which a rebuild does not find from the task
            return False
        if task.interrupts:
            asked += 1
            raised += len(task.interrupts)
        elif task.key in stopped:
            if not task.state_ns:
                return False
            found += 1
    # every interrupt is a task's (none without its task)
    return waiting == asked and found == len(stopped) and len(record.interrupts) == raised


def _fresh_memory(memory: Mapping[str, Any], answers: Any = None) -> bool:
    """An interrupted activation's memory as a rebuild gives it: no argument, no results
    of work done inside the task, as answers ``answers`` (the list saved for its task)
    or none."""
    for key, value in memory.items():
        if key == "resume":
            if value and (type(answers) is not list or list(value) != answers):
                return False
        elif key != "arg" or value:
            return False
    return True


def _saved_answers(record: CheckpointRecord) -> dict[str, Any]:
    """The answers ``record``'s pending writes save for its tasks (``__resume__``), by the
    activation that runs each."""
    keys = {task.id: task.key for task in record.tasks if task.key}
    return {
        keys[task_id]: value
        for task_id, channel, value in record.pending
        if channel == RESUME and task_id in keys
    }


def written_lean(record: CheckpointRecord) -> bool:
    """Whether ``record``'s checkpoint was last written without the engine's blob."""
    built = record.checkpoint
    return built is not None and ENGINE_CHANNEL not in built["channel_versions"]


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
    filled in).
    Returns ``put``'s arguments and the checkpoint's channel versions (sync and async
    drivers call ``put`` or ``aput``)."""
    if record.stored is not None:
        return _stored_put(saver, record, record.stored, saved_versions)
    built = record.checkpoint
    if built is None:
        raise ValueError(f"checkpoint {record.checkpoint_id} was never built")
    blob = not (lean and (known_restorable or restorable(record, outcomes_saved=outcomes_saved)))
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
    if task_path and _takes_task_path(type(saver)):
        return (config, list(writes), task_id, task_path)
    return (config, list(writes), task_id)


_TAKES_TASK_PATH: dict[type, bool] = {}


def _takes_task_path(cls: type) -> bool:
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
    return {k: v for k, v in all_values.items() if k not in values and k not in _LG_PRIVATE}
