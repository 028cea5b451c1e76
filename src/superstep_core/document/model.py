"""The workflow document as values, and its JSON form: `load_document`, `dump_document`,
`document_json`, `content_hash`.

    doc = load_document(Path("flow.json"))      # parse + check against the JSON Schema
    assert load_document(document_json(doc)) == doc

A document keeps exactly what its JSON says: optional keys that were absent stay absent when
saved (a field without ``reducer`` is saved without one, though it reduces by ``replace``),
node ``data`` and ``ui`` objects are kept as the JSON values they are, so load then save gives
the same JSON value back. Key order is the model's own (saving is canonical).

Must never import the runtime, the host, the llm layer or compat.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from superstep_core.document.errors import DocumentError, Problem
from superstep_core.document.schema import schema_problems

__all__ = [
    "END",
    "START",
    "UNSET",
    "Document",
    "Edge",
    "Node",
    "Position",
    "StateField",
    "content_hash",
    "document_json",
    "dump_document",
    "load_document",
    "parse_json",
]

START: Final = "start"
"""The implicit node every run begins at (an edge source only)."""
END: Final = "end"
"""The implicit node a branch may end at (an edge target only)."""


class _Unset:
    _instance: _Unset | None = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final[Any] = _Unset()
"""An optional key the JSON did not have (distinct from ``null``)."""


@dataclass(frozen=True)
class StateField:
    """A typed state field. ``reducer`` is ``None`` when the JSON has none (it then
    reduces by ``replace``); ``default`` is `UNSET` when absent."""

    name: str
    type: str
    reducer: str | None = None
    default: Any = UNSET
    description: str | None = None

    @property
    def how(self) -> str:
        """The reducer in force: ``reducer`` or ``"replace"``."""
        return self.reducer or "replace"


@dataclass(frozen=True)
class Position:
    """Where an editor drew a node (its units)."""

    x: float
    y: float


@dataclass(frozen=True)
class Node:
    """A node: ``id``, ``type`` (``llm``, ``tool``, ``condition``, ``human``), its ``data``
    (the type's settings, as JSON: read it, never change it), ``position`` and ``ui`` as the
    editor left them."""

    id: str
    type: str
    data: Mapping[str, Any]
    position: Position | None = None
    ui: Mapping[str, Any] | None = None

    @property
    def label(self) -> str:
        """The editor's label, else the id."""
        return str(self.data.get("label") or self.id)

    @property
    def output_field(self) -> str | None:
        value = self.data.get("output_field")
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Edge:
    """``source`` -> ``target`` (``start`` and ``end`` are the implicit endpoints); ``label``
    is required on the edges of a condition node (the rule label that takes them)."""

    id: str
    source: str
    target: str
    label: str | None = None
    ui: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Document:
    """A workflow document (see the module docstring). Build one with `load_document`."""

    name: str
    state: tuple[StateField, ...]
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    description: str | None = None
    ui: Mapping[str, Any] | None = None

    def node(self, node_id: str) -> Node:
        """The node ``node_id``. Raises ``KeyError``."""
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def state_field(self, name: str) -> StateField | None:
        """The state field ``name``, or ``None``."""
        return next((f for f in self.state if f.name == name), None)

    @property
    def content_hash(self) -> str:
        """``sha256:<hex>`` of the canonical JSON (see `content_hash`)."""
        return content_hash(self)


# --- JSON ------------------------------------------------------------------------------------


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def parse_json(text: str | bytes, what: str = "the document") -> Any:
    """JSON text as a value; raises `DocumentError` naming the line and column of bad JSON
    or a key given twice in one object."""
    try:
        return json.loads(text, object_pairs_hook=_pairs)
    except json.JSONDecodeError as e:
        raise DocumentError(
            [Problem(what, f"is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}")]
        ) from e
    except ValueError as e:
        raise DocumentError([Problem(what, str(e))]) from e


def load_document(source: str | bytes | Path | Mapping[str, Any]) -> Document:
    """A document from JSON text, a file path (a `Path`, or a string that does not start
    with ``{``) or a parsed mapping, checked against the JSON Schema (`workflow_schema`).
    Raises `DocumentError` listing every problem; for the checks that need the whole
    document, call `validate_document`."""
    if isinstance(source, str) and not source.lstrip().startswith("{"):
        source = Path(source)
    if isinstance(source, Path):
        try:
            raw: Any = parse_json(source.read_bytes(), str(source))
        except OSError as e:
            raise DocumentError([Problem(str(source), f"cannot be read: {e.strerror}")]) from e
    elif isinstance(source, str | bytes):
        raw = parse_json(source)
    else:
        raw = source
    problems = schema_problems(raw)
    if problems:
        name = raw.get("name") if isinstance(raw, Mapping) else None
        raise DocumentError(problems, name if isinstance(name, str) else "")
    return _from_json(raw)


def _from_json(raw: Mapping[str, Any]) -> Document:
    state = tuple(
        StateField(
            f["name"],
            f["type"],
            f.get("reducer"),
            f.get("default", UNSET),
            f.get("description"),
        )
        for f in raw["state"]
    )
    nodes = tuple(
        Node(
            n["id"],
            n["type"],
            n["data"],
            Position(n["position"]["x"], n["position"]["y"]) if "position" in n else None,
            n.get("ui"),
        )
        for n in raw["nodes"]
    )
    edges = tuple(
        Edge(e["id"], e["source"], e["target"], e.get("label"), e.get("ui")) for e in raw["edges"]
    )
    return Document(raw["name"], state, nodes, edges, raw.get("description"), raw.get("ui"))


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not None and value is not UNSET:
        out[key] = value


def dump_document(doc: Document) -> dict[str, Any]:
    """The JSON value of ``doc`` (what `load_document` reads back to an equal document)."""
    out: dict[str, Any] = {"name": doc.name}
    _put(out, "description", doc.description)
    fields = []
    for f in doc.state:
        item: dict[str, Any] = {"name": f.name, "type": f.type}
        _put(item, "reducer", f.reducer)
        if f.default is not UNSET:
            item["default"] = f.default
        _put(item, "description", f.description)
        fields.append(item)
    out["state"] = fields
    nodes = []
    for n in doc.nodes:
        node: dict[str, Any] = {"id": n.id, "type": n.type}
        if n.position is not None:
            node["position"] = {"x": n.position.x, "y": n.position.y}
        node["data"] = n.data
        _put(node, "ui", n.ui)
        nodes.append(node)
    out["nodes"] = nodes
    edges = []
    for e in doc.edges:
        edge: dict[str, Any] = {"id": e.id, "source": e.source, "target": e.target}
        _put(edge, "label", e.label)
        _put(edge, "ui", e.ui)
        edges.append(edge)
    out["edges"] = edges
    _put(out, "ui", doc.ui)
    return out


def document_json(doc: Document, *, indent: int | None = 2) -> str:
    """``doc`` as JSON text (UTF-8 characters kept, two-space indent by default)."""
    return json.dumps(dump_document(doc), indent=indent, ensure_ascii=False) + "\n"


def content_hash(doc: Document) -> str:
    """``sha256:<hex>`` of the canonical JSON of ``doc`` (sorted keys, no spaces, UTF-8):
    equal documents have equal hashes whatever their key order or formatting."""
    canonical = json.dumps(
        dump_document(doc), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
