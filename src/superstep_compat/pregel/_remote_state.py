"""The plain-data half of `RemoteGraph` (LangGraph's ``langgraph.pregel.remote``): what a
config becomes on the wire to a LangGraph server, and what the server's thread states and
checkpoints become here (`StateSnapshot`, `PregelTask`, configs). No I/O: the client calls
live in `remote.py`. Never imports the runtime.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast
from uuid import UUID

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.graph import Edge, Graph, Node

from superstep_compat._internal._constants import (
    CONFIG_KEY_CHECKPOINT_ID,
    CONFIG_KEY_CHECKPOINT_MAP,
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_STRICT_RESUME,
    CONFIG_KEY_TASK_ID,
)
from superstep_compat.types import Interrupt, PregelTask, StateSnapshot

__all__ = [
    "CHECKPOINT_KEYS",
    "CONF_DROPLIST",
    "checkpoint_of",
    "config_of",
    "drawable_graph",
    "sanitize_config",
    "sanitize_value",
    "snapshot_of",
]

CONF_DROPLIST = frozenset(
    (
        CONFIG_KEY_CHECKPOINT_MAP,
        CONFIG_KEY_CHECKPOINT_ID,
        CONFIG_KEY_CHECKPOINT_NS,
        CONFIG_KEY_TASK_ID,
        CONFIG_KEY_STRICT_RESUME,
    )
)
"""Configurable keys never sent to the server: the caller's own checkpoint position (the
remote thread has its own) and the caller's task id."""

CHECKPOINT_KEYS = ("thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint_map")
"""The configurable keys that name a checkpoint on the server, in the server's order."""


def sanitize_value(value: Any) -> Any:
    """``value`` reduced to what JSON carries: str, int, float, bool and UUID as they are;
    dicts keep their str keys whose values survive; lists and tuples become lists of the
    items that survive; anything else (objects, None) is ``None``, i.e. dropped."""
    if isinstance(value, (str, int, float, bool, UUID)):
        return value
    if isinstance(value, dict):
        kept: dict[str, Any] = {}
        for key, item in value.items():
            if isinstance(key, str) and (clean := sanitize_value(item)) is not None:
                kept[key] = clean
        return kept
    if isinstance(value, (list, tuple)):
        return [clean for item in value if (clean := sanitize_value(item)) is not None]
    return None


def _sanitize_mapping(values: Mapping[Any, Any], drop: frozenset[str]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, item in values.items():
        if isinstance(key, str) and key not in drop:
            clean = sanitize_value(item)
            if clean is not None:
                kept[key] = clean
    return kept


def sanitize_config(config: Mapping[str, Any]) -> RunnableConfig:
    """The part of ``config`` sent to the server: ``recursion_limit``; the str ``tags``;
    ``metadata`` and ``configurable`` through `sanitize_value` (``configurable`` also
    without `CONF_DROPLIST`). Callbacks, run names and the like are not sent."""
    out: dict[str, Any] = {}
    if "recursion_limit" in config:
        out["recursion_limit"] = config["recursion_limit"]
    if "tags" in config:
        out["tags"] = [tag for tag in config["tags"] if isinstance(tag, str)]
    if "metadata" in config:
        out["metadata"] = _sanitize_mapping(config["metadata"], frozenset())
    if "configurable" in config:
        out["configurable"] = _sanitize_mapping(config["configurable"], CONF_DROPLIST)
    return cast(RunnableConfig, out)


def checkpoint_of(config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The server's checkpoint reference for ``config``: the `CHECKPOINT_KEYS` its
    ``configurable`` holds, or ``None`` when it holds none (or there is no config)."""
    if config is None:
        return None
    configurable = config["configurable"]
    found = {key: configurable[key] for key in CHECKPOINT_KEYS if key in configurable}
    return found or None


def config_of(checkpoint: Mapping[str, Any]) -> RunnableConfig:
    """The config naming a server checkpoint (``checkpoint_map`` ``{}`` when absent)."""
    return {
        "configurable": {
            "thread_id": checkpoint["thread_id"],
            "checkpoint_ns": checkpoint["checkpoint_ns"],
            "checkpoint_id": checkpoint["checkpoint_id"],
            "checkpoint_map": checkpoint.get("checkpoint_map", {}),
        }
    }


def _task_of(task: Mapping[str, Any]) -> PregelTask:
    interrupts: tuple[Interrupt[Any], ...] = tuple(
        Interrupt(**payload) for payload in task["interrupts"]
    )
    state: Any = None
    if task["state"]:
        state = snapshot_of(task["state"])
    elif task["checkpoint"]:
        state = {"configurable": task["checkpoint"]}
    return PregelTask(
        id=task["id"],
        name=task["name"],
        path=(),
        # the server sends the error as text: the exception type is not known here
        error=Exception(task["error"]) if task["error"] else None,
        interrupts=interrupts,
        state=state,
        result=task.get("result"),
    )


def snapshot_of(state: Mapping[str, Any]) -> StateSnapshot:
    """A `StateSnapshot` of the server's thread state (``langgraph_sdk.schema.ThreadState``):
    its tasks as `PregelTask` (path ``()``, a task's subgraph state nested, or the config of
    its checkpoint), its ``next`` as a tuple, its interrupts those of its tasks in order."""
    tasks = tuple(_task_of(task) for task in state["tasks"])
    parent = state["parent_checkpoint"]
    return StateSnapshot(
        values=state["values"],
        next=tuple(state["next"]) if state["next"] else (),
        config=config_of(state["checkpoint"]),
        metadata=dict(state["metadata"]),  # type: ignore[arg-type]
        created_at=state["created_at"],
        parent_config=config_of(parent) if parent else None,
        tasks=tasks,
        interrupts=tuple(i for task in tasks for i in task.interrupts),
    )


def drawable_graph(graph: Mapping[str, Any]) -> Graph:
    """The drawable graph of the server's JSON graph (``nodes``/``edges``): a node's name is
    its ``name``, else its data's ``name`` when the data is a dict, else its id."""
    nodes: dict[str, Node] = {}
    for node in graph["nodes"]:
        node_id = str(node["id"])
        data = node.get("data", {})
        name = node.get("name")
        if name is None:
            name = data.get("name", node_id) if isinstance(data, dict) else node_id
        nodes[node_id] = Node(id=node_id, name=name, data=data, metadata=node.get("metadata"))
    return Graph(nodes=nodes, edges=[Edge(**edge) for edge in graph["edges"]])
