"""Compile-time validation of a builder, with LangGraph's exact errors."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from superstep_compat._internal._constants import END, START
from superstep_compat.graph._spec import BranchSpec, NodeSpec

__all__ = ["validate_graph"]


def _ends_of(spec: NodeSpec) -> Iterable[str]:
    return spec.ends.keys() if isinstance(spec.ends, Mapping) else spec.ends


def validate_graph(
    nodes: Mapping[str, NodeSpec],
    edges: Iterable[tuple[str, str]],
    waiting_edges: Iterable[tuple[tuple[str, ...], str]],
    branches: Mapping[str, Mapping[str, BranchSpec]],
    interrupt: Sequence[str] | None = None,
) -> None:
    """Raise ValueError for unknown sources or targets, a missing entry point or unknown
    interrupt nodes."""
    edges = list(edges)
    waiting_edges = list(waiting_edges)
    sources = {s for s, _ in edges} | set(branches)
    for starts, _ in waiting_edges:
        sources.update(starts)
    for source in sorted(sources):
        if source not in nodes and source != START:
            raise ValueError(f"Found edge starting at unknown node '{source}'")
    if START not in sources:
        raise ValueError(
            "Graph must have an entrypoint: add at least one edge from START to another node"
        )
    targets = {t for _, t in edges} | {t for _, t in waiting_edges}
    for name, spec in nodes.items():
        targets.update(_ends_of(spec))
        del name
    for target in sorted(targets):
        if target not in nodes and target != END:
            raise ValueError(f"Found edge ending at unknown node `{target}`")
    for source, by_name in branches.items():
        for branch_name, branch in by_name.items():
            for end in (branch.ends or {}).values():
                if end not in nodes and end != END:
                    raise ValueError(
                        f"At '{source}' node, '{branch_name}' branch found unknown target '{end}'"
                    )
    if interrupt and interrupt != "*":
        for node in interrupt:
            if node not in nodes:
                raise ValueError(f"Interrupt node `{node}` not found")
