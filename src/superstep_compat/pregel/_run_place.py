"""`RunPlace`: where a façade run reads and writes its checkpoints, resolved from its config
and its link to the parent task running it (`place_run`): the thread, the checkpoint
namespace (a further run of a subgraph in one task, a root graph given a subgraph's config, a
``checkpointer=True`` subgraph's one history per thread), the checkpoint it starts from when
the checkpoint map addresses one, its ancestors' checkpoints, and its saver.

Never imports the run or the host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from superstep_compat._internal._constants import NS_END, NS_SEP
from superstep_compat.pregel._allowlist import allowlisted
from superstep_compat.pregel._task_context import ChildLink

__all__ = ["RunPlace", "place_run"]


@dataclass(frozen=True, slots=True)
class RunPlace:
    """A run's ``thread_id`` (None: no thread), its checkpoint namespace ``ns`` ("" for a
    root graph), the checkpoint id a subgraph's run is ``addressed`` to start from (None: its
    latest), the ``parents``' checkpoint ids by namespace, and its ``saver`` (None: it saves
    nothing)."""

    thread_id: str | None
    ns: str
    addressed: str | None
    parents: dict[str, str]
    saver: BaseCheckpointSaver[Any] | None


def place_run(graph: Any, config: dict[str, Any], link: ChildLink | None) -> RunPlace:
    """Where a run of ``graph`` (a compiled `Pregel`) given ``config`` (the run's own dict:
    its ``configurable`` is replaced by the one the run runs under) and ``link`` (None: a
    root graph's run) reads and writes. ValueError for a saver with no thread to save to."""
    configurable: dict[str, Any] = config.get("configurable") or {}
    thread = configurable.get("thread_id")
    # LangGraph's checkpoints name the thread by a string, whatever the config gave
    thread_id = None if thread is None else str(thread)
    ns: str = configurable.get("checkpoint_ns", "") or ""
    if link is not None and (count := next(link.calls)):
        ns = f"{ns}{NS_SEP}{count}"  # a further run of a subgraph in one task
        config["configurable"] = {**configurable, "checkpoint_ns": ns}
    checkpoint_map: dict[str, str] = dict(configurable.get("checkpoint_map") or {})
    if link is None and ns:
        # A root graph given a subgraph's checkpoint config (a snapshot's) runs from its
        # own checkpoint of then (``checkpoint_map[""]``; none there: its latest).
        ns = ""
        own = {k: v for k, v in configurable.items() if k != "checkpoint_id"}
        if checkpoint_map.get(""):
            own["checkpoint_id"] = checkpoint_map[""]
        config["configurable"] = {**own, "checkpoint_ns": ""}
    # A ``checkpointer=True`` subgraph keeps one history per thread: it runs (its
    # checkpoints, tasks and stream events) under its namespace without the task ids,
    # keeping the numbers of further runs in one task (LangGraph's own checkpoint config).
    if link is not None and graph.checkpointer is True:
        ns = NS_SEP.join(part.split(NS_END)[0] for part in ns.split(NS_SEP))
        # LangGraph runs it under that namespace: its stream events and its tasks too
        config["configurable"] = {**config["configurable"], "checkpoint_ns": ns}
    if link is not None and not link.checkpoint_ns:
        link.checkpoint_ns = ns
    # A subgraph's run addressed by the checkpoint map (time travel to one of its
    # checkpoints) starts from that checkpoint; its checkpoints name their ancestors'.
    addressed: str | None = None
    parents: dict[str, str] = {}
    if link is not None:
        addressed = checkpoint_map.get(ns)
        parents = {k: v for k, v in checkpoint_map.items() if k != ns}
    saver: BaseCheckpointSaver[Any] | None = graph.saver_for(config)
    if saver is None and link is not None and graph.checkpointer in (None, True):
        # a subgraph keeps its checkpoints in the parent's saver, reviving its own classes
        saver = allowlisted(graph, link.saver)
    if saver is not None and thread_id is None:
        raise ValueError(
            "Checkpointer requires one or more of the following 'configurable' keys: "
            "thread_id, checkpoint_ns, checkpoint_id"
        )
    return RunPlace(thread_id, ns, addressed, parents, saver)
