"""Continuing a thread from a checkpoint LangGraph wrote (or one whose ``__superstep_facade__`` blob
is missing or stale): the engine's state is rebuilt from LangGraph's own fields, as LangGraph
decides what runs next.

- values: the checkpoint's state channels (a `DeltaChannel`'s replayed from its ancestors);
- pull tasks: each node with a trigger channel (``__start__``, ``branch:to:<node>``, a
  complete ``join:...``) present and newer than the node's ``versions_seen``;
- push tasks: the `Send` packets in ``__pregel_tasks``;
- partial joins: the sources a ``join:...`` channel has seen credit the engine's barrier; a
  complete one (and no other trigger) starts its target as the join's barrier would;
- pending writes: a task with its writes saved finished (its outcome is handed back rather
  than run again), one with ``__interrupt__`` waits for an answer, ``__resume__`` holds the
  answers it has (`resume_answers`), ``__error__`` marks the task that failed.

Nothing private is needed: a thread LangGraph started continues here as LangGraph would.
Never imports the host or the engine's persistence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from superstep_compat._internal._constants import START
from superstep_compat.pregel._channels import without_empty
from superstep_compat.pregel._checkpoint_tasks import (
    edge_writes,
    node_triggers,
    pending_activations,
    push_indexes,
    saved_outcome,
    task_records,
)
from superstep_compat.pregel._lgcheckpoint import (
    BRANCH_PREFIX,
    CURRENT_FORMAT,
    INTERRUPT,
    RESUME,
    START_CHANNEL,
    TASKS,
    triggers_of,
)
from superstep_compat.pregel._lgdelta import hydrate_delta_channels
from superstep_compat.pregel._lgnull import null_writes, split
from superstep_compat.pregel._lgread import apply_pending
from superstep_compat.pregel._migrate import lowlevel_own_triggers
from superstep_compat.pregel._record import CheckpointRecord, PendingWrite
from superstep_compat.types import Send, interrupt_id_from_ns
from superstep_core.node import External
from superstep_core.runtime import Execution
from superstep_core.runtime.records import Barrier

__all__ = ["after_finish", "rebuild", "resume_answers", "resume_map"]

INPUT_EVENT = "__input__"


def _newer(version: Any, seen: Any) -> bool:
    if seen is None:
        return True
    try:
        return bool(version > seen)
    except TypeError:  # versions of two savers' kinds: LangGraph compares them as strings
        return str(version) > str(seen)


def rebuild(
    graph: Any,
    record: CheckpointRecord,
    pending: Sequence[PendingWrite],
    saver: Any = None,
    *,
    edit: bool = False,
    null: bool = False,
) -> Execution:
    """The engine state of ``record`` (a checkpoint without a usable blob), built from its
    LangGraph fields; fills ``record``'s ``engine``, ``tasks``, ``next``, ``finished``,
    ``interrupts`` and ``current_values``. ``saver`` (the one ``record`` was read from)
    gives the values of `DeltaChannel` keys LangGraph left out (see `_lgdelta`; ``edit``: for
    an edit of the checkpoint, which reads them without its writes of no task). ``null``:
    for a run going on from it, its writes of no task applied first (`_lgnull`: their goto
    nodes and `Send`s are among its tasks, their pending writes theirs). A graph of
    another shape (an `@entrypoint`'s) rebuilds its own (``rebuild_own``)."""
    own = getattr(graph, "rebuild_own", None)
    if own is not None:
        return own(record, pending)  # type: ignore[no-any-return]
    _migrate(graph, record)
    spec = graph.spec
    subscribed = getattr(spec, "subscriptions", None)
    was_due: frozenset[str] = frozenset()
    if subscribed is not None and record.checkpoint is not None:
        record.checkpoint, was_due = lowlevel_own_triggers(record.checkpoint, subscribed)
        record.triggers = triggers_of(record.checkpoint["channel_values"], record.values)
    hydrate_delta_channels(graph, record, saver, edit=edit)
    record.values = without_empty(graph.engine.channels, record.values)
    checkpoint = record.checkpoint or {}
    all_values: Mapping[str, Any] = checkpoint.get("channel_values", {})
    versions: Mapping[str, Any] = checkpoint.get("channel_versions", {})
    seen: Mapping[str, Mapping[str, Any]] = checkpoint.get("versions_seen", {})
    ex = Execution(graph.engine, record.thread_id, record_trace=False, log_inputs=False)
    ex.values = {
        **ex.values,
        **{k: v for k, v in record.values.items() if k in graph.engine.channels},
    }
    joins = {
        f"join:{'+'.join(sources)}:{target}": (tuple(sources), target)
        for sources, target in getattr(spec, "waiting_edges", ())
    }

    # node -> the complete join that makes it due (its barrier fired: the task is the join's)
    fired: dict[str, str] = {}
    # deferred node -> its payload, for one whose trigger waits for a step that leaves no
    # other task (LangGraph's after-finish channel, not finished yet)
    waiting: dict[str, Any] = {}
    deferred = {name for name, node in spec.nodes.items() if getattr(node, "defer", False)}

    def due(name: str) -> bool:
        found = False
        for channel in node_triggers(spec, name):
            if channel not in all_values or channel not in versions:
                continue
            value, finished = (
                after_finish(all_values[channel])
                if name in deferred
                else (all_values[channel], True)
            )
            if channel in joins and set(value or ()) != set(joins[channel][0]):
                continue
            if _newer(versions[channel], seen.get(name, {}).get(channel)):
                if not finished:
                    waiting.setdefault(
                        name, dict.fromkeys(joins[channel][0]) if channel in joins else None
                    )
                    continue
                found = True
                if channel in joins:  # (a request from a join is kept when merged)
                    fired.setdefault(name, channel)
        return found

    pulls = [name for name in graph.node_order if name != START and due(name)]
    sends = [s for s in all_values.get(TASKS) or () if isinstance(s, Send)]
    if null:
        state, gotos, null_sends = split(null_writes(pending), graph)
        if state:
            ex.edit(state, writer=START)
        pulls.extend(name for name in gotos if name not in pulls)
        sends.extend(null_sends)
        record.null_applied = len(null_writes(pending))
    starting = due(START)
    if starting:  # the input is delivered when the run goes on, as a new input is
        ex.send(External(INPUT_EVENT, all_values[START_CHANNEL]))
    waits = [(name, payload) for name, payload in waiting.items() if name not in pulls]
    if pulls or sends or waits:
        # a join's target as its barrier starts it (payload: its sources' outputs, None for
        # a façade node), so that an edit keeps it due and it is saved as the join's again;
        # a deferred node whose trigger is not finished waits again as the engine's own
        # request of it waits (LangGraph finishes the trigger when a step leaves no task)
        ex.edit(
            (),
            writer="__restore__",
            activate=[name for name in pulls if name not in fired],
            spawn=[(s.node, s) for s in sends],
            fire=[
                (channel, dict.fromkeys(joins[channel][0]))
                for name, channel in fired.items()
                if name in pulls
            ],
            defer=waits,
        )
    for channel, (sources, target) in joins.items():
        got = all_values.get(channel)
        if target in deferred:
            got = after_finish(got)[0]
        if got and target not in pulls and set(got) != set(sources):
            ex.barriers[(channel, ())] = Barrier({source: None for source in got})
    order = graph.node_order
    found = pending_activations(ex, order)
    if starting and not any(name == START for name, _ in found):
        found.insert(0, (START, START))
    # what LangGraph shows: the channels' values, defaults (an empty reducer list) included
    record.values = {k: ex.values[k] for k in graph.state_channels if k in ex.values}
    record.tasks = task_records(
        record.checkpoint_id,
        found,
        step=record.step,
        ns=record.checkpoint_ns,
        # (a task due in an earlier Superstep's low-level layout keeps its id)
        triggers_of=lambda name: (
            (BRANCH_PREFIX + name,) if name in was_due else node_triggers(spec, name)
        ),
        pushes=push_indexes(ex, found),
        format=checkpoint.get("v", CURRENT_FORMAT),
    )
    record.next = tuple(name for name, _ in found)
    if not record.ran:
        record.ran = _last_ran(seen, order)
    apply_pending(record, pending)
    # writes to channels this graph does not have (an older layout's triggers, such as
    # ``start:<node>``, saved beside a task's state writes) are dropped, as LangGraph drops them
    known = graph.runner.strategies
    by_task = _by_task(pending)
    finished: list[str] = []
    writes: list[tuple[str, Any]] = []
    interrupts: list[Any] = []
    for task in record.tasks:
        if task.result:
            task.result = {k: v for k, v in task.result.items() if k in known} or None
        task_writes = by_task.get(task.id, [])
        interrupts.extend(task.interrupts)
        # (a task that asked and was answered since, by interrupt id, finished: its writes
        # beside its interrupt are its outcome, as LangGraph reads them)
        outcome = saved_outcome(task_writes, edge_writes(spec, task.name)) if task_writes else None
        if outcome is not None:
            finished.append(task.id)
            writes.extend(w for w in outcome.writes if w[0] in known)
    record.finished = tuple(finished)
    record.interrupts = tuple(interrupts)
    if writes:
        local = graph.runner.local_state(ex.values, writes)
        record.current_values = {k: local[k] for k in graph.state_channels if k in local}
    record.engine = ex.snapshot()
    return ex


def after_finish(value: Any) -> tuple[Any, bool]:
    """A deferred node's trigger as LangGraph saves it (``LastValueAfterFinish``,
    ``NamedBarrierValueAfterFinish``: ``(value, finished)``, a list once a saver's serializer
    had it) as (value, finished); any other value (an older Superstep checkpoint, which
    saved a deferred node's trigger only when its task was due) as finished."""
    if type(value) in (tuple, list) and len(value) == 2 and type(value[1]) is bool:
        return value[0], value[1]
    return value, True


def _migrate(graph: Any, record: CheckpointRecord) -> None:
    """Bring ``record``'s checkpoint to the current layout when LangGraph wrote it in an
    older one (format < 4), as LangGraph does with every checkpoint it loads, so that its
    tasks, history and the checkpoints written after it read the new channels. The saver's
    dicts are left as they were: the migration works on copies."""
    checkpoint = record.checkpoint
    if checkpoint is None or checkpoint.get("v", CURRENT_FORMAT) >= CURRENT_FORMAT:
        return
    migrated = {
        **checkpoint,
        "channel_values": dict(checkpoint["channel_values"]),
        "channel_versions": dict(checkpoint["channel_versions"]),
        "versions_seen": {k: dict(v) for k, v in checkpoint["versions_seen"].items()},
    }
    graph._migrate_checkpoint(migrated)
    record.checkpoint = migrated
    record.triggers = triggers_of(migrated["channel_values"], record.values)


def _last_ran(seen: Mapping[str, Mapping[str, Any]], nodes: Sequence[str]) -> tuple[str, ...]:
    """The nodes that ran in the step that wrote a checkpoint, as LangGraph tells them when
    ``update_state`` is given no ``as_node``: those that saw the newest version."""
    latest: list[tuple[Any, str]] = []
    for name in nodes:
        for version in seen.get(name, {}).values():
            latest.append((version, name))
    if not latest:
        return ()
    try:
        top = max(v for v, _ in latest)
        return tuple(sorted({n for v, n in latest if v == top}))
    except TypeError:  # versions of two savers' kinds: LangGraph compares them as strings
        top = max(str(v) for v, _ in latest)
        return tuple(sorted({n for v, n in latest if str(v) == top}))


# writes that are no output of a task: an interrupt beside an output of the task's own was
# answered since (by interrupt id, while others of its step waited) and the task finished
_NO_OUTPUT = frozenset({INTERRUPT, RESUME, "__error__", "__error_source_node__"})


def _waits(writes: Sequence[tuple[str, Any]]) -> bool:
    """Whether a task with saved ``writes`` still waits on its interrupt: it asked and has
    no output of its own (LangGraph reapplies a finished task's writes instead)."""
    return any(c == INTERRUPT for c, _ in writes) and all(c in _NO_OUTPUT for c, _ in writes)


def resume_answers(
    ex: Execution, record: CheckpointRecord, pending: Sequence[PendingWrite], resume: Any
) -> dict[str, list[Any]]:
    """Give each interrupted task of a rebuilt execution its answers: those it had
    (``__resume__``) and, with a `Command`'s ``resume`` (``_NO_ANSWER``: none), the new one
    (a map by interrupt id, LangGraph's ids; else the one interrupted task's). Returns the
    answers by task id (to save as ``__resume__``). Raises as LangGraph does when a single
    value is given to several interrupted tasks."""
    by_task = _by_task(pending)
    waiting = [t for t in record.tasks if _waits(by_task.get(t.id, []))]
    out: dict[str, list[Any]] = {}
    # LangGraph's test is the keys' form, not whether they match: a map naming no waiting
    # interrupt (or an empty one) answers nothing, and its tasks ask again
    answers_by_id = resume_map(resume)
    is_map = answers_by_id is not None
    if resume is not _NO_ANSWER and not is_map and len(waiting) > 1:
        raise RuntimeError(
            "When there are multiple pending interrupts, you must specify the interrupt id "
            "when resuming. Docs: https://docs.langchain.com/oss/python/langgraph/"
            "interrupts#handling-multiple-interrupts."
        )
    for task in waiting:
        given: list[Any] = []
        for channel, value in by_task.get(task.id, []):
            if channel == RESUME:
                given = list(value) if isinstance(value, list) else [value]
        if resume is not _NO_ANSWER:
            ns = (
                f"{record.checkpoint_ns}|{task.name}:{task.id}"
                if record.checkpoint_ns
                else (f"{task.name}:{task.id}")
            )
            if answers_by_id is not None:
                nth = interrupt_id_from_ns(f"{ns}|{len(given)}" if given else ns)
                first = interrupt_id_from_ns(ns)
                if nth in answers_by_id:
                    given.append(answers_by_id[nth])
                elif first in answers_by_id:
                    given.append(answers_by_id[first])
                else:
                    # the interrupts of the task's subgraph (their ids are its tasks'): as
                    # LangGraph hands the map down, its run takes their answers (several:
                    # by id), each saved by the subgraph's task that takes it, not here
                    mine = {
                        i.id: answers_by_id[i.id] for i in task.interrupts if i.id in answers_by_id
                    }
                    inst = ex.instances.get(task.key)
                    if mine and inst is not None:
                        one = next(iter(mine.values()))
                        inst.memory["resume"] = [*given, mine if len(task.interrupts) > 1 else one]
                        continue
                    # a task the map does not answer keeps the answers saved for it
            else:
                given.append(resume)
        inst = ex.instances.get(task.key)
        if inst is not None and given:
            inst.memory["resume"] = list(given)
            out[task.id] = given
    return out


def resume_map(value: Any) -> Mapping[str, Any] | None:
    """``value`` when it is LangGraph's map of answers by interrupt id (a dict whose keys
    all look like interrupt ids: 32 lowercase hex digits, matching or not), else None (one
    answer)."""
    if isinstance(value, dict) and all(
        isinstance(k, str) and _INTERRUPT_ID.fullmatch(k) for k in value
    ):
        return value
    return None


_INTERRUPT_ID = re.compile(r"[0-9a-f]{32}")
_NO_ANSWER: Any = object()
NO_ANSWER = _NO_ANSWER


def _by_task(pending: Sequence[PendingWrite]) -> dict[str, list[tuple[str, Any]]]:
    out: dict[str, list[tuple[str, Any]]] = {}
    for task_id, channel, value in pending:
        out.setdefault(task_id, []).append((channel, value))
    return out
