"""Wiring tasks into a graph: one node per task, ``after`` dependencies as edges and joins.

A task with no dependency starts the execution; one dependency is an edge; several are a
`join_all` named ``"<task>.after"`` (keyed by lineage, failing fast). A task nobody runs
after is an end node, so its output is one of the execution's outputs.

Uses only public names of graph-core. Must never import the runtime, the host, persistence,
llm or compat.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from superstep_core.channel import Channel
from superstep_core.errors import GraphValidationError
from superstep_core.graph import Graph
from superstep_core.task.model import Task, task_node

__all__ = ["add_tasks", "task_graph"]


def add_tasks(graph: Graph, tasks: Iterable[Task]) -> Graph:
    """Add ``tasks`` to ``graph`` (nodes, starts, edges, joins, ends) and return it. Raises
    `GraphValidationError` naming the task when a dependency is not one of ``tasks``."""
    tasks = list(tasks)
    names = {t.name for t in tasks}
    for t in tasks:
        missing = [d for d in t.after if d not in names]
        if missing:
            raise GraphValidationError(
                f"task {t.name!r} runs after {missing}, which are not tasks of this graph; "
                f"tasks: {sorted(names)}"
            )
    for t in tasks:
        graph.add_node(t.name, task_node(t), writes=t.writes, retry=t.retry)
    needed = {d for t in tasks for d in t.after}
    for t in tasks:
        if not t.after:
            graph.start_at(t.name)
        elif len(t.after) == 1:
            graph.connect(t.after[0], t.name)
        else:
            graph.join_all(f"{t.name}.after", t.after, t.name)
        if t.name not in needed:
            graph.end_at(t.name)
    return graph


def task_graph(
    name: str,
    tasks: Iterable[Task],
    *,
    channels: Mapping[str, Channel] | None = None,
    version: str = "1",
) -> Graph:
    """A new `Graph` of ``tasks`` over ``channels`` (compile it, or add more first)."""
    return add_tasks(Graph(name, version=version).with_channels(channels or {}), tasks)
