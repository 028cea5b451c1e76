"""Workflow documents on the ``superstep`` command line: the commands (see
`superstep_core.cli_document` for the usage, which wires them in and imports this module only
when a document command runs).

Must never import compat.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.live import Live
from rich.table import Table

from superstep_core.cli_db import CliDatabase, database_error
from superstep_core.cli_support import (
    DEFAULT_DB,
    UsageError,
    load_target,
    parse_json,
    summarise,
    to_json,
)
from superstep_core.document import (
    Document,
    DocumentError,
    DocumentRunner,
    JsonLines,
    RunEvent,
    RunNotFoundError,
    RunResult,
    VersionNotFoundError,
    compile_document,
    document_json,
    load_document,
    workflow_schema,
)
from superstep_core.document.diagram import document_dot, document_mermaid
from superstep_core.document.versions import (
    PostgresVersionStore,
    SqliteVersionStore,
    VersionStore,
)
from superstep_core.host.durable import DurableRunner
from superstep_core.plan import is_plan_document

__all__ = [
    "cmd_schema",
    "cmd_workflow_save",
    "cmd_workflow_show",
    "cmd_workflow_versions",
    "graph_json_target",
    "replay_document_thread",
    "resume_document_thread",
    "run_json_target",
]

_DOCUMENT_KEYS = frozenset({"name", "state", "nodes", "edges"})
_FAILED = ("error", "expired", "timeout", "cancelled")


def _load(path: str, command: str = "superstep run") -> Document:
    """The workflow document at ``path``; a `UsageError` naming what is wrong with it (a plan
    given to ``command``, which takes workflow documents only, is named as a plan)."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"no file {path!r}")
    try:
        raw = json.loads(file.read_bytes())
    except ValueError as e:
        raise UsageError(f"{path}: not valid JSON: {e}") from e
    if is_plan_document(raw):
        raise UsageError(
            f"{path} is a plan document, not a workflow document (an object with name, "
            f"state, nodes and edges): {command} takes workflow documents only"
        )
    if not isinstance(raw, dict) or not raw.keys() >= _DOCUMENT_KEYS:
        keys = ", ".join(sorted(raw)) if isinstance(raw, dict) else type(raw).__name__
        raise UsageError(
            f'{path} is not a plan document (an object with only "steps"), nor a workflow '
            f"document (an object with name, state, nodes and edges); it has {keys}"
        )
    try:
        return load_document(file)
    except DocumentError as e:
        raise UsageError(f"{path}: {e}") from e


# --- stores --------------------------------------------------------------------------------


def open_versions(db: CliDatabase) -> VersionStore:
    """The version store beside the checkpoints of ``db`` (the same SQLite file or
    PostgreSQL database); read-only when ``db`` is."""
    try:
        if db.postgres:
            return PostgresVersionStore(db.where)
        return SqliteVersionStore(db.where, read_only=db.read_only)
    except Exception as e:
        error = database_error(e, db)
        if error is None:
            raise
        raise error from None


def _tools(spec: str | None) -> dict[str, Callable[..., Any]]:
    if spec is None:
        return {}
    obj, _ = load_target(spec)
    if not isinstance(obj, Mapping) or not all(callable(f) for f in obj.values()):
        raise UsageError(f"--tools {spec!r} must name a dict of tool name -> function")
    return dict(obj)


# --- showing a run -------------------------------------------------------------------------


class _LiveView:
    """The terminal view: one row per node (state, iteration, latest output)."""

    def __init__(self, console: Console) -> None:
        self.rows: dict[str, list[str]] = {}
        self.live = Live(self._table(), console=console, refresh_per_second=8, transient=False)
        self.lock = threading.Lock()

    def _table(self) -> Table:
        table = Table(box=None, show_header=True, header_style="bold")
        for column in ("node", "state", "pass", "latest"):
            table.add_column(column, overflow="ellipsis", no_wrap=column != "latest")
        for node, (state, iteration, latest) in self.rows.items():
            table.add_row(node, state, iteration, latest[-80:])
        return table

    def __call__(self, event: RunEvent) -> None:
        with self.lock:
            node = event.node_id
            if node is not None:
                row = self.rows.setdefault(node, ["", "", ""])
                row[1] = str(event.iteration or "")
                if event.type == "node_started":
                    row[0], row[2] = "[yellow]running[/yellow]", ""
                elif event.type == "node_token":
                    row[2] += str(event.payload.get("text", ""))
                elif event.type == "node_finished":
                    reused = " (reused)" if event.payload.get("reused") else ""
                    row[0] = f"[green]done{reused}[/green]"
                    row[2] = summarise(event.payload.get("value"), 80)
                elif event.type == "run_waiting":
                    row[0] = "[cyan]waiting[/cyan]"
                elif event.type == "error":
                    row[0] = (
                        "[red]retrying[/red]"
                        if event.payload.get("retrying")
                        else "[red]failed[/red]"
                    )
                    row[2] = str(event.payload.get("message", ""))
            self.live.update(self._table())


