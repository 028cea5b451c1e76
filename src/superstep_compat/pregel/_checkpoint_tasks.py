"""Pure functions over an execution's pending activations and a checkpoint's records, shared
by the writing of checkpoints (`_checkpoint_recorder`), their snapshots and the restoring of
threads: node names and task ids of activations, a task's triggers and push index, the task
records of a checkpoint, a node's edge writes, the outcome a task's saved writes stand for,
checkpoint ids.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from superstep_compat._internal._constants import END, ERROR_SOURCE_NODE, START
from superstep_compat.pregel._lgcheckpoint import (
    CURRENT_FORMAT,
    ERROR,
    INTERRUPT,
    PULL,
    PUSH,
    START_CHANNEL,
    TASKS,
    lg_task_id,
)
from superstep_compat.pregel._record import CheckpointRecord, TaskRecord
from superstep_compat.pregel._task_context import TaskOutcome, uuid5_url
from superstep_compat.types import Send
from superstep_core.node import Activated, EffectCompleted
from superstep_core.runtime import Execution, StepOutcome

__all__ = [
    "HeldTask",
    "Startable",
    "delivered_outcomes",
    "first_come",
    "held_outcomes",
    "new_checkpoint_id",
    "node_of",
    "node_triggers",
    "pending_activations",
    "pending_tasks",
    "push_indexes",
    "push_tasks_first",
    "saved_outcome",
    "task_id_for",
    "task_records",
    "trigger_channels",
]


Event = tuple[tuple[str, ...], str, Any]
"""(namespace, stream mode, data)."""

BRANCH_PREFIX = "branch:to:"
SEND_CHANNEL = TASKS
NO_WRITES = "__no_writes__"
ERROR_CHANNEL = ERROR
_MISSING: Any = object()
_CONTROL = (SEND_CHANNEL, NO_WRITES)
# writes that say what happened to a task, not what it produced (with an error, or an
# interrupt and no output, the task did not finish)
_NOT_OUTPUT = frozenset({"__resume__", "__error_source_node__"})


def node_of(activation_id: str) -> str:
    """The node of an activation id (``"<node>:<seq>"``)."""
    return activation_id.rsplit(":", 1)[0]


def task_id_for(checkpoint_id: str, key: str) -> str:
    """The id of the task ``key`` (an activation id, or a node name for a task the engine has
    not numbered yet) of checkpoint ``checkpoint_id``."""
    return uuid5_url(f"{checkpoint_id}/{key}")


def pending_activations(ex: Execution, order: Mapping[str, int]) -> list[tuple[str, str]]:
    """(node, key) of every pending task, in ``add_node`` order as LangGraph lists them: an
    activation queued or waiting (key: its activation id). Two `Send` tasks to a node are
    two entries. A deferred node waiting for the graph to go quiet is not a task yet (in
    LangGraph its trigger only becomes available when a step leaves no other task)."""
    found = [
        (node_of(aid), aid) for aid, ev in ex.queue if isinstance(ev, (Activated, EffectCompleted))
    ]
    found.extend([(i.node, i.id) for i in ex.instances.values() if i.state != "active"])
    if len(found) > 1:
        last = len(order)
        instances = ex.instances

        # LangGraph lists the push tasks (`Send`s, in the order they were sent) before the
        # pull tasks (in node order)
        def rank(pair: tuple[str, str]) -> tuple[int, int, str]:
            name, key = pair
            inst = instances.get(key)
            if (
                name != START
                and inst is not None
                and inst.spawned
                and isinstance(inst.payload, Send)
            ):
                return (0, _seq(key), name)
            return (1, order.get(name, last), name)

        found.sort(key=rank)
    return found


def _seq(activation_id: str) -> int:
    """The sequence number of an activation id (``"<node>:<seq>"``: the order of creation)."""
    tail = activation_id.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def held_outcomes(ex: Execution) -> list[tuple[str, TaskOutcome]]:
    """The outcomes of the tasks that finished in a step paused on interrupts (their results
    wait in the engine until the step completes, see `suspend_holds_step`): a held result,
    or the within-step result the engine keeps for a held activation."""
    kept = {aid: ev for aid, ev in ex.kept.values()} if ex.kept else {}
    found: list[tuple[str, TaskOutcome]] = []
    for aid, ev in ex.held:
        result = ev if isinstance(ev, EffectCompleted) else kept.get(aid)
        if result is not None and isinstance(result.result, TaskOutcome):
            found.append((aid, result.result))
    return found


def delivered_outcomes(outcome: StepOutcome) -> list[tuple[str, TaskOutcome]]:
    """The outcomes of the tasks whose results a superstep delivered."""
    return [
        (aid, ev.result)
        for aid, ev in outcome.delivered
        if isinstance(ev, EffectCompleted) and isinstance(ev.result, TaskOutcome)
    ]


def pending_tasks(ex: Execution, order: Mapping[str, int]) -> tuple[str, ...]:
    """A snapshot's ``next``: one node name per pending task."""
    return tuple(name for name, _ in pending_activations(ex, order))


