"""A document as a diagram: Mermaid (``superstep graph flow.json --format mermaid``) and DOT.

Shapes say the node type: an llm node is a rectangle, a tool a subroutine box, a condition a
rhombus, a human node a parallelogram, ``start``/``end`` stadiums. A condition's edges carry
their labels; a join (parallel branches meeting) is noted on its node.

Must never import the runtime, the host, the llm layer or compat.
"""

from __future__ import annotations

from superstep_core.document.analysis import shape
from superstep_core.document.model import END, START, Document

__all__ = ["document_dot", "document_mermaid"]

_MERMAID_SHAPES = {
    "llm": ('["', '"]'),
    "tool": ('[["', '"]]'),
    "condition": ('{"', '"}'),
    "human": ('[/"', '"/]'),
}
_DOT_SHAPES = {"llm": "box", "tool": "component", "condition": "diamond", "human": "parallelogram"}


def _ids(doc: Document) -> dict[str, str]:
    ids = {START: "__start__", END: "__end__"}
    ids.update((n.id, f"n{i}") for i, n in enumerate(doc.nodes))
    return ids


def _text(label: str) -> str:
    return label.replace('"', "#quot;").replace("\n", " ")


def document_mermaid(doc: Document) -> str:
    """A Mermaid ``flowchart TD`` of ``doc``."""
    ids = _ids(doc)
    joins = shape(doc).joins
    lines = ["flowchart TD", f"    {ids[START]}([start])"]
    for n in doc.nodes:
        left, right = _MERMAID_SHAPES[n.type]
        note = f"<br/>waits for {', '.join(joins[n.id])}" if n.id in joins else ""
        lines.append(f"    {ids[n.id]}{left}{_text(n.label)} ({n.type}){note}{right}")
    lines.append(f"    {ids[END]}([end])")
    for e in doc.edges:
        if e.source not in ids or e.target not in ids:
            continue
        arrow = f"-->|{_text(e.label)}|" if e.label else "-->"
        lines.append(f"    {ids[e.source]} {arrow} {ids[e.target]}")
    return "\n".join(lines) + "\n"


def document_dot(doc: Document) -> str:
    """A Graphviz ``digraph`` of ``doc``."""
    ids = _ids(doc)
    name = doc.name.replace('"', '\\"')
    lines = [f'digraph "{name}" {{', "    rankdir=TB;"]
    lines.append(f'    {ids[START]} [label="start", shape=oval];')
    for n in doc.nodes:
        label = f"{n.label} ({n.type})".replace('"', '\\"')
        lines.append(f'    {ids[n.id]} [label="{label}", shape={_DOT_SHAPES[n.type]}];')
    lines.append(f'    {ids[END]} [label="end", shape=oval];')
    for e in doc.edges:
        if e.source not in ids or e.target not in ids:
            continue
        label = f' [label="{e.label}"]' if e.label else ""
        lines.append(f"    {ids[e.source]} -> {ids[e.target]}{label};")
    lines.append("}")
    return "\n".join(lines) + "\n"