def _lines(console: Console) -> Callable[[RunEvent], None]:
    def show(event: RunEvent) -> None:
        if event.type in ("node_token", "run_started", "run_finished"):
            return
        where = f"{event.node_id}#{event.iteration}" if event.node_id else ""
        detail = ""
        if event.type == "node_finished":
            detail = summarise(event.payload.get("value"), 80)
            detail += " (reused)" if event.payload.get("reused") else ""
        elif event.type == "error":
            detail = str(event.payload.get("message", ""))
        console.print(f"{event.type:<14} {where} {detail}".rstrip(), highlight=False, markup=False)

    return show


@contextmanager
def _watching(args: argparse.Namespace, console: Console) -> Iterator[Callable[[RunEvent], None]]:
    if args.events:
        yield JsonLines(sys.stdout)
    elif console.is_terminal:
        view = _LiveView(console)
        with view.live:
            yield view
    else:
        yield _lines(console)


@contextmanager
def _cancellable() -> Iterator[threading.Event]:
    """Ctrl-C sets the event (the run stops between supersteps); a second one interrupts."""
    cancel = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield cancel
        return

    def stop(signum: int, frame: Any) -> None:
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()

    previous = signal.signal(signal.SIGINT, stop)
    try:
        yield cancel
    finally:
        signal.signal(signal.SIGINT, previous)


def _after_failure(result: RunResult, node_id: str, db: str) -> str:
    """What to do about a failed run: ``resume --retry`` once the cause is fixed when the
    failure was a model or tool call (the only ones a retry performs again); any other node
    fails the same way on the same state, so `resume --retry` refuses it."""
    try:
        node_type: str | None = result.version.document.node(node_id).type
    except KeyError:
        node_type = None
    if node_type in ("llm", "tool"):
        return (
            f"the run keeps its last checkpoint; once the cause is fixed: superstep resume "
            f"--thread {result.run_id}{db} --retry"
        )
    kind = f"{node_type} node" if node_type else "node"
    return (
        f"the run keeps its last checkpoint; {kind} {node_id!r} fails the same way on the "
        f"same state (only a failed model or tool call can be retried): start a new run"
    )


