"""`CheckpointRecord`: the façade's working view of one LangGraph checkpoint of one thread and
namespace, what `get_state`, history and continuing a thread read, and what a run builds
before it is written as a LangGraph checkpoint (`_lgcheckpoint` maps one onto the other).

It holds the state view at that step (``values``), the tasks due next, metadata, and the
engine's resumable `ExecutionState` (``engine``). Nothing here is stored as is: a saver holds
LangGraph's `Checkpoint` dict, its metadata and pending writes.

Never imports the host or the engine's persistence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from superstep_compat._internal._constants import NS_END, NS_SEP
from superstep_compat.pregel._algo import task_path_str
from superstep_core.runtime import ExecutionState

__all__ = [
    "CheckpointRecord",
    "PendingWrite",
    "TaskRecord",
    "config_of",
    "record_config",
    "step_in_progress",
    "task_path_of",
    "task_state_config",
]

PendingWrite = tuple[str, str, Any]
"""One pending write: (task id, channel, value)."""


@dataclass
class TaskRecord:
    """A task of a checkpoint: pending (no result), finished, failed or interrupted."""

    id: str
    name: str
    path: tuple[Any, ...] = ("__pregel_pull", "")
    error: str | None = None
    interrupts: tuple[Any, ...] = ()
    result: Any = None
    state_ns: str = ""  # the checkpoint namespace of a subgraph this task runs
    key: str = ""  # the engine activation that runs it (empty: not numbered yet)


@dataclass
class CheckpointRecord:
    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_id: str | None
    step: int
    source: str
    values: dict[str, Any]
    next: tuple[str, ...]
    tasks: list[TaskRecord] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""
    engine: ExecutionState | None = None
    interrupts: tuple[Any, ...] = ()
    ran: tuple[str, ...] = ()
    # A step that did not finish (interrupted or failed): the ids of its tasks that did, and
    # the values with their writes applied (what LangGraph's live `get_state` shows).
    finished: tuple[str, ...] = ()
    current_values: dict[str, Any] | None = None
    # LangGraph's channels besides the state keys that this checkpoint holds: the triggers of
    # its pending tasks (``branch:to:<node>``, ``__start__``, ``__pregel_tasks``, joins).
    triggers: dict[str, Any] = field(default_factory=dict)
    # The LangGraph checkpoint this record was read from or last written as (its versions
    # are the base of the next checkpoint's).
    checkpoint: dict[str, Any] | None = None
    # its pending writes, as read (not part of what is written)
    pending: list[PendingWrite] = field(default_factory=list)
    # How many of its writes of no task (a `Command` given to the thread at it, see
    # `_lgnull`) ``engine`` has applied: its saved engine state comes before them unless it
    # was saved again after a run applied them.
    null_applied: int = 0
    # The checkpoint as the saver holds it when ``checkpoint`` is the run's view of it with
    # its writes of no task applied (their channels at a new version); None: the same.
    stored: dict[str, Any] | None = None
    # The channels its checkpoint holds at its new version without their being updated
    # channels (a consumed ``join:...``, emptied; a deferred node's trigger written while it
    # waits): the saver is handed their values all the same.
    emptied: tuple[str, ...] = ()


def config_of(thread_id: str, ns: str, checkpoint_id: str | None) -> dict[str, Any]:
    """A checkpoint's config: ``{"configurable": {thread_id, checkpoint_ns, checkpoint_id}}``."""
    configurable: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": ns}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def record_config(record: CheckpointRecord, checkpoint_id: str) -> dict[str, Any]:
    """The config of checkpoint ``checkpoint_id`` of ``record``'s thread and namespace; a
    subgraph's carries LangGraph's ``checkpoint_map`` (its ancestors' checkpoints, from the
    metadata's ``parents``, and its own), so running the root graph with it time-travels
    to that subgraph checkpoint."""
    config = config_of(record.thread_id, record.checkpoint_ns, checkpoint_id)
    if record.checkpoint_ns:
        parents = record.metadata.get("parents") or {}
        config["configurable"]["checkpoint_map"] = {
            **parents,
            record.checkpoint_ns: checkpoint_id,
        }
    return config


def chunk_config(
    configurable: dict[str, Any], record: CheckpointRecord, checkpoint_id: str
) -> dict[str, Any]:
    """The config of checkpoint ``checkpoint_id`` of ``record`` as a run's ``checkpoints``
    and ``debug`` chunks show it (LangGraph's loop config, not the saver's): the namespace
    first, then the run's ``configurable`` in its order without the private (``__``) keys,
    the thread id as a string, a subgraph's ``checkpoint_map`` where the run's config had
    it, the checkpoint id last unless the run's config named one."""
    ns = record.checkpoint_ns
    shown: dict[str, Any] = {"checkpoint_ns": ns}
    for key, value in configurable.items():
        if not key.startswith("__"):
            shown[key] = value
    shown["checkpoint_ns"] = ns
    shown["thread_id"] = str(record.thread_id)
    if ns:
        shown.pop("checkpoint_id", None)  # (a subgraph's run names none: LangGraph's place)
        parents = record.metadata.get("parents") or {}
        shown["checkpoint_map"] = {**parents, ns: checkpoint_id}
    shown["checkpoint_id"] = checkpoint_id
    return {"configurable": shown}


def task_state_config(record: CheckpointRecord, task: TaskRecord) -> dict[str, Any]:
    """The config naming the checkpoints of the subgraph ``task`` (of ``record``) runs:
    ``{"configurable": {"thread_id": ..., "checkpoint_ns": "<node>:<task id>"}}``, below the
    record's own namespace; a task's ``state`` in LangGraph's snapshots and in its
    ``checkpoints`` and ``debug`` stream chunks."""
    ns = task.state_ns or f"{task.name}{NS_END}{task.id}"
    if not task.state_ns and record.checkpoint_ns:
        ns = f"{record.checkpoint_ns}{NS_SEP}{ns}"
    return {"configurable": {"thread_id": record.thread_id, "checkpoint_ns": ns}}


def step_in_progress(record: CheckpointRecord) -> bool:
    """Whether ``record``'s saved engine state is its step part-way done (tasks suspended
    on interrupts, or finished beside them) rather than the step about to start: time
    travel and edits start from the checkpoint's own fields instead, as LangGraph's do."""
    engine = record.engine
    return bool(record.finished) or (
        engine is not None and any(i.state == "suspended" for i in engine.instances)
    )


_PATH_STRINGS: dict[Any, str] = {}
"""Task paths' strings, each made once (a node's pull task path is written every step)."""


def task_path_of(record: CheckpointRecord, task_id: str) -> str:
    """The path string LangGraph hands a saver's ``put_writes`` for task ``task_id`` of
    ``record`` (`task_path_str` of its path): "" for a write of no task, or of a task the
    checkpoint does not list (LangGraph's input and ``Command`` writes)."""
    for task in record.tasks:
        if task.id == task_id:
            path = task.path
            try:
                return _PATH_STRINGS[path]
            except KeyError:
                if len(_PATH_STRINGS) >= 4096:  # (`Send` indexes, graphs made on the fly)
                    _PATH_STRINGS.clear()
                made = _PATH_STRINGS[path] = task_path_str(path)
                return made
            except TypeError:  # a part that cannot be hashed (a functional call's)
                return task_path_str(path)
    return ""
