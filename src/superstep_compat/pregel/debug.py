"""`langgraph.pregel.debug`: the payloads of the ``tasks`` and ``debug`` streams' task events,
and their types under the names LangGraph's module re-exports (`CheckpointPayload`, ...)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from langgraph.checkpoint.base import EXCLUDED_METADATA_KEYS

from superstep_compat._internal._constants import TAG_HIDDEN
from superstep_compat.types import CheckpointPayload, TaskPayload, TaskResultPayload

__all__ = [
    "CheckpointPayload",
    "TaskPayload",
    "TaskResultPayload",
    "map_debug_tasks",
    "task_payload",
]


def task_payload(
    task_id: str, name: str, input: Any, triggers: Any, config: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A task-start event: ``{"id", "name", "input", "triggers"}``, plus ``"metadata"``
    when the task's ``config`` carries any beyond LangGraph's own bookkeeping keys
    (``langgraph_node``, ``thread_id``, ... are left out) or tags beyond ``seq:step:*``
    (folded in as ``metadata["tags"]``). The metadata is a new dict (never the config's)."""
    payload: dict[str, Any] = {"id": task_id, "name": name, "input": input, "triggers": triggers}
    if config is None:
        return payload
    metadata = {
        k: v for k, v in (config.get("metadata") or {}).items() if k not in EXCLUDED_METADATA_KEYS
    }
    tags = [t for t in config.get("tags") or () if not t.startswith("seq:step")]
    if tags:
        metadata["tags"] = tags
    if metadata:
        payload["metadata"] = metadata
    return payload


def map_debug_tasks(tasks: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """The task-start payload of each task (objects with ``id``, ``name``, ``input``,
    ``triggers`` and ``config``, a config dict or None); hidden tasks (tagged
    ``langsmith:hidden``) are skipped."""
    for task in tasks:
        config = task.config
        if config is not None and TAG_HIDDEN in (config.get("tags") or ()):
            continue
        yield task_payload(task.id, task.name, task.input, task.triggers, config)
