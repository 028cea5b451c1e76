"""Validation of a whole document, before anything runs: every problem names the node, edge or
state field and says what to do.

Checked: unique ids and names; edges between known nodes (``start`` only as a source, ``end``
only as a target); a reducer that fits its field's type, and defaults of the field's type; an
``output_field`` that is a state field whose type takes what the node produces; every
``{{state.x}}`` / ``{{input.x}}`` reference and condition path names a state field; conditions
parse; a condition's edges carry labels its rules (or its default) produce, and each label
has an edge; an llm node's provider is known; a Python tool is registered (when the registry
is given); every node is reachable from ``start``; every loop passes a condition; parallel
branches never both write a ``replace`` field; a join never waits for a branch a condition may
not take, nor for a sibling branch that some path into one of its sources does not start (a
condition's other label, or an edge from outside the fork).

Must never import the runtime, the host or compat.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Collection, Iterable
from typing import Any

from superstep_core.document.analysis import Shape, describe_path, shape
from superstep_core.document.errors import DocumentError, Problem
from superstep_core.document.expressions import ExpressionError, Path, parse, paths
from superstep_core.document.model import END, START, UNSET, Document, Node, StateField
from superstep_core.document.templates import references, unclosed
from superstep_core.llm.errors import UnknownProviderError, UnsupportedModelError
from superstep_core.llm.providers import PROVIDERS
from superstep_core.llm.registry import parse_model

__all__ = ["check_document", "fits_type", "produces", "validate_document"]

_REDUCER_TYPES = {"append": ("list",), "merge": ("object",), "add": ("number", "integer")}


def validate_document(doc: Document, *, tools: Collection[str] | None = None) -> Shape:
    """Raise `DocumentError` listing every problem of ``doc`` (see the module docstring);
    ``tools``: the names of the registered Python tools (``None``: not checked). Returns the
    graph's `Shape` for the compiler."""
    problems, found = _check(doc, tools)
    if problems:
        raise DocumentError(problems, doc.name)
    return found


def check_document(doc: Document, *, tools: Collection[str] | None = None) -> list[Problem]:
    """Every problem of ``doc``, in a stable order (empty when it is valid)."""
    return _check(doc, tools)[0]


def fits_type(value: Any, type_name: str) -> bool:
    """Whether a JSON value is of a document field type (``integer`` is a whole number;
    a boolean is not a number)."""
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if type_name == "list":
        return isinstance(value, list)
    if type_name == "object":
        return isinstance(value, dict)
    return False


def produces(node: Node) -> str | None:
    """The field type a node's output has, when known before it runs: ``string`` for an llm
    node without ``output_schema`` and for a condition (its label), the schema's type for
    structured output, ``object`` for a human node; ``None`` for a tool (any JSON)."""
    if node.type == "llm":
        schema = node.data.get("output_schema")
        if schema is None:
            return "string"
        kind = schema.get("type", "object")
        return {"array": "list"}.get(kind, kind) if isinstance(kind, str) else None
    if node.type == "condition":
        return "string"
    if node.type == "human":
        return "object"
    return None


