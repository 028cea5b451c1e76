"""A task's config: what every task of a run takes from the run's config (`RunBase`, worked
out once per run config), and the config one task runs with (`task_config`): LangGraph's
task metadata, the task's namespace and the `ChildLink` a subgraph it invokes takes as its
parent. `TaskRunner` keeps the run's `RunBase` and calls `task_config` per task."""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from superstep_compat._internal._config import DefaultRecursionLimit
from superstep_compat._internal._constants import CONFIG_KEY_NODE_FINISHED, PUSH
from superstep_compat.pregel._task_context import (
    CHILD_KEY,
    ChildLink,
    RunContext,
    _answers,
    task_path,
)
from superstep_compat.runtime import server_info_of

if TYPE_CHECKING:
    from superstep_compat.pregel._task_routing import TaskRouting

__all__ = ["RunBase", "plain_dict", "task_config"]


def task_config(
    base: RunBase,
    runner: TaskRouting,
    name: str,
    run: RunContext,
    uid: str,
    resume: Sequence[Any],
) -> dict[str, Any]:
    """The config a task runs with: LangGraph's task metadata, its namespace (the path
    from the root graph: "sub:<task>|inner:<task>"), and the link any compiled graph
    invoked while it runs takes as its parent (see `ChildLink`); ``uid``: the task's id
    (`task_uuid`)."""
    config = base.base.copy()
    # LangGraph's namespace segment: the node and its task id (the activation's, in
    # LangGraph's terms: derived from the checkpoint the step runs from)
    parent_ns = run.checkpoint_ns
    ns = f"{parent_ns}|{name}:{uid}" if parent_ns else f"{name}:{uid}"
    # a copy of the node's metadata with what differs per task set in place: the same
    # keys in the same order as LangGraph's display of them (see `RunBase.metadata_of`)
    found = base.nodes.get(name)  # (`metadata_of`'s known case spelled out: no call per task)
    metadata = (found if found is not None else base.metadata_of(name, runner)).copy()
    metadata["langgraph_step"] = run.step
    push = run.push
    if push is not None:
        metadata["langgraph_triggers"] = (PUSH,)
        metadata["langgraph_path"] = task_path(name, push)
    metadata["langgraph_checkpoint_ns"] = ns
    if base.thread is not _NO_THREAD:
        # the run's thread (LangGraph propagates it to run metadata): in place when the
        # run's metadata has the key, else last, as LangGraph displays it
        metadata["thread_id"] = base.thread
    configurable = base.configurable.copy()
    configurable["checkpoint_ns"] = ns
    if run.checkpoint_id is not None:
        # LangGraph's map of the ancestors' checkpoints, by namespace (root: "")
        configurable["checkpoint_map"] = {
            **(configurable.get("checkpoint_map") or {}),
            parent_ns: run.checkpoint_id,
        }
    configurable[CHILD_KEY] = ChildLink(
        run.saver,
        _answers(resume) if resume else [],  # (the usual task: no call)
        run.emit,
        run.stream_modes,
        run.subgraphs,
        ns,
        run.replay,
        resuming=bool(resume) or run.resuming,
        inherited=run.spare_answers,
    )
    config["metadata"] = metadata
    config["configurable"] = configurable
    return config


class RunBase:
    """What every task of a run takes from the run's ``config``: the config without the run
    id (``base``), its metadata as a plain dict, its configurable with
    ``checkpoint_id`` None, the thread id each task sets in its metadata (the metadata's own
    ``thread_id``, else the configurable's; `_NO_THREAD`: none), the run's `ServerInfo`, its
    ``run_id`` as text, LangGraph's node-finished hook, and each node's task metadata
    (`metadata_of`, the same for the next invocation whose metadata differs in the thread
    alone)."""

    __slots__ = (
        "base",
        "config",
        "configurable",
        "finished",
        "metadata",
        "nodes",
        "run_id",
        "server",
        "thread",
    )

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        base = dict(config)
        # LangChain hands a child run its config without the run id (``patch_config`` with
        # callbacks): neither the task nor a subgraph it runs has its graph run's id
        base.pop("run_id", None)
        # LangGraph builds a task's config with its own callbacks (which drops the run's
        # name) by merging configs, which skips empty values and a defaulted recursion
        # limit: a node's config has none of these unless the caller gave them
        base.pop("run_name", None)
        if not base.get("tags"):
            base.pop("tags", None)
        if isinstance(base.get("recursion_limit"), DefaultRecursionLimit):
            del base["recursion_limit"]
        self.base = base
        metadata = self.metadata = plain_dict(base.get("metadata"))
        given = config.get("configurable") or {}
        configurable = dict(base.get("configurable") or {})
        thread = configurable.get("thread_id")
        if "thread_id" in metadata:  # (LangGraph's config copies the thread there)
            thread = metadata["thread_id"]
        elif not thread:
            thread = _NO_THREAD
        self.thread: Any = thread
        # a task's config names no checkpoint of its own: LangGraph sets the key to None
        configurable["checkpoint_id"] = None
        self.configurable = configurable
        self.server = server_info_of(given)
        run_id = config.get("run_id")
        self.run_id = str(run_id) if run_id else None
        self.finished = given.get(CONFIG_KEY_NODE_FINISHED)
        self.nodes: dict[str, dict[str, Any]] = {}

    def same_metadata(self, other: RunBase) -> bool:
        """Whether the tasks of ``other``'s run have the same metadata as this run's, the
        thread aside (the same keys in the same order, the very same values): another
        invocation of the graph, whose nodes' metadata need not be worked out again (each
        task adds its run's thread: a thread per invocation is usual)."""
        mine, theirs = self.metadata, other.metadata
        if len(mine) != len(theirs):
            return False
        for (key, value), (their_key, their_value) in zip(mine.items(), theirs.items()):
            if key != their_key or (value is not their_value and key != "thread_id"):
                return False
        return True

    def metadata_of(self, name: str, runner: TaskRouting) -> dict[str, Any]:
        """LangGraph's metadata of a task of node ``name`` (an edge's: a `Send` task sets its
        triggers and path), the step and namespace to be set per task: the run's metadata,
        then ``langgraph_step``, ``_node``, ``_triggers``, ``_path``, ``_checkpoint_ns``; the
        thread, last, is the task's to add (`task_config`). A copy of it with those set has
        the keys in the order of LangGraph's display (a key the run's metadata has keeps its
        place)."""
        found = self.nodes.get(name)
        if found is None:
            found = {
                **self.metadata,
                "langgraph_step": 0,
                "langgraph_node": name,
                "langgraph_triggers": runner.triggers(name),
                "langgraph_path": task_path(name, None),
                "langgraph_checkpoint_ns": "",
            }
            self.nodes[name] = found
        return found


_NO_THREAD: Any = object()
"""`RunBase.thread` of a run without a thread: its tasks' metadata has none."""


def plain_dict(mapping: Mapping[str, Any] | None) -> dict[str, Any]:
    """``dict(mapping or {})``, quicker for the `ChainMap` a run's metadata is until a config
    brings some (`ensure_config`): ``dict()`` of one walks its abstract key view, per task."""
    if type(mapping) is ChainMap:
        out: dict[str, Any] = {}
        for layer in reversed(mapping.maps):  # the first layer holding a key wins
            out.update(layer)
        return out
    return dict(mapping or {})
