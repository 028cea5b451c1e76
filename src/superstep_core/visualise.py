"""Diagrams of a compiled graph: Mermaid flowcharts and Graphviz DOT.

Plain edges are solid arrows; branches are dotted arrows labelled with the router's name;
joins are drawn as their own hexagon node labelled with the fire policy (a failure route as a
dashed "on failure" arrow from it); a node's declared ``may_activate`` targets (Activate/Spawn
by control) as dashed "may activate" arrows; routes of external events enter from an
event-shaped node; start and end nodes hang off ``start``/``end`` circles.

Must never import: the runtime, the host, persistence, llm, compat.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from superstep_core.edge import All, AnyOf, AtLeast, Join, RouteFailuresTo
from superstep_core.graph import CompiledGraph

__all__ = ["to_dot", "to_mermaid"]


def _ident(prefix: str, name: str) -> str:
    return prefix + re.sub(r"\W", "_", name)


def _policy(join: Join) -> str:
    if isinstance(join.fire, All):
        fire = "all"
    elif isinstance(join.fire, AnyOf):
        fire = "any"
    elif isinstance(join.fire, AtLeast):
        fire = f"at least {join.fire.n}"
    else:  # pragma: no cover - exhaustive over FirePolicy
        fire = str(join.fire)
    return f"join {join.name}: {fire}"


def _router_name(router: object) -> str:
    return getattr(router, "__name__", type(router).__name__)


@dataclass(frozen=True)
class _Vertex:
    """One shape of the diagram: ``kind`` is start, end, node, join or event."""

    kind: str
    name: str = ""
    label: str = ""


@dataclass(frozen=True)
class _Arrow:
    """One arrow: ``kind`` is edge (solid), branch, failure, may (may activate) or route;
    ``label`` is what a labelled arrow says."""

    source: _Vertex
    target: _Vertex
    kind: str = "edge"
    label: str = ""


_START, _END = _Vertex("start"), _Vertex("end")


class _NodeVertices(dict[str, _Vertex]):
    """The vertex of each node key, made when first asked for (an arrow draws whatever key
    the graph names, as the diagrams always have)."""

    def __missing__(self, key: str) -> _Vertex:
        vertex = self[key] = _Vertex("node", key)
        return vertex


def _drawing(graph: CompiledGraph) -> tuple[list[_Vertex], list[_Arrow]]:
    """What both diagrams draw, in the order they draw it: the shapes, then the arrows."""
    node = _NodeVertices()
    joins = [(join, _Vertex("join", join.name, _policy(join))) for join in graph.joins]
    events = {name: _Vertex("event", name) for name in sorted(graph.routes_of)}
    vertices = [_START, *([_END] if graph.ends else []), *(node[key] for key in graph.nodes)]
    vertices += [j for _, j in joins] + list(events.values())
    arrows = [_Arrow(_START, node[key]) for key in graph.starts]
    arrows += [_Arrow(node[c.source], node[c.target]) for c in graph.connects]
    for b in graph.branches:
        label = _router_name(b.router)
        arrows += [_Arrow(node[b.source], node[t], "branch", label) for t in b.targets]
    for join, j in joins:
        arrows += [_Arrow(node[s], j) for s in join.sources]
        arrows.append(_Arrow(j, node[join.target]))
        if isinstance(join.on_failure, RouteFailuresTo):
            arrows.append(_Arrow(j, node[join.on_failure.node], "failure", "on failure"))
    for key, spec in graph.nodes.items():
        for t in sorted(spec.may_activate or ()):
            arrows.append(_Arrow(node[key], node[t], "may", "may activate"))
    arrows += [_Arrow(events[r.name], node[r.node], "route", "route") for r in graph.routes]
    arrows += [_Arrow(node[key], _END) for key in graph.ends]
    return vertices, arrows


def _mermaid_id(v: _Vertex) -> str:
    if v.kind in ("start", "end"):
        return f"__{v.kind}__"
    return _ident({"node": "n_", "join": "j_", "event": "e_"}[v.kind], v.name)


def _mermaid_shape(v: _Vertex) -> str:
    shape = {
        "start": "((start))",
        "end": "((end))",
        "node": f"[{v.name}]",
        "join": f'{{{{"{v.label}"}}}}',
        "event": f'>"event: {v.name}"]',
    }[v.kind]
    return _mermaid_id(v) + shape


def to_mermaid(graph: CompiledGraph) -> str:
    """A Mermaid ``flowchart TD`` of ``graph`` (a string ending with a newline)."""
    vertices, arrows = _drawing(graph)
    lines = ["flowchart TD"] + [f"    {_mermaid_shape(v)}" for v in vertices]
    for a in arrows:
        link = "-->" if a.kind == "edge" else f"-. {a.label} .->"
        lines.append(f"    {_mermaid_id(a.source)} {link} {_mermaid_id(a.target)}")
    return "\n".join(lines) + "\n"


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _dot_id(v: _Vertex) -> str:
    if v.kind in ("start", "end"):
        return f"__{v.kind}__"
    return _q({"node": "", "join": "join:", "event": "event:"}[v.kind] + v.name)


def _dot_shape(v: _Vertex) -> str:
    attributes = {
        "start": 'shape=circle, label="start"',
        "end": 'shape=doublecircle, label="end"',
        "node": "shape=box",
        "join": f"shape=hexagon, label={_q(v.label)}",
        "event": f"shape=cds, label={_q('event: ' + v.name)}",
    }[v.kind]
    return f"{_dot_id(v)} [{attributes}];"


def to_dot(graph: CompiledGraph) -> str:
    """A Graphviz ``digraph`` of ``graph`` (a string ending with a newline)."""
    vertices, arrows = _drawing(graph)
    lines = [f"digraph {_q(graph.name)} {{", "  rankdir=TB;"]
    lines += [f"  {_dot_shape(v)}" for v in vertices]
    for a in arrows:
        if a.kind == "edge":
            style = ""
        elif a.kind == "route":
            style = " [style=dotted]"
        else:
            style = f" [style=dashed, label={_q(a.label)}]"
        lines.append(f"  {_dot_id(a.source)} -> {_dot_id(a.target)}{style};")
    lines.append("}")
    return "\n".join(lines) + "\n"
