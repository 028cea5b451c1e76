"""Whether a façade checkpoint can be saved as LangGraph saves it, without the private
``__superstep_facade__`` channel: when rebuilding the engine's state from LangGraph's own
fields (`_lgrestore`) gives the same run. Each check errs on the side of keeping the
channel: a record it cannot vouch for is saved with it (see `_lgcheckpoint.checkpoint_put`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from superstep_compat.pregel._lgnames import ENGINE_CHANNEL, PULL, PUSH, RESUME
from superstep_compat.pregel._record import CheckpointRecord
from superstep_compat.pregel._task_context import RUN_AGAIN
from superstep_compat.types import Send
from superstep_core.node import Activated, Resumed
from superstep_core.runtime import QuietSnapshot

__all__ = [
    "paused_restorable",
    "quiet_restorable",
    "restorable",
    "written_lean",
]


def restorable(record: CheckpointRecord, *, outcomes_saved: bool = False) -> bool:
    """Whether rebuilding ``record``'s engine state from LangGraph's own fields (what
    `_lgrestore.rebuild` does for a checkpoint LangGraph wrote) gives the same run: a step
    of the root graph whose pending tasks are plain pull or `Send` tasks (fresh activations,
    deferred nodes waiting as a rebuild puts them back: `_deferred_restorable`,
    a join's target its complete barrier started among them; nothing in flight: no effects, timers,
    partial joins, failures or outcomes kept from a step that stopped
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
        or not _deferred_restorable(engine.deferred)
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
    saved as the step began, its ``engine`` is the state the step paused in. The tasks that
    finished beside the interrupted ones are saved as the tasks' pending writes, from which
    a rebuild hands their outcomes back when the step runs again (as LangGraph runs it):
    either their writes were committed (``record.current_values``) and they are gone from
    the engine, or the engine holds the step back (several tasks, one asked: nothing
    commits until every question is answered), keeping their events (``held``) and their
    tasks' results (``kept``) to deliver again; a task answered by interrupt id while
    others still wait is such a finished one. The rest is as `restorable` asks: the
    interrupted tasks hold no work of their own and no answers but those saved for them,
    nothing else in flight."""
    engine = record.engine
    if (
        engine is None
        or engine.awaited
        or engine.timers
        or engine.barriers
        or engine.outputs
        or not _deferred_restorable(engine.deferred)
        or engine.failure is not None
    ):
        return False
    finished: set[str] = set()
    if engine.held or engine.kept:
        finished = _held_finished(record, engine.held, engine.kept)
        if not finished:
            return False
        current = record.values  # held back: nothing of the step committed
    else:
        current = record.values if record.current_values is None else record.current_values
    if not _same_values(current, engine.values, engine.queue):
        return False
    found = _instances_restorable(engine.instances, record, finished)
    return found is not None and _tasks_restorable(record, True, *found)


def _deferred_restorable(deferred: Sequence[tuple[str, tuple[int, ...], Any]]) -> bool:
    """Whether a rebuild puts the deferred nodes' waiting requests back: each of the root
    lineage, requested by an edge (no payload) or a join's complete barrier (its sources'
    outputs, None), saved as its after-finish trigger not finished (`trigger_channels`)."""
    return all(
        not lineage and (payload is None or _join_payload(payload))
        for _, lineage, payload in deferred
    )


def _held_finished(
    record: CheckpointRecord, held: Sequence[tuple[str, Any]], kept: Mapping[str, Any]
) -> set[str]:
    """The activations whose events the engine holds back (``held``, with their results
    ``kept``) when each runs a task of ``record`` that finished (its outcome saved as its
    pending writes) from an event a rebuild gives it again (a fresh activation, or the
    answer it was given, saved as its ``__resume__``); empty when one does not."""
    done = {task.key for task in record.tasks if task.key and task.id in record.finished}
    out: set[str] = set()
    for aid, event in held:
        if aid not in done or not (type(event) is Activated or type(event) is Resumed):
            return set()
        out.add(aid)
    for aid, _ in kept.values():
        if aid not in out:
            return set()
    return out


def _instances_restorable(
    instances: Iterable[Any], record: CheckpointRecord, finished: Collection[str] = ()
) -> tuple[int, set[str]] | None:
    """`restorable`'s test of the engine's activations: each on its first attempt, given
    its payload again by a rebuild, nothing in flight; either active and fresh, or
    suspended on the interrupts it raised (``waiting``; holding its step back or not) or
    on its subgraph's breakpoint (``stopped``) with no answers but those ``record``'s
    pending writes save for its task (a rebuild gives them back, `resume_answers`), or
    one of ``finished`` (activations of finished tasks whose events the engine holds: see
    `_held_finished`). Returns (waiting, stopped), None when not so."""
    waiting = 0
    stopped: set[str] = set()
    saved: dict[str, Any] | None = None  # the saved answers by activation, found once
    for inst in instances:
        if inst.attempt != 1 or inst.pending_effects or not _rebuilt_payload(inst):
            return None
        if inst.id in finished:
            # its task ran (once, or again with its answer): what it did is saved
            if inst.state != "active" or inst.holding or not _answered_memory(inst.memory):
                return None
            continue
        if inst.state == "suspended":
            if inst.holding and (record.checkpoint_ns or _runs_subgraph(record, inst.id)):
                # its step held back in a subgraph, or on a subgraph's interrupts: a rebuild
                # does not hand the answers down by id as the held step takes them
                return None
            # raised on its first run (asked again on each run that answered it or ran it
            # again beside an answered sibling: one task effect each), holding nothing but
            # the answers it was given
            resume = inst.memory.get("resume") or ()
            if inst.interrupt is None or inst.effects_issued > 1 + len(resume):
                return None
            memory = _without_runs_again(inst.memory)
            if not _fresh_memory(memory):
                if saved is None:
                    saved = _saved_answers(record)
                if not _fresh_memory(memory, saved.get(inst.id)):
                    return None
            if inst.interrupt:
                waiting += 1
            else:  # no interrupt of its own: its subgraph stopped at a breakpoint
                stopped.add(inst.id)
        elif (
            inst.effects_issued
            or inst.holding
            or inst.state != "active"
            or inst.memory
            or inst.interrupt is not None
        ):
            return None
    return waiting, stopped


def _runs_subgraph(record: CheckpointRecord, aid: str) -> bool:
    """Whether activation ``aid`` runs a task of ``record`` that waits on its subgraph."""
    return any(task.key == aid and task.state_ns for task in record.tasks)


def _without_runs_again(memory: Mapping[str, Any]) -> Mapping[str, Any]:
    """``memory`` without the resumptions that only ran its task again (`RUN_AGAIN`:
    a sibling was answered by interrupt id), which a rebuild does not need."""
    resume = memory.get("resume")
    if not resume or not any(type(r) is str and r == RUN_AGAIN for r in resume):
        return memory
    return {**memory, "resume": [r for r in resume if not (type(r) is str and r == RUN_AGAIN)]}


def _answered_memory(memory: Mapping[str, Any]) -> bool:
    """A finished task's memory holding nothing a rebuild needs: no argument, no results of
    work done inside the task (its answers, if any, are saved as its ``__resume__``)."""
    return all((key == "arg" and value is None) or key == "resume" for key, value in memory.items())


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
    join's complete barrier started it (directly, or through a deferred node's wait), the
    join's (`_lgrestore` fires the join again, saved as it is: `trigger_channels`); when
    a `Send` spawned it, that packet (saved in ``__pregel_tasks``, spawned again)."""
    if inst.spawned:
        return type(inst.payload) is Send
    # (a deferred node its join requested no longer notes the join once its wait is over:
    # its payload is the join's all the same)
    return inst.payload is None or _join_payload(inst.payload)


def _tasks_restorable(
    record: CheckpointRecord, outcomes_saved: bool, waiting: int, stopped: Collection[str] = ()
) -> bool:
    """`restorable`'s test of ``record``'s tasks, ``waiting`` of its activations suspended
    on interrupts, ``stopped`` on their subgraph's breakpoint. A task waiting on its
    subgraph (its interrupts, or its breakpoint) is rebuilt as LangGraph runs it again: due,
    with the subgraph's interrupts as its ``__interrupt__`` write; the subgraph goes on from
    its own checkpoint."""
    # a task answered by interrupt id that finished while others wait keeps its interrupt
    # in the record of the step: it asks nothing now
    done = frozenset(record.finished) if outcomes_saved else frozenset()
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
        if task.interrupts and task.id not in done:
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