def _report(result: RunResult, args: argparse.Namespace, console: Console) -> int:
    version = result.version
    console.print(
        f"[bold]{version.name}[/bold] v{version.seq} run {result.run_id}: {result.status} "
        f"after {result.step} supersteps",
        highlight=False,
        soft_wrap=True,
    )
    if not args.events:
        for name, value in result.values.items():
            console.print(f"  {name}: {summarise(value)}", highlight=False, markup=False)
    db = f" --db {args.db}" if args.db else ""
    for ask in result.waiting:
        fields = ", ".join(f"{f['name']}: {f['type']}" for f in ask.fields)
        console.print(
            f"waiting at {ask.node!r}: {ask.prompt} ({fields}); answer with: superstep resume "
            f"--thread {result.run_id}{db} --value JSON",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    if result.status in ("paused", "cancelled", "timeout"):
        console.print(
            f"continue with: superstep resume --thread {result.run_id}{db}",
            highlight=False,
            markup=False,
        )
    if result.error is not None:
        e = result.error
        console.print(
            f"error: node {e.node!r}: {e.error_type}: {e.message}",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        if result.status == "error":
            console.print(
                _after_failure(result, e.node, db), highlight=False, markup=False, soft_wrap=True
            )
    if args.json:
        sys.stdout.buffer.write(to_json(_as_json(result)) + b"\n")
    return 1 if result.status in _FAILED else 0


def _as_json(result: RunResult) -> dict[str, Any]:
    return {
        "run_id": result.run_id,
        "status": result.status,
        "step": result.step,
        "values": result.values,
        "document": result.version.name,
        "version": result.version.seq,
        "content_hash": result.version.content_hash,
        "error": None if result.error is None else vars(result.error),
        "waiting": [
            {"node": w.node, "prompt": w.prompt, "fields": list(w.fields), "timeout": w.timeout}
            for w in result.waiting
        ],
    }


# --- commands ------------------------------------------------------------------------------


def run_json_target(args: argparse.Namespace, console: Console) -> int:
    """``superstep run flow.json``: a new run (``--thread`` or a fresh id) under its lease."""
    doc = _load(args.target)
    given = parse_json(args.input, "--input")
    run_id = args.thread or f"run-{uuid.uuid4().hex[:12]}"
    with CliDatabase(args.db) as db, db.hold(run_id):
        versions = open_versions(db)
        try:
            with _watching(args, console) as sink, _cancellable() as cancel:
                runner = _runner(db, versions, args, sink)
                try:
                    result = runner.start(
                        doc,
                        given,
                        run_id=run_id,
                        step=args.step,
                        deadline=args.timeout,
                        cancel=cancel,
                    )
                except DocumentError as e:
                    raise UsageError(str(e)) from e
                except ValueError as e:  # the run id is taken
                    raise UsageError(str(e)) from e
        finally:
            versions.close()
    return _report(result, args, console)


def _runner(
    db: CliDatabase, versions: VersionStore, args: argparse.Namespace, sink: Any
) -> DocumentRunner:
    return DocumentRunner(
        db.saver(),
        versions,
        tools=_tools(args.tools),
        on_event=sink,
        max_workers=args.workers,
        leases=db.leases(),
        owner=db.owner,
    )


def resume_document_thread(args: argparse.Namespace, console: Console, db: CliDatabase) -> int:
    """``superstep resume --thread ID`` of a document run (its lease held by the caller)."""
    answer = parse_json(args.value, "--value") if args.value is not None else None
    versions = open_versions(db)
    try:
        with _watching(args, console) as sink, _cancellable() as cancel:
            runner = _runner(db, versions, args, sink)
            options: dict[str, Any] = {}
            if args.value is not None:
                options["answer"] = answer
            try:
                result = runner.resume(
                    args.thread,
                    node=args.node,
                    step=args.step,
                    retry=args.retry,
                    deadline=args.timeout,
                    cancel=cancel,
                    **options,
                )
            except (DocumentError, RunNotFoundError, VersionNotFoundError) as e:
                raise UsageError(str(e)) from e
    finally:
        versions.close()
    return _report(result, args, console)


def replay_document_thread(args: argparse.Namespace, db: CliDatabase) -> int:
    """``superstep replay --thread ID`` of a document run, on the version it recorded."""
    versions = open_versions(db)
    try:
        runner = DocumentRunner(db.saver(), versions)
        try:
            graph = runner.compile(runner.version_of(args.thread).document).graph
        except (DocumentError, RunNotFoundError, VersionNotFoundError) as e:
            raise UsageError(str(e)) from e
        report = DurableRunner(db.saver()).replay(graph, args.thread)
    finally:
        versions.close()
    if report.matched:
        sys.stdout.write(
            f"run {args.thread!r}: replayed {report.inputs} inputs; all {report.checkpoints} "
            f"checkpoints matched\n"
        )
        return 0
    mismatches = "; ".join(report.mismatches[:5])
    sys.stdout.write(f"run {args.thread!r}: replay did NOT match: {mismatches}\n")
    return 1


def graph_json_target(args: argparse.Namespace) -> int:
    """``superstep graph flow.json``: the document as a diagram."""
    doc = _load(args.target, "superstep graph")
    try:
        compile_document(doc)
    except DocumentError as e:
        raise UsageError(f"{args.target}: {e}") from e
    text = document_mermaid(doc) if args.format == "mermaid" else document_dot(doc)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def cmd_schema(args: argparse.Namespace, console: Console) -> int:
    sys.stdout.write(json.dumps(workflow_schema(), indent=2) + "\n")
    return 0


def cmd_workflow_save(args: argparse.Namespace, console: Console) -> int:
    doc = _load(args.file, "superstep workflow save")
    try:
        compile_document(doc)
    except DocumentError as e:
        raise UsageError(f"{args.file}: {e}") from e
    with CliDatabase(args.db) as db:
        versions = open_versions(db)
        try:
            version, created = versions.save(doc)
        finally:
            versions.close()
    what = "saved as" if created else "unchanged: still"
    sys.stdout.write(f"{version.name}: {what} version {version.seq} ({version.content_hash})\n")
    return 0


def cmd_workflow_versions(args: argparse.Namespace, console: Console) -> int:
    with CliDatabase(args.db, read_only=True) as db:
        if not db.exists:
            raise UsageError(f"no saved workflows in {db.shown}")
        versions = open_versions(db)
    try:
        names = [args.name] if args.name else versions.names()
        rows: list[dict[str, Any]] = [
            {
                "name": v.name,
                "version": v.seq,
                "content_hash": v.content_hash,
                "created_at": v.created_at,
            }
            for name in names
            for v in versions.versions(name)
        ]
    finally:
        versions.close()
    if args.name and not rows:
        raise UsageError(f"no saved workflow {args.name!r} in {args.db or DEFAULT_DB}")
    if args.json:
        sys.stdout.buffer.write(to_json(rows) + b"\n")
        return 0
    for row in rows:
        sys.stdout.write(
            f"{row['name']}  v{row['version']}  {row['content_hash'][:19]}  {row['created_at']}\n"
        )
    return 0


def cmd_workflow_show(args: argparse.Namespace, console: Console) -> int:
    with CliDatabase(args.db, read_only=True) as db:
        if not db.exists:
            raise UsageError(f"no saved workflow {args.name!r} in {db.shown}")
        versions = open_versions(db)
    try:
        version = versions.get(args.name, args.version)
    except VersionNotFoundError as e:
        raise UsageError(str(e)) from e
    finally:
        versions.close()
    sys.stdout.write(document_json(version.document))
    return 0
