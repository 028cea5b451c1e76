"""A document pipeline with no LLM anywhere: index every Python file of a directory.

    receive -> parse (one per document) -> validate + index (same superstep) -> join all -> store
                                                   \\-- a failed validation --> reject

Per document, `parse` is spawned in its own lineage, so the join of `validate` and `index`
waits per document. `validate` refuses files that are empty or not valid Python; the join's
failure policy routes those to `reject`. Reading files (`read_file`), listing the directory
(`list_documents`) and writing the SQLite index (`store_document`, `query_index`) are effects
that the host performs; every node is a pure reducer. When the last document is stored or
rejected, `report` (a coalescing node: one activation however many documents finish together)
asks the index for the documents that use the query term most.

Run it:  superstep run examples/pipeline.py:graph [--input '{"directory": "...", "query": "..."}']
Input keys: ``directory`` (default: the running Python's standard library), ``index``
(SQLite file, default ``.superstep/pipeline-<dir>-<hash>.db``, one per directory),
``query`` (default ``"thread"``), ``max_bytes`` (default 1,000,000: larger files are
rejected).
"""

from __future__ import annotations

import ast
import hashlib
import io
import operator
import re
import sqlite3
import sysconfig
import threading
import tokenize
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from superstep_core import (
    Activate,
    Activated,
    Append,
    BecomeInactive,
    CompleteActivation,
    Effect,
    EffectCompleted,
    EffectContext,
    Event,
    FailActivation,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    Reducer,
    RemainActive,
    RouteFailuresTo,
    Spawn,
)

DEFAULT_QUERY = "thread"
TERM = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
FUNCTION = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]", re.MULTILINE)
CLASS = re.compile(r"^[ \t]*class[ \t]", re.MULTILINE)


def default_index(directory: str) -> str:
    """Each directory gets its own index file, so runs on different inputs never mix."""
    digest = hashlib.sha1(str(Path(directory).resolve()).encode()).hexdigest()[:10]
    return f".superstep/pipeline-{Path(directory).name or 'root'}-{digest}.db"


def default_input() -> dict[str, Any]:
    """The input `superstep run` uses when none is given: the standard library."""
    return {"directory": sysconfig.get_paths()["stdlib"], "query": DEFAULT_QUERY}


# --- nodes (pure reducers) ---------------------------------------------------------------


def receive(ctx: NodeContext, event: Event) -> Reaction:
    if isinstance(event, Activated):
        job = {**default_input(), **(event.payload or {})}
        job.setdefault("index", default_index(job["directory"]))
        job.setdefault("max_bytes", 1_000_000)
        ctx.memory["job"] = job
        return Reaction(
            updates={"job": job},
            effects=[Effect("list_documents", job["directory"])],
            disposition=RemainActive(),
        )
    assert isinstance(event, EffectCompleted)
    if event.error is not None:
        return Reaction(disposition=FailActivation.permanent(event.error.message, "InputError"))
    paths: list[str] = event.result
    job = ctx.memory["job"]
    control: list[Spawn | Activate] = [
        Spawn("parse", {"path": p, "max_bytes": job["max_bytes"]}) for p in paths
    ]
    if not paths:
        control.append(Activate("report"))  # nothing to wait for: report the empty index
    return Reaction(
        updates={"found": len(paths)}, control=control, disposition=CompleteActivation(len(paths))
    )


def parse(ctx: NodeContext, event: Event) -> Reaction:
    if isinstance(event, Activated):
        ctx.memory["path"] = event.payload["path"]
        return Reaction(effects=[Effect("read_file", event.payload)], disposition=RemainActive())
    assert isinstance(event, EffectCompleted)
    path = ctx.memory["path"]
    if event.error is not None:
        return Reaction(
            updates={"rejected": (path, f"unreadable: {event.error.message}"), "finished": 1},
            disposition=BecomeInactive(),
        )
    return Reaction(
        updates={"parsed": 1}, disposition=CompleteActivation({"path": path, "text": event.result})
    )


def validate(ctx: NodeContext, event: Event) -> Reaction:
    doc = event.payload if isinstance(event, Activated) else None
    assert doc is not None
    if not doc["text"].strip():
        return Reaction(disposition=FailActivation.permanent("empty document", "Rejected"))
    try:
        ast.parse(doc["text"], filename=doc["path"])
    except SyntaxError as e:
        reason = f"not valid Python: {e.msg} (line {e.lineno})"
        return Reaction(disposition=FailActivation.permanent(reason, "Rejected"))
    functions = len(FUNCTION.findall(doc["text"]))
    classes = len(CLASS.findall(doc["text"]))
    lines = doc["text"].count("\n") + 1
    return Reaction(
        disposition=CompleteActivation(
            {"path": doc["path"], "lines": lines, "functions": functions, "classes": classes}
        )
    )


def index(ctx: NodeContext, event: Event) -> Reaction:
    doc = event.payload if isinstance(event, Activated) else None
    assert doc is not None
    terms = Counter(t.lower() for t in TERM.findall(doc["text"]))
    return Reaction(disposition=CompleteActivation({"terms": dict(terms)}))


def store(ctx: NodeContext, event: Event) -> Reaction:
    if isinstance(event, Activated):
        meta, terms = event.payload["validate"], event.payload["index"]
        record = {**meta, "terms": terms["terms"], "index": ctx.state["job"]["index"]}
        return Reaction(effects=[Effect("store_document", record)], disposition=RemainActive())
    assert isinstance(event, EffectCompleted)
    if event.error is not None:
        return Reaction(disposition=FailActivation.retryable(event.error.message, event.error.type))
    return Reaction(updates={"indexed": 1, "finished": 1}, disposition=CompleteActivation(None))


