"""What a checkpoint leaves out of untracked channels (`UntrackedValue`): their writes, and
their keys in the state a `Send` carries, both in a task's pending writes and in the engine
state saved with a checkpoint. The run itself keeps them (the task a `Send` starts gets the
whole state); a thread continued from the saver has them no more, as in LangGraph.

Imports only the façade's `Send` and the engine's plain records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from superstep_compat.pregel._lgcheckpoint import TASKS
from superstep_compat.pregel._record import CheckpointRecord
from superstep_compat.types import Send
from superstep_core.node import Activated
from superstep_core.runtime import ExecutionState

__all__ = ["engine_without_untracked", "record_without_untracked", "without_untracked"]


def _clean(value: Any, untracked: frozenset[str]) -> Any:
    """``value`` itself, or a `Send` whose state argument lost its untracked keys."""
    if (
        isinstance(value, Send)
        and isinstance(value.arg, dict)
        and not untracked.isdisjoint(value.arg)
    ):
        arg = {k: v for k, v in value.arg.items() if k not in untracked}
        return Send(value.node, arg, timeout=value.timeout)
    return value


def without_untracked(
    writes: Sequence[tuple[str, Any]], untracked: frozenset[str]
) -> list[tuple[str, Any]]:
    """A task's ``writes`` as LangGraph saves them: none to an untracked channel, and each
    `Send` without the untracked keys of its state argument."""
    return [(ch, _clean(v, untracked)) for ch, v in writes if ch not in untracked]


def engine_without_untracked(state: ExecutionState, untracked: frozenset[str]) -> ExecutionState:
    """``state`` itself when no queued, held, deferred or live activation carries a `Send`
    with untracked keys; else a copy whose payloads lost them (``state`` is not changed)."""

    def event(item: tuple[str, Any]) -> tuple[str, Any]:
        aid, ev = item
        if isinstance(ev, Activated) and (clean := _clean(ev.payload, untracked)) is not ev.payload:
            return aid, Activated(clean)
        return item

    queue = [event(item) for item in state.queue]
    held = [event(item) for item in state.held]
    instances = [
        i if (clean := _clean(i.payload, untracked)) is i.payload else replace(i, payload=clean)
        for i in state.instances
    ]
    deferred = [(n, lin, _clean(p, untracked)) for n, lin, p in state.deferred]
    changed = (
        any(a is not b for a, b in zip(queue, state.queue, strict=True))
        or any(a is not b for a, b in zip(held, state.held, strict=True))
        or any(a is not b for a, b in zip(instances, state.instances, strict=True))
        or any(a[2] is not b[2] for a, b in zip(deferred, state.deferred, strict=True))
    )
    if not changed:
        return state
    return replace(state, queue=queue, held=held, instances=instances, deferred=deferred)


def record_without_untracked(
    record: CheckpointRecord, untracked: frozenset[str]
) -> CheckpointRecord:
    """``record`` as it is saved: its values, its checkpoint's channel values (pending
    `Send`s included) and its engine state without untracked values; ``record`` itself
    when it holds none."""
    changes: dict[str, Any] = {}
    if not untracked.isdisjoint(record.values):
        changes["values"] = {k: v for k, v in record.values.items() if k not in untracked}
    if record.engine is not None:
        engine = engine_without_untracked(record.engine, untracked)
        if engine is not record.engine:
            changes["engine"] = engine
    built = record.checkpoint
    if built is not None:
        values = built["channel_values"]
        sends = values.get(TASKS)
        clean = [_clean(s, untracked) for s in sends] if isinstance(sends, list) else sends
        dirty = not untracked.isdisjoint(values) or (
            isinstance(sends, list) and any(a is not b for a, b in zip(clean, sends, strict=True))
        )
        if dirty:
            kept = {k: v for k, v in values.items() if k not in untracked}
            if sends is not None:
                kept[TASKS] = clean
            changes["checkpoint"] = {**built, "channel_values": kept}
    return replace(record, **changes) if changes else record