def node_triggers(spec: Any, name: str) -> tuple[str, ...]:
    """LangGraph's trigger channels of node ``name`` of a `GraphSpec`: ``__start__`` for START,
    a low-level `Pregel` node's the channels it subscribes to, else ``branch:to:<name>`` and
    the channel of each join (waiting edge) into it."""
    if name == START:
        return (START_CHANNEL,)
    subscribed: Mapping[str, tuple[str, ...]] | None = getattr(spec, "subscriptions", None)
    if subscribed is not None:
        return subscribed.get(name, ())
    joins = spec.joins_into.get(name)
    if not joins:
        return (BRANCH_PREFIX + name,)
    return (BRANCH_PREFIX + name, *(f"join:{'+'.join(sources)}:{name}" for sources in joins))


def push_indexes(ex: Execution, pending: Iterable[tuple[str, str]]) -> dict[str, int]:
    """The pending tasks that run a `Send` (push tasks), by key: their index among the
    checkpoint's ``__pregel_tasks``."""
    out: dict[str, int] = {}
    for name, key in pending:
        inst = ex.instances.get(key)
        if name != START and inst is not None and inst.spawned and isinstance(inst.payload, Send):
            out[key] = len(out)
    return out


class Startable(Protocol):
    """A task about to start, as a launch order sees it (an `EffectRequest`, or a task of
    a resumed step that does not run again)."""

    @property
    def activation_id(self) -> str: ...

    @property
    def node(self) -> str: ...


@dataclass(frozen=True)
class HeldTask:
    """A task of a resumed step that finished before the step paused: it starts no effect
    (its result is held in the engine), but is announced in the step's order."""

    activation_id: str
    node: str


def first_come(task: Startable) -> int:
    """A launch order that keeps request order (before a host is watched)."""
    return 0


def push_tasks_first(
    ex: Execution, pull_order: Mapping[str, int]
) -> Callable[[Startable], tuple[bool, int, str, int]]:
    """The order a step's tasks start in (a host's ``launch_key``): LangGraph prepares and
    runs a step's push tasks (`Send`s, in the order they were sent) before its pull tasks,
    though it applies their writes pull tasks first; its pull tasks by node name, or by
    ``pull_order`` (node -> rank) while that is not empty."""
    instances = ex.instances

    def key(task: Startable) -> tuple[bool, int, str, int]:
        aid = task.activation_id
        inst = instances.get(aid)
        if inst is not None and inst.spawned:
            return (False, 0, "", _seq(aid))
        return (True, pull_order.get(task.node, 0), task.node, _seq(aid))

    return key


def trigger_channels(
    ex: Execution, pending: Iterable[tuple[str, str]], start: Any = _MISSING, *, pulls: bool = True
) -> dict[str, Any]:
    """LangGraph's channels that trigger the pending (node, key) tasks: ``__start__`` (the
    input, ``start``), ``branch:to:<node>`` for a pull task, ``__pregel_tasks`` (the `Send`
    packets of push tasks) and ``join:<sources>:<target>`` (the sources a join has seen; every
    source for a task its join's complete barrier started, which LangGraph triggers by that
    channel alone). ``pulls`` False: a pull task has no channel of its own (a low-level
    `Pregel`'s node is triggered by state channels, which the checkpoint holds anyway).
    A deferred node's channel is LangGraph's after-finish one, ``(value, finished)``:
    finished for its due task, not for a request that waits (``Execution.deferred``)."""
    out: dict[str, Any] = {}
    sends: list[Any] = []
    nodes = ex.graph.nodes
    joins = ex.graph.joins_by_name
    for name, key in pending:
        if name == START:
            if start is not _MISSING:
                out[START_CHANNEL] = start
            continue
        inst = ex.instances.get(key)
        if inst is not None and inst.spawned and isinstance(inst.payload, Send):
            sends.append(inst.payload)
        elif inst is not None and inst.joined is not None:
            sources = set(joins[inst.joined].sources)
            out[inst.joined] = (sources, True) if nodes[name].defer else sources
        elif pulls:
            if not nodes[name].defer:
                out[BRANCH_PREFIX + name] = None
                continue
            # released from its wait, it no longer notes its join: its payload tells
            join = _join_of_payload(ex, name, None if inst is None else inst.payload)
            if join is None:
                out[BRANCH_PREFIX + name] = (None, True)
            else:
                out[join] = (set(joins[join].sources), True)
    if pulls:
        for name, _, payload in ex.deferred:
            join = _join_of_payload(ex, name, payload)
            if join is None:
                out[BRANCH_PREFIX + name] = (None, False)
            else:
                out[join] = (set(joins[join].sources), False)
    if sends:
        out[SEND_CHANNEL] = sends
    for (join, _), barrier in ex.barriers.items():
        if barrier.completed and not barrier.fired:
            seen = set(barrier.completed)
            out[join] = (seen, False) if nodes[joins[join].target].defer else seen
    return out


