"""`get_graph()` for a builder: a langchain-core `Graph` drawn as LangGraph draws it.

The walk starts at START and follows static edges, joins, branch ends and `Command`
destinations; unreachable nodes are listed but their edges are not drawn. An edge both
static and conditional is drawn solid (dotted into END). A reached node with no way out
gets a plain edge to END; if END is never reached, one conditional edge to END is added
from the first node reached. Edge order: edges from START, then the others by
(source, target), then plain edges into END by source.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langchain_core.runnables.graph import Graph

from superstep_compat._internal._constants import END, START
from superstep_compat.graph._spec import BranchSpec, NodeSpec

__all__ = ["draw_graph"]

_Edge = tuple[str, str, str | None, bool]


def _outgoing(
    node: str,
    nodes: Mapping[str, NodeSpec],
    edges: Iterable[tuple[str, str]],
    waiting_edges: Iterable[tuple[tuple[str, ...], str]],
    branches: Mapping[str, Mapping[str, BranchSpec]],
) -> list[_Edge]:
    out: list[_Edge] = [(node, t, None, False) for s, t in sorted(edges) if s == node]
    out += [(node, t, None, False) for ss, t in sorted(waiting_edges) if node in ss]
    for branch in branches.get(node, {}).values():
        seen: set[str] = set()
        for key, target in (branch.ends or {}).items():
            if target not in seen:
                seen.add(target)
                label = str(key) if key != target else None
                out.append((node, target, label, True))
    spec = nodes.get(node)
    if spec is not None:
        if isinstance(spec.ends, Mapping):
            for target, label in spec.ends.items():
                out.append((node, target, label if label != target else None, True))
        else:
            out += [(node, target, None, True) for target in spec.ends]
    return out


def _outranks(edge: _Edge, drawn: _Edge) -> bool:
    """Whether ``edge`` replaces ``drawn`` (same source and target): LangGraph draws an
    edge that is both static and a conditional path solid, except into END, where it only
    ever sees the conditional one (a static edge to END is drawn for a node with no other
    way out)."""
    if edge[1] == END:
        return edge[3] and not drawn[3]
    return not edge[3] and drawn[3]


def _interrupt_label(name: str, before: Sequence[str] | str, after: Sequence[str] | str) -> str:
    kinds = []
    if before != "*" and name in before:
        kinds.append("before")
    if after != "*" and name in after:
        kinds.append("after")
    return ",".join(kinds)


def draw_graph(
    nodes: Mapping[str, NodeSpec],
    edges: Iterable[tuple[str, str]],
    waiting_edges: Iterable[tuple[tuple[str, ...], str]],
    branches: Mapping[str, Mapping[str, BranchSpec]],
    *,
    interrupt_before: Sequence[str] | str = (),
    interrupt_after: Sequence[str] | str = (),
) -> Graph:
    """The drawable graph of a builder's nodes and edges (``StateGraph.nodes`` ...)."""
    edges = list(edges)
    waiting_edges = list(waiting_edges)
    graph = Graph()
    graph.add_node(None, START)
    for name, spec in nodes.items():
        metadata: dict[str, Any] = dict(spec.metadata or {})
        if spec.defer:
            metadata["defer"] = True
        label = _interrupt_label(name, interrupt_before or (), interrupt_after or ())
        if label:
            metadata["__interrupt"] = label
        graph.add_node(None, name, metadata=metadata or None)
    graph.add_node(None, END)

    drawn: dict[tuple[str, str], _Edge] = {}
    order: list[str] = []
    frontier = [START]
    visited = {START}
    while frontier:
        following: list[str] = []
        for node in frontier:
            out = _outgoing(node, nodes, edges, waiting_edges, branches)
            if not out and node != START:
                out = [(node, END, None, False)]
            for edge in out:
                key = (edge[0], edge[1])
                if key not in drawn or _outranks(edge, drawn[key]):
                    drawn[key] = edge
                target = edge[1]
                if target != END and target not in visited and target in nodes:
                    visited.add(target)
                    following.append(target)
                    order.append(target)
        frontier = following

    fallback: list[_Edge] = []
    if not any(t == END for _, t in drawn) and order:
        fallback.append((order[0], END, None, True))

    first = sorted((e for e in drawn.values() if e[0] == START), key=lambda e: e[1])
    last = sorted(
        (e for e in drawn.values() if e[0] != START and e[1] == END and not e[3]),
        key=lambda e: e[0],
    )
    middle = sorted(
        (e for e in drawn.values() if e not in first and e not in last),
        key=lambda e: (e[0], e[1]),
    )
    for source, target, data, conditional in [*first, *middle, *last, *fallback]:
        graph.add_edge(graph.nodes[source], graph.nodes[target], data, conditional)
    return graph
