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


def to_mermaid(graph: CompiledGraph) -> str:
    """A Mermaid ``flowchart TD`` of ``graph`` (a string ending with a newline)."""
    lines = ["flowchart TD", "    __start__((start))"]
    if graph.ends:
        lines.append("    __end__((end))")
    for key in graph.nodes:
        lines.append(f"    {_ident('n_', key)}[{key}]")
    for join in graph.joins:
        lines.append(f'    {_ident("j_", join.name)}{{{{"{_policy(join)}"}}}}')
    for name in sorted(graph.routes_of):
        lines.append(f'    {_ident("e_", name)}>"event: {name}"]')
    for key in graph.starts:
        lines.append(f"    __start__ --> {_ident('n_', key)}")
    for c in graph.connects:
        lines.append(f"    {_ident('n_', c.source)} --> {_ident('n_', c.target)}")
    for b in graph.branches:
        label = _router_name(b.router)
        for t in b.targets:
            lines.append(f"    {_ident('n_', b.source)} -. {label} .-> {_ident('n_', t)}")
    for join in graph.joins:
        j = _ident("j_", join.name)
        for s in join.sources:
            lines.append(f"    {_ident('n_', s)} --> {j}")
        lines.append(f"    {j} --> {_ident('n_', join.target)}")
        if isinstance(join.on_failure, RouteFailuresTo):
            lines.append(f"    {j} -. on failure .-> {_ident('n_', join.on_failure.node)}")
    for key, spec in graph.nodes.items():
        for t in sorted(spec.may_activate or ()):
            lines.append(f"    {_ident('n_', key)} -. may activate .-> {_ident('n_', t)}")
    for r in graph.routes:
        lines.append(f"    {_ident('e_', r.name)} -. route .-> {_ident('n_', r.node)}")
    for key in graph.ends:
        lines.append(f"    {_ident('n_', key)} --> __end__")
    return "\n".join(lines) + "\n"


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(graph: CompiledGraph) -> str:
    """A Graphviz ``digraph`` of ``graph`` (a string ending with a newline)."""
    lines = [
        f"digraph {_q(graph.name)} {{",
        "  rankdir=TB;",
        '  __start__ [shape=circle, label="start"];',
    ]
    if graph.ends:
        lines.append('  __end__ [shape=doublecircle, label="end"];')
    for key in graph.nodes:
        lines.append(f"  {_q(key)} [shape=box];")
    for join in graph.joins:
        lines.append(f"  {_q('join:' + join.name)} [shape=hexagon, label={_q(_policy(join))}];")
    for name in sorted(graph.routes_of):
        lines.append(f"  {_q('event:' + name)} [shape=cds, label={_q('event: ' + name)}];")
    for key in graph.starts:
        lines.append(f"  __start__ -> {_q(key)};")
    for c in graph.connects:
        lines.append(f"  {_q(c.source)} -> {_q(c.target)};")
    for b in graph.branches:
        label = _q(_router_name(b.router))
        for t in b.targets:
            lines.append(f"  {_q(b.source)} -> {_q(t)} [style=dashed, label={label}];")
    for join in graph.joins:
        for s in join.sources:
            lines.append(f"  {_q(s)} -> {_q('join:' + join.name)};")
        lines.append(f"  {_q('join:' + join.name)} -> {_q(join.target)};")
        if isinstance(join.on_failure, RouteFailuresTo):
            lines.append(
                f"  {_q('join:' + join.name)} -> {_q(join.on_failure.node)} "
                f'[style=dashed, label="on failure"];'
            )
    for key, spec in graph.nodes.items():
        for t in sorted(spec.may_activate or ()):
            lines.append(f'  {_q(key)} -> {_q(t)} [style=dashed, label="may activate"];')
    for r in graph.routes:
        lines.append(f"  {_q('event:' + r.name)} -> {_q(r.node)} [style=dotted];")
    for key in graph.ends:
        lines.append(f"  {_q(key)} -> __end__;")
    lines.append("}")
    return "\n".join(lines) + "\n"