def _join_of_payload(ex: Execution, node: str, payload: Any) -> str | None:
    """The join into ``node`` whose complete barrier requested it with ``payload`` (its
    sources' outputs by name), or None."""
    if type(payload) is not dict:
        return None
    for name, join in ex.graph.joins_by_name.items():
        if join.target == node and set(join.sources) == set(payload):
            return name
    return None


def task_records(
    checkpoint_id: str,
    pending: Iterable[tuple[str, str]],
    *,
    step: int | None = None,
    ns: str = "",
    triggers_of: Callable[[str], Sequence[str]] | None = None,
    pushes: Mapping[str, int] | None = None,
    format: int = CURRENT_FORMAT,
    parts_of: Callable[[str], tuple[str, ...]] | None = None,
) -> list[TaskRecord]:
    """The `TaskRecord`s of a checkpoint's pending (node, key) tasks, with LangGraph's task
    ids and paths when the checkpoint's ``step`` and the nodes' triggers are given (push
    tasks: their index in ``pushes``; ``format``: the checkpoint's layout, see
    `lg_task_id`); ``parts_of``: instead of sorting ``triggers_of``'s, a pull task's id
    parts, ``PULL`` and its node's sorted triggers (`CheckpointPolicy.parts_of`)."""
    out: list[TaskRecord] = []
    for name, key in pending:
        index = pushes.get(key) if pushes else None  # (no empty dict made per task)
        if index is not None:
            path: tuple[Any, ...] = (PUSH, index, False)
            parts: tuple[str, ...] = (PUSH, str(index))
        else:
            path = (PULL, name)
            if parts_of is not None:
                parts = parts_of(name)
            else:
                parts = (PULL, *sorted(triggers_of(name))) if triggers_of is not None else ()
        if step is None or not parts:
            task_id = task_id_for(checkpoint_id, key)
        else:
            task_id = lg_task_id(checkpoint_id, ns, step + 1, name, *parts, format=format)
        out.append(TaskRecord(task_id, name, path, key=key))
    return out


def find_task(record: CheckpointRecord, activation_id: str) -> TaskRecord | None:
    """The task of ``record`` that activation ``activation_id`` runs, else (a task keyed by
    its node's name) the first unfinished one of its node."""
    for task in record.tasks:
        if task.key == activation_id:
            return task
    name = node_of(activation_id)
    for task in record.tasks:
        if task.name == name and task.result is None and task.id not in record.finished:
            return task
    return None


def edge_writes(spec: Any, name: str) -> list[tuple[str, Any]]:
    """The writes LangGraph's node ``name`` makes for its static edges: ``branch:to:<target>``
    for each plain edge, ``join:<sources>:<target>`` (its own name) for each join it feeds."""
    found = spec.static_out.get(name)
    if found is None:
        return []
    targets, joins = found
    out: list[tuple[str, Any]] = [(BRANCH_PREFIX + t, None) for t in targets if t != END]
    out.extend(
        (f"join:{'+'.join(sources)}:{target}", name) for sources, target in joins if target != END
    )
    return out


