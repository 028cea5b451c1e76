"""Continuing an `@entrypoint` thread from a checkpoint without the engine's blob (one
LangGraph wrote): the engine state of the function's one-node graph, rebuilt from
LangGraph's own fields, as LangGraph decides what runs next.

- values: the last return value (``__end__``) and what the next call receives as
  ``previous`` (``__previous__``), committed with a version (so the checkpoints written
  after it hold them again);
- the function's task: due when its input (``__start__``) is newer than what the task has
  seen (``versions_seen[<name>]["__start__"]``); then it is an activation given the input,
  which runs the function afresh: its `@task` calls that finished are found among the
  checkpoint's pending writes under LangGraph's task ids (`TaskJournal`), and an
  interrupted task's answers reach it as the resume of that activation (`_resumer`), the
  first `interrupt()` without an answer of its own taking the new one (`RootScope.answer`,
  LangGraph's rule for an answer given to no task in particular).

Never imports the run, the host or the engine's persistence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from superstep_compat.func._runner import END_CHANNEL, PREVIOUS_CHANNEL, START_CHANNEL
from superstep_compat.pregel._checkpoint_tasks import task_records
from superstep_compat.pregel._lgcheckpoint import CURRENT_FORMAT, PULL
from superstep_compat.pregel._lgread import apply_pending
from superstep_compat.pregel._lgrestore import _newer
from superstep_compat.pregel._record import CheckpointRecord, PendingWrite
from superstep_core.runtime import Execution

__all__ = ["entry_restorable", "rebuild_entrypoint"]

_KEPT = (END_CHANNEL, PREVIOUS_CHANNEL)
_ABSENT: Any = object()


def rebuild_entrypoint(
    graph: Any, record: CheckpointRecord, pending: Sequence[PendingWrite]
) -> Execution:
    """The engine state of ``record`` (an `@entrypoint` checkpoint without a usable blob) of
    ``graph`` (an `EntrypointGraph`); fills ``record``'s ``engine``, ``tasks``, ``next``,
    ``interrupts``, ``finished`` and ``values``, as `_lgrestore.rebuild` does for a graph."""
    checkpoint: Mapping[str, Any] = record.checkpoint or {}
    all_values: Mapping[str, Any] = checkpoint.get("channel_values", {})
    versions: Mapping[str, Any] = checkpoint.get("channel_versions", {})
    seen: Mapping[str, Mapping[str, Any]] = checkpoint.get("versions_seen", {})
    name: str = graph.node_name
    ex = Execution(graph.engine, record.thread_id, record_trace=False, log_inputs=False)
    kept = {k: all_values[k] for k in _KEPT if k in all_values}
    if kept:
        ex.values = {**ex.values, **kept}
        # written once: a version the checkpoints built from this state see (their
        # ``__previous__`` is kept only when the engine has written it)
        ex.versions = {**ex.versions, **{k: max(ex.versions.get(k, 0), 1) for k in kept}}
    due = (
        START_CHANNEL in all_values
        and START_CHANNEL in versions
        and _newer(versions[START_CHANNEL], seen.get(name, {}).get(START_CHANNEL))
    )
    found: list[tuple[str, str]] = []
    if due:
        # the function's activation, given its input, as the input event would start it
        ex.edit((), writer="__restore__", spawn=[(name, all_values[START_CHANNEL])])
        found = [(i.node, i.id) for i in ex.instances.values() if i.node == name]
    record.values = {k: all_values[k] for k in graph.state_channels if k in all_values}
    record.tasks = task_records(
        record.checkpoint_id,
        found,
        step=record.step,
        ns=record.checkpoint_ns,
        parts_of=lambda _: (PULL, START_CHANNEL),
        format=checkpoint.get("v", CURRENT_FORMAT),
    )
    record.next = tuple(n for n, _ in found)
    apply_pending(record, pending)
    record.interrupts = tuple(i for task in record.tasks for i in task.interrupts)
    # a task whose writes are saved without an interrupt or an error did not finish its
    # step here (LangGraph saves a finished step's checkpoint): it runs again
    record.finished = ()
    if not record.ran:
        record.ran = tuple(n for n in seen if n == name)
    record.engine = ex.snapshot()
    return ex


def entry_restorable(record: CheckpointRecord, name: str) -> bool:
    """Whether `rebuild_entrypoint` gives ``record``'s engine state back (the checkpoint can
    go without the engine's blob): nothing in flight, the values the checkpoint's own, and
    the function's task not started (its input is the checkpoint's ``__start__``) or done."""
    engine = record.engine
    checkpoint = record.checkpoint
    if engine is None or checkpoint is None or record.finished:
        return False
    if record.current_values is not None or record.interrupts:
        return False
    if (
        engine.awaited
        or engine.timers
        or engine.barriers
        or engine.outputs
        or engine.deferred
        or engine.failure is not None
        or engine.held
        or engine.queue
    ):
        return False
    values = checkpoint["channel_values"]
    for key, value in engine.values.items():
        if key in _KEPT and values.get(key, _ABSENT) is not value:
            return False
    # not started (the run sends the input as it goes on), or done. A task stopped at an
    # interrupt keeps the blob: LangGraph saves an answer under the task that took it (a
    # `@task` call's id), which the blob's slots tell and a rebuild does not
    return not engine.instances
