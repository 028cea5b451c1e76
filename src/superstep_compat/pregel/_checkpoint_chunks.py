"""The ``checkpoints`` and ``debug`` stream events of a façade run's checkpoints, shaped as
LangGraph's loop emits them (its ``checkpoints`` stream mode, and the ``checkpoint`` entries
of ``debug``); a collaborator of `CheckpointRecorder`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from superstep_compat.pregel._checkpoint_tasks import Event
from superstep_compat.pregel._checkpoint_writer import CheckpointWriter
from superstep_compat.pregel._lgnames import PUSH
from superstep_compat.pregel._record import (
    CheckpointRecord,
    TaskRecord,
    chunk_config,
    record_config,
    task_state_config,
)
from superstep_compat.pregel._run_scope import RunScope
from superstep_compat.pregel._snapshots import StateViews

__all__ = ["CheckpointChunks"]


@dataclass(eq=False, repr=False)
class CheckpointChunks:
    """Makes the stream events of one run's checkpoints. ``scope``: the run's (its stream
    modes and config); ``writer``: the run's `CheckpointWriter` (which metadata keys its
    saver merges in from the config); ``first_step_order``: the run's own dict, non-empty
    while the first step orders its tasks as the nodes were added (its events then keep the
    record's order)."""

    scope: RunScope
    writer: CheckpointWriter
    first_step_order: dict[str, int]
    # the graph's subgraph by node name (`StateViews.subgraph_of`), found when first asked
    _subgraph_lookup: Callable[[str], Any] | None = field(init=False, default=None)

    def events(
        self, record: CheckpointRecord, parent_id: str | None, *, parent_saved: bool = False
    ) -> list[Event]:
        """The stream events (``checkpoints``, ``debug``) of ``record``, whose parent is
        ``parent_id``. Their configs and metadata as LangGraph's loop holds them
        (`chunk_config`, no keys the saver merges in from the run config); the parent's
        config as well, unless ``parent_saved``: a checkpoint the run loaded and shows again
        (no step of its own), shown as the saver gave it."""
        if "checkpoints" not in self.scope.modes and "debug" not in self.scope.modes:
            return []
        tasks, next_ = record.tasks, list(record.next)
        if not self.first_step_order and len(tasks) == len(next_) > 1:
            # the run's own view lists the step's pull tasks by node name, as LangGraph
            # prepares them knowing which channels changed (a saved checkpoint's view and
            # the first step after an edit: in the order the nodes were added)
            tasks = sorted(
                tasks, key=lambda t: (t.path[0] != PUSH, "" if t.path[0] == PUSH else t.name)
            )
            next_ = [t.name for t in tasks]
        configurable = self.scope.config.get("configurable") or {}
        metadata = dict(record.metadata)
        if not parent_saved:
            # LangGraph's loop shows the metadata it hands the saver, before the saver
            # merges the run config's into it (a checkpoint it loaded shows them)
            for key in self.writer.config_metadata(self.scope.config):
                metadata.pop(key, None)
        payload = {
            "config": chunk_config(configurable, record, record.checkpoint_id),
            "parent_config": None
            if parent_id is None
            else record_config(record, parent_id)
            if parent_saved
            else chunk_config(configurable, record, parent_id),
            "values": dict(record.values),
            "metadata": metadata,
            "next": next_,
            "tasks": [_chunk_task(t, self._task_state(record, t)) for t in tasks],
        }
        out: list[Event] = []
        if "checkpoints" in self.scope.modes:
            out.append(((), "checkpoints", payload))
        if "debug" in self.scope.modes:
            debug = {
                "step": record.step,
                "timestamp": record.created_at,
                "type": "checkpoint",
                "payload": payload,
            }
            out.append(((), "debug", debug))
        return out

    def _task_state(self, record: CheckpointRecord, task: TaskRecord) -> dict[str, Any] | None:
        """A checkpoint chunk's task ``state``, as `get_state` shows it without
        ``subgraphs``: the config naming the subgraph the task's node runs, else None."""
        if self._subgraph_lookup is None:
            self._subgraph_lookup = StateViews(self.scope.graph).subgraph_of()
        if self._subgraph_lookup(task.name) is None:
            return None
        return task_state_config(record, task)


def _chunk_task(task: TaskRecord, state: dict[str, Any] | None) -> dict[str, Any]:
    """A task of a checkpoint chunk, in LangGraph's three shapes: a failed task's error; else
    its interrupts as plain dicts (the chunk is data a client reads as JSON), with the
    result of a task that finished (a sibling of an interrupted one, say)."""
    if task.error:
        return {"id": task.id, "name": task.name, "error": task.error, "state": state}
    interrupts = tuple(asdict(i) for i in task.interrupts)
    if task.result:
        return {
            "id": task.id,
            "name": task.name,
            "result": task.result,
            "interrupts": interrupts,
            "state": state,
        }
    return {"id": task.id, "name": task.name, "interrupts": interrupts, "state": state}