def reject(ctx: NodeContext, event: Event) -> Reaction:
    assert isinstance(event, Activated)
    failure = event.payload  # a JoinFailure; its payload is the document validate refused
    return Reaction(
        updates={"rejected": (failure.payload["path"], failure.message), "finished": 1},
        disposition=CompleteActivation(None),
    )


def all_finished(state: Mapping[str, Any], output: Any) -> str | None:
    """Route to `report` once every document found was stored or rejected."""
    return "report" if state.get("finished", 0) >= state.get("found", 0) else None


def report(ctx: NodeContext, event: Event) -> Reaction:
    if isinstance(event, Activated):
        job = ctx.state["job"]
        request = {"index": job["index"], "term": job["query"].lower()}
        return Reaction(effects=[Effect("query_index", request)], disposition=RemainActive())
    assert isinstance(event, EffectCompleted)
    if event.error is not None:
        return Reaction(disposition=FailActivation.permanent(event.error.message, event.error.type))
    return Reaction(updates={"top": event.result}, disposition=CompleteActivation(event.result))


# --- the graph ---------------------------------------------------------------------------------

graph = (
    Graph("pipeline", version="1")
    .with_channels(
        job=LastValue(),
        found=LastValue(),
        parsed=Reducer(operator.add, int),
        indexed=Reducer(operator.add, int),
        finished=Reducer(operator.add, int),
        rejected=Append(),
        top=LastValue(),
    )
    .add_node("receive", receive, writes=["job", "found"], may_activate=["parse", "report"])
    .add_node("parse", parse, writes=["parsed", "rejected", "finished"])
    .add_node("validate", validate, writes=[])
    .add_node("index", index, writes=[])
    .add_node("store", store, writes=["indexed", "finished"])
    .add_node("reject", reject, writes=["rejected", "finished"])
    .add_node("report", report, writes=["top"], coalesce=True)
    .start_at("receive")
    .connect("parse", "validate")
    .connect("parse", "index")
    .join_all(
        "document_ready", ["validate", "index"], "store", on_failure=RouteFailuresTo("reject")
    )
    .branch("store", all_finished, ["report"])
    .branch("reject", all_finished, ["report"])
    .end_at("report")
    .compile()
)


# --- effect handlers (the only I/O) ------------------------------------------------------------


def list_documents(directory: str, ctx: EffectContext) -> list[str]:
    root = Path(directory)
    if not root.is_dir():
        raise NotADirectoryError(f"{directory!r} is not a directory")
    return sorted(str(p) for p in root.rglob("*.py") if "site-packages" not in p.parts)


def read_file(request: Mapping[str, Any], ctx: EffectContext) -> str:
    path = Path(request["path"])
    size = path.stat().st_size
    if size > request["max_bytes"]:
        raise ValueError(f"{size} bytes is over the limit of {request['max_bytes']}")
    data = path.read_bytes()
    # Decode as Python does: a coding cookie or a BOM names the encoding (PEP 263, 3120).
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding)


_db_lock = threading.Lock()
_connections: dict[str, sqlite3.Connection] = {}


def _connect(path: str) -> sqlite3.Connection:
    conn = _connections.get(path)
    if conn is None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(
            "CREATE TABLE IF NOT EXISTS documents (path TEXT PRIMARY KEY, lines INTEGER,"
            " functions INTEGER, classes INTEGER);"
            "CREATE TABLE IF NOT EXISTS postings (path TEXT, term TEXT, count INTEGER,"
            " PRIMARY KEY (path, term)) WITHOUT ROWID;"
        )
        _connections[path] = conn
    return conn


def store_document(record: Mapping[str, Any], ctx: EffectContext) -> int:
    """Upsert one document and its postings: performing it twice changes nothing."""
    with _db_lock:
        conn = _connect(record["index"])
        with conn:
            conn.execute(
                "INSERT OR REPLACE INTO documents VALUES (?, ?, ?, ?)",
                (record["path"], record["lines"], record["functions"], record["classes"]),
            )
            conn.execute("DELETE FROM postings WHERE path = ?", (record["path"],))
            conn.executemany(
                "INSERT INTO postings VALUES (?, ?, ?)",
                [(record["path"], t, c) for t, c in record["terms"].items()],
            )
    return len(record["terms"])


def query_index(request: Mapping[str, Any], ctx: EffectContext) -> list[list[Any]]:
    with _db_lock:
        conn = _connect(request["index"])
        rows = conn.execute(
            "SELECT path, count FROM postings WHERE term = ? ORDER BY count DESC, path LIMIT 5",
            (request["term"],),
        ).fetchall()
    return [[path, count] for path, count in rows]


def summary(values: Mapping[str, Any]) -> str:
    """The closing report `superstep run` prints: counts, each rejection, the query."""
    rejected = values.get("rejected", ())
    lines = [
        f"documents found {values.get('found', 0)}, parsed {values.get('parsed', 0)}, "
        f"indexed {values.get('indexed', 0)}, rejected {len(rejected)}"
    ]
    lines += [f"  rejected {path}: {reason}" for path, reason in rejected]
    job = values.get("job", {})
    lines.append(f"index {job.get('index')}: top documents for {job.get('query')!r}:")
    lines += [f"  {count:5d}  {path}" for path, count in values.get("top") or []]
    return "\n".join(lines)


handlers = {
    "list_documents": list_documents,
    "read_file": read_file,
    "store_document": store_document,
    "query_index": query_index,
}