def outcome_writes(
    outcome: TaskOutcome, edges: Sequence[tuple[str, Any]] = ()
) -> list[tuple[str, Any]]:
    """A finished task's outcome as pending writes (LangGraph's channel names for control);
    ``edges``: its node's static edge writes (`edge_writes`)."""
    writes = list(outcome.writes)
    gotos, sends = outcome.gotos, outcome.sends
    commanded = outcome.commanded
    if commanded:  # LangGraph's order: the task's Command's routes, its edges, its routers'
        writes.extend(
            (SEND_CHANNEL, r) if isinstance(r, Send) else (BRANCH_PREFIX + r, None)
            for r in commanded
        )
        n_sends = sum(isinstance(r, Send) for r in commanded)
        gotos, sends = gotos[len(commanded) - n_sends :], sends[n_sends:]
    if not outcome.skip_edges:
        writes.extend(edges)
    if gotos:
        writes.extend([(BRANCH_PREFIX + goto, None) for goto in gotos])
    if sends:
        writes.extend([(SEND_CHANNEL, send) for send in sends])
    return writes or [(NO_WRITES, None)]


def saved_outcome(
    writes: Sequence[tuple[str, Any]], edges: Sequence[tuple[str, Any]] = ()
) -> TaskOutcome | None:
    """The outcome saved as ``writes`` by `outcome_writes` (None: the task did not finish);
    the static edge writes (``edges``) are the engine's edges, not the task's control."""
    out = TaskOutcome(cached=True)
    handled = _handled_failure(writes)
    if handled is not None:
        return handled
    static = {channel for channel, _ in edges}
    # an interrupt beside writes of the task's own: it was answered since (by interrupt id,
    # while other tasks of its step still wait) and finished, as LangGraph reads it
    asked = wrote = False
    for channel, value in writes:
        if channel == INTERRUPT:
            asked = True
            continue
        if channel == ERROR:
            return None  # the task failed: it runs again
        if channel in _NOT_OUTPUT:
            continue
        wrote = True
        if channel in static or channel.startswith("join:"):
            continue
        if channel.startswith(BRANCH_PREFIX):
            out.gotos.append(channel[len(BRANCH_PREFIX) :])
        elif channel == SEND_CHANNEL and isinstance(value, Send):
            out.sends.append(value)
        elif channel != NO_WRITES:
            out.writes.append((channel, value))
    if asked and not wrote:
        return None  # waiting on its interrupt: the task runs again with its answer
    out.update = dict(out.writes) if out.writes else None
    return out


class HandledNodeError(Exception):
    """A failure an error handler took, read back from a checkpoint: the saved error's text
    (LangGraph may hand a handler the error as read back, not as raised)."""


def _handled_failure(writes: Sequence[tuple[str, Any]]) -> TaskOutcome | None:
    """The outcome of a task whose failure went to its error handler (an ``__error__``
    write beside the ``__error_source_node__`` marker): that failure again, with no retry,
    so continuing the step runs the handler, not the task; None for any other task."""
    if not any(channel == ERROR_SOURCE_NODE for channel, _ in writes):
        return None
    error = next((value for channel, value in writes if channel == ERROR), None)
    if error is None:
        return None
    if not isinstance(error, BaseException):
        error = HandledNodeError(error if isinstance(error, str) else repr(error))
    return TaskOutcome(error=error, cached=True)


_id_lock = threading.Lock()
_UUID_EPOCH = 0x01B21DD213814000
"""100-ns intervals from the UUID epoch (1582-10-15) to the Unix epoch."""
_last_timestamp = 0


def new_checkpoint_id(step: int | None = None) -> str:
    """LangGraph's checkpoint id: a uuid6 (time-ordered, so later checkpoints sort after
    earlier ones whichever of LangGraph and Superstep wrote them) whose clock sequence is the
    checkpoint's ``step`` (random when None) and whose node is random, as
    `langgraph.checkpoint.base.id.uuid6` makes it: 100-ns timestamp, strictly increasing
    within the process. Written as the canonical string directly (the library builds an
    integer, a `uuid.UUID` and then its string: a tenth of a checkpointed step)."""
    global _last_timestamp
    with _id_lock:
        timestamp = time.time_ns() // 100 + _UUID_EPOCH
        if timestamp <= _last_timestamp:
            timestamp = _last_timestamp + 1
        _last_timestamp = timestamp
    seq = random.getrandbits(14) if step is None else step & 0x3FFF
    high = (timestamp >> 12) & 0xFFFFFFFFFFFF  # its 12 hex digits: 8, a dash, then 4
    return (
        f"{high >> 16:08x}-{high & 0xFFFF:04x}-{0x6000 | (timestamp & 0x0FFF):04x}-"
        f"{0x8000 | seq:04x}-{random.getrandbits(48):012x}"
    )