def _close(name: str, names: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(names), n=2)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def _excerpt(text: str, limit: int = 80) -> str:
    """``text`` quoted, cut to its first ``limit`` characters when longer (a problem is one
    line, also for a condition thousands of characters long)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def _check(doc: Document, tools: Collection[str] | None) -> tuple[list[Problem], Shape]:
    out: list[Problem] = []
    fields = {f.name: f for f in doc.state}
    node_ids = {n.id for n in doc.nodes}
    _unique(doc, out)
    for f in doc.state:
        _check_field(f, out)
    for n in doc.nodes:
        _check_node(n, fields, tools, out)
    _check_edges(doc, node_ids, out)
    found = shape(doc)
    _check_graph(doc, found, fields, out)
    return out, found


def _unique(doc: Document, out: list[Problem]) -> None:
    for kind, names in (
        ("node", [n.id for n in doc.nodes]),
        ("edge", [e.id for e in doc.edges]),
        ("state field", [f.name for f in doc.state]),
    ):
        for name, count in Counter(names).items():
            if count > 1:
                out.append(Problem(f"{kind} {name!r}", f"is defined {count} times: rename one"))


def _check_field(f: StateField, out: list[Problem]) -> None:
    where = f"state field {f.name!r}"
    allowed = _REDUCER_TYPES.get(f.how)
    if allowed is not None and f.type not in allowed:
        fix = "a list field" if f.how == "append" else f"a field of type {' or '.join(allowed)}"
        out.append(
            Problem(
                where,
                f"reducer {f.how!r} does not fit type {f.type!r}: use it on {fix}, or use "
                f"'replace'",
            )
        )
    if f.default is not UNSET and not fits_type(f.default, f.type):
        out.append(Problem(where, f"default {f.default!r} is not of type {f.type!r}"))


def _check_refs(
    where: str, template: Any, fields: dict[str, StateField], out: list[Problem]
) -> None:
    for ref in references(template):
        if ref.path is None:
            out.append(
                Problem(
                    where,
                    f"{{{{{ref.text}}}}} is not a reference: write {{{{state.field}}}} or "
                    f"{{{{input.field}}}}",
                )
            )
        else:
            _check_path(where, ref.path, fields, out)
    for opening in unclosed(template):
        out.append(
            Problem(where, f"{opening!r} opens a reference that is never closed: end it with }}}}")
        )


def _check_path(where: str, path: Path, fields: dict[str, StateField], out: list[Problem]) -> None:
    first = path.steps[0] if path.steps else None
    if not isinstance(first, str) or first not in fields:
        hint = _close(str(first), fields) if isinstance(first, str) else ""
        known = ", ".join(fields) or "none"
        out.append(
            Problem(
                where,
                f"{path} refers to unknown state field {first!r}{hint}; declare it in "
                f"'state' (fields: {known})",
            )
        )


def _check_node(
    n: Node, fields: dict[str, StateField], tools: Collection[str] | None, out: list[Problem]
) -> None:
    where = f"node {n.id!r}"
    data = n.data
    target = n.output_field
    if target is not None:
        f = fields.get(target)
        if f is None:
            out.append(
                Problem(
                    f"{where} data.output_field",
                    f"{target!r} is not a state field{_close(target, fields)}: declare it in "
                    f"'state' or write to one of {', '.join(fields) or '(none declared)'}",
                )
            )
        else:
            _check_output(where, n, f, out)
    for key in ("prompt", "system", "url", "headers", "body", "args"):
        if key in data:
            _check_refs(f"{where} data.{key}", data[key], fields, out)
    if n.type == "llm":
        _check_model(where, str(data["model"]), out)
    elif n.type == "tool":
        url = str(data.get("url", ""))
        if url and not url.startswith(("{{", "http://", "https://")):
            out.append(Problem(f"{where} data.url", f"{url!r} is not an http:// or https:// URL"))
        name = data.get("function")
        if isinstance(name, str) and tools is not None and name not in tools:
            out.append(
                Problem(
                    f"{where} data.function",
                    f"no Python tool {name!r} is registered{_close(name, tools)}; registered: "
                    f"{', '.join(sorted(tools)) or 'none'}",
                )
            )
    elif n.type == "condition":
        for i, rule in enumerate(data["rules"]):
            rwhere = f"{where} rule {i + 1} ({rule['label']!r})"
            try:
                tree = parse(rule["when"])
            except ExpressionError as e:
                shown = _excerpt(rule["when"])
                out.append(Problem(rwhere, f"condition {shown} does not parse: {e}"))
                continue
            for path in paths(tree):
                _check_path(rwhere, path, fields, out)
    elif n.type == "human":
        for name, count in Counter(f["name"] for f in data["fields"]).items():
            if count > 1:
                out.append(Problem(f"{where} data.fields", f"field {name!r} is listed twice"))


def _check_output(where: str, n: Node, f: StateField, out: list[Problem]) -> None:
    made = produces(n)
    if made is None or f.how == "append":
        return
    ok = {
        "replace": made == f.type or (made == "integer" and f.type == "number"),
        "merge": made == "object",
        "add": made in ("number", "integer"),
    }[f.how]
    if not ok:
        what = {"string": "text", "object": "an object", "list": "a list"}.get(made, made)
        out.append(
            Problem(
                f"{where} data.output_field",
                f"the node produces {what}, but state field {f.name!r} is {f.type!r} with "
                f"reducer {f.how!r}: write to a {made} field (or a list with reducer 'append')",
            )
        )


def _check_model(where: str, model: str, out: list[Problem]) -> None:
    prefix, colon, _ = model.partition(":")
    if colon and prefix not in PROVIDERS:
        out.append(
            Problem(
                f"{where} data.model",
                f"unknown provider {prefix!r}{_close(prefix, PROVIDERS)} in {model!r}; known "
                f"providers: {', '.join(PROVIDERS)}",
            )
        )
        return
    try:
        _, provider = parse_model(model)
    except (UnsupportedModelError, UnknownProviderError) as e:
        first = str(e).splitlines()[0]
        out.append(
            Problem(f"{where} data.model", f"{first} Write it as 'provider:model' (e.g. mock:m).")
        )
        return
    if provider not in PROVIDERS:
        close = _close(provider, PROVIDERS)
        out.append(
            Problem(
                f"{where} data.model",
                f"unknown provider {provider!r}{close}; known: {', '.join(PROVIDERS)}",
            )
        )


def _check_edges(doc: Document, node_ids: set[str], out: list[Problem]) -> None:
    conditions = {n.id: n for n in doc.nodes if n.type == "condition"}
    seen: set[tuple[str, str, str | None]] = set()
    for e in doc.edges:
        where = f"edge {e.id!r}"
        if e.source == END:
            out.append(Problem(where, "'end' cannot be a source: end the branch there instead"))
        elif e.source != START and e.source not in node_ids:
            out.append(
                Problem(where, f"source {e.source!r} is not a node{_close(e.source, node_ids)}")
            )
        if e.target == START:
            out.append(Problem(where, "'start' cannot be a target: a run begins there once"))
        elif e.target != END and e.target not in node_ids:
            out.append(
                Problem(where, f"target {e.target!r} is not a node{_close(e.target, node_ids)}")
            )
        key = (e.source, e.target, e.label)
        if key in seen:
            out.append(Problem(where, f"repeats the edge {e.source!r} -> {e.target!r}: remove it"))
        seen.add(key)
        cond = conditions.get(e.source)
        if cond is None:
            if e.label is not None:
                out.append(
                    Problem(
                        where,
                        f"has label {e.label!r} but its source {e.source!r} is not a condition "
                        f"node: remove the label, or route through a condition node",
                    )
                )
            continue
        labels = [r["label"] for r in cond.data["rules"]] + [cond.data["default"]]
        if e.label is None:
            out.append(
                Problem(
                    where,
                    f"leaves condition {cond.id!r} without a label: give it one of "
                    f"{', '.join(repr(x) for x in labels)}",
                )
            )
        elif e.label not in labels:
            out.append(
                Problem(
                    where,
                    f"label {e.label!r} is produced by no rule of condition {cond.id!r}"
                    f"{_close(e.label, labels)}; its labels: {', '.join(repr(x) for x in labels)}",
                )
            )
    for cond in conditions.values():
        taken = {e.label for e in doc.edges if e.source == cond.id}
        for label in dict.fromkeys(
            [r["label"] for r in cond.data["rules"]] + [cond.data["default"]]
        ):
            if label not in taken:
                out.append(
                    Problem(
                        f"node {cond.id!r}",
                        f"label {label!r} has no outgoing edge: connect it (to 'end' to stop "
                        f"there)",
                    )
                )
    if not any(e.source == START for e in doc.edges):
        out.append(Problem("the document", "no edge leaves 'start': connect start to a node"))


def _check_graph(
    doc: Document, found: Shape, fields: dict[str, StateField], out: list[Problem]
) -> None:
    reached = found.reach([START])
    for n in doc.nodes:
        if n.id not in reached:
            out.append(
                Problem(
                    f"node {n.id!r}",
                    "is unreachable from start: connect an edge to it, or delete it",
                )
            )
    loop = found.loop_without_condition()
    if loop is not None:
        out.append(
            Problem(
                f"node {loop[0]!r}",
                f"is on a loop with no condition ({describe_path(loop)}): a loop must pass a "
                f"condition node that can leave it",
            )
        )
    writes = {n.id: n.output_field for n in doc.nodes if n.output_field in fields}
    for pair, fork in sorted(found.parallel.items(), key=lambda kv: sorted(kv[0])):
        a, b = sorted(pair)
        target = writes.get(a)
        if target is None or target != writes.get(b) or fields[target].how != "replace":
            continue
        out.append(
            Problem(
                f"nodes {a!r} and {b!r}",
                f"run in parallel branches (from {fork.node!r}) and both write {target!r}, a "
                f"'replace' field: give it reducer 'append' or 'merge', or write to different "
                f"fields",
            )
        )
    for node, (fork, pred) in sorted(found.reentries.items()):
        out.append(
            Problem(
                f"node {node!r}",
                f"is reached from {pred!r} inside a parallel branch of {fork.node!r} and also "
                f"from the other branch, so it would run twice, once beside that branch: "
                f"connect it from one branch only, join the branches before it, or loop back "
                f"to {fork.node!r} rather than into a branch",
            )
        )
    for node, sources in sorted(found.conditional.items()):
        out.append(
            Problem(
                f"node {node!r}",
                f"joins parallel branches, but a condition decides whether "
                f"{', '.join(repr(s) for s in sources)} runs, so the join could wait forever: "
                f"join before the condition, or give each outcome its own successor",
            )
        )
    for node, bypasses in sorted(found.bypassed.items()):
        joined = ", ".join(repr(s) for s in found.joins[node])
        for source, forked_at in bypasses:
            out.append(
                Problem(
                    f"node {node!r}",
                    f"joins parallel branches ({joined}), but {source!r} is also reached on "
                    f"a path that does not start its sibling branches together with it (they "
                    f"fork at {forked_at!r}; another condition label or an edge from elsewhere "
                    f"leads to {source!r} alone), so the join could wait forever: send every "
                    f"path into all the joined branches, or give that path its own successor",
                )
            )
