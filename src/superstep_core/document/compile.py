"""Compiling a validated document onto the engine: a channel per state field with its reducer
(plus the run's input, visit counts and event reports), a node per document node, an edge per
document edge, a branch per condition node and a join where parallel branches meet.

    compiled = compile_document(doc)
    compiled.graph            # a CompiledGraph, identity "document:<name>@<content hash>"
    compiled.initial(input)   # the updates of superstep 0 (defaults, then the input)

The graph's identity carries the content hash, so a stored run can only continue on the
version it started on.

Must never import the host or compat.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from superstep_core.channel import LastValue
from superstep_core.document.analysis import Shape
from superstep_core.document.channels import (
    EVENTS,
    INPUT,
    RETRIES,
    VISITS,
    FieldChannel,
    StepLog,
    Visits,
)
from superstep_core.document.errors import InputError, Problem
from superstep_core.document.model import END, START, UNSET, Document, Node
from superstep_core.document.nodes import build_node
from superstep_core.document.validate import fits_type, validate_document
from superstep_core.graph import CompiledGraph, Graph
from superstep_core.node import RetryPolicy

__all__ = ["CompiledDocument", "compile_document", "graph_identity"]

_DEFAULT_RETRY = RetryPolicy(max_attempts=3, initial_interval=0.5)


def graph_identity(doc: Document) -> tuple[str, str]:
    """(graph name, graph version) of ``doc``'s engine graph."""
    return f"document:{doc.name}", doc.content_hash.removeprefix("sha256:")[:16]


@dataclass(frozen=True)
class CompiledDocument:
    """A document on the engine: ``graph``, the ``document``, and its ``shape``."""

    document: Document
    graph: CompiledGraph
    shape: Shape

    def initial(self, given: Any) -> dict[str, Any]:
        """The updates committed as superstep 0 for run input ``given`` (an object whose
        keys are state fields; ``None`` for none): field defaults, then the input, and the
        input itself under `INPUT`. Raises `InputError` naming each key that is not a state
        field or whose value is not of the field's type."""
        return initial_state(self.document, given)


def initial_state(doc: Document, given: Any) -> dict[str, Any]:
    """See `CompiledDocument.initial`."""
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise InputError(
            [Problem("input", f"must be a JSON object of state fields, got {_kind(given)}")],
            doc.name,
        )
    fields = {f.name: f for f in doc.state}
    problems: list[Problem] = []
    for key, value in given.items():
        f = fields.get(key)
        if f is None:
            known = ", ".join(fields) or "none"
            problems.append(
                Problem(f"input key {key!r}", f"is not a state field of the document ({known})")
            )
        elif not fits_type(value, f.type):
            problems.append(
                Problem(f"input key {key!r}", f"must be of type {f.type!r}, got {_kind(value)}")
            )
    if problems:
        raise InputError(problems, doc.name)
    updates: dict[str, Any] = {f.name: f.default for f in doc.state if f.default is not UNSET}
    updates.update(given)
    updates[INPUT] = dict(given)
    return updates


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    for name in ("boolean", "integer", "number", "string", "list", "object"):
        if fits_type(value, name):
            return name
    return type(value).__name__


def _retry(node: Node) -> RetryPolicy | None:
    if node.type not in ("llm", "tool"):
        return None
    given = node.data.get("retry")
    if given is None:
        return _DEFAULT_RETRY
    return RetryPolicy(
        max_attempts=int(given.get("max_attempts", 3)),
        initial_interval=float(given.get("initial_interval", 0.5)),
        backoff_factor=float(given.get("backoff_factor", 2.0)),
        max_interval=float(given.get("max_interval", 128.0)),
    )


def compile_document(doc: Document, *, tools: Collection[str] | None = None) -> CompiledDocument:
    """Validate ``doc`` (raises `DocumentError`; ``tools``: registered Python tool names to
    check against) and build its engine graph."""
    found = validate_document(doc, tools=tools)
    name, version = graph_identity(doc)
    g = Graph(name, version=version)
    channels = {f.name: FieldChannel(f.how) for f in doc.state}
    own = {INPUT: LastValue(), VISITS: Visits(), EVENTS: StepLog(), RETRIES: Visits()}
    g.with_channels(channels, **own)
    fields = {f.name: f for f in doc.state}
    for n in doc.nodes:
        target = n.output_field
        writes = [VISITS, EVENTS] + ([target] if target else [])
        g.add_node(
            n.id,
            build_node(n, fields.get(target) if target else None),
            writes=writes,
            retry=_retry(n),
            coalesce=True,
            metadata={"type": n.type, "label": n.label},
        )
    g.start_at(*[t for t in found.successors.get(START, ()) if t != END])
    for n in doc.nodes:
        if n.type == "condition":
            _branch(g, doc, n)
            continue
        for target in found.successors.get(n.id, ()):
            if target != END and n.id not in found.joins.get(target, ()):
                g.connect(n.id, target)
    for target, sources in found.joins.items():
        g.join_all(f"join:{target}", sources, target)
    return CompiledDocument(doc, g.compile(), found)


def _branch(g: Graph, doc: Document, n: Node) -> None:
    by_label: dict[str, list[str]] = {}
    for e in doc.edges:
        if e.source == n.id and e.label is not None:
            targets = by_label.setdefault(e.label, [])
            if e.target != END and e.target not in targets:
                targets.append(e.target)
    every = sorted({t for ts in by_label.values() for t in ts})
    if not every:
        return
    routes = {label: tuple(ts) for label, ts in by_label.items()}

    def route(state: Mapping[str, Any], label: Any) -> Sequence[str] | None:
        return list(routes.get(str(label), ())) or None

    route.__name__ = f"route_{n.id}"
    g.branch(n.id, route, every)
