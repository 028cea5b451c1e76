"""LangGraph-style graphs on the ``superstep`` command line: ``run``, ``resume`` and
``history`` of a compiled graph that has ``invoke`` (the ``superstep_compat`` façade, loaded
through the ``superstep.plugins`` entry point).

``--thread`` is the graph's ``thread_id``. A graph compiled without a checkpointer is given a
``SqliteSaver`` on ``--db`` (default ``.superstep/superstep.db``; the façade's tables do not
collide with the engine's), so the thread is kept and ``resume``/``history`` find it; the
target is recorded in the checkpoints' metadata (``superstep_target``). A graph with its own
checkpointer keeps its threads there (``--db`` is then refused; an in-memory one is warned
about, as nothing outlives the process).

Must never import compat statically: the saver and ``Command`` are looked up by module name,
in the package the graph comes from (``langgraph`` is the façade when its plugin is loaded).
"""

from __future__ import annotations

import argparse
import importlib
import sqlite3
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, closing, contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from rich.console import Console

from superstep_core.cli_support import (
    DEFAULT_DB,
    UsageError,
    absolute_target,
    first_line,
    is_postgres,
    summarise,
    to_json,
)
from superstep_core.graph import CompiledGraph

__all__ = [
    "TARGET_KEY",
    "facade_history",
    "has_facade_thread",
    "is_facade",
    "lc_dot",
    "resume_facade",
    "run_facade",
    "thread_target",
]

TARGET_KEY = "superstep_target"
"""Checkpoint metadata key holding the target of a thread the CLI started."""

_PACKAGES = ("langgraph", "superstep_compat")


def is_facade(obj: Any) -> bool:
    """A LangGraph-style compiled graph: not an engine graph, but has ``invoke``."""
    return not isinstance(obj, CompiledGraph) and callable(getattr(obj, "invoke", None))


# --- run and resume --------------------------------------------------------------------------


def run_facade(
    obj: Any,
    payload: Any,
    args: argparse.Namespace,
    console: Console,
    *,
    target: str,
    resuming: bool = False,
) -> int:
    """Run a LangGraph-style compiled graph: ``invoke``, or ``stream`` with ``--stream``;
    with ``--thread``, as that thread (see the module docstring). ``resuming``: ``--db`` may
    be where the thread was found, not a saver to give the graph."""
    kwargs: dict[str, Any] = {}
    with ExitStack() as stack:
        if args.thread is not None:
            _persist(obj, args, console, stack, resuming=resuming)
            kwargs["config"] = {
                "configurable": {"thread_id": args.thread},
                "metadata": {TARGET_KEY: absolute_target(target)},
            }
        elif args.db is not None:
            raise UsageError("--db needs --thread ID (the thread to persist)")
        try:
            return _drive(obj, payload, args, console, kwargs)
        except UsageError:
            raise
        except Exception as e:  # the graph's own error, as one line (exit 1, not a traceback)
            print(f"superstep: error: {type(e).__name__}: {first_line(e)}", file=sys.stderr)
            return 1


def resume_facade(
    obj: Any, value: Any, args: argparse.Namespace, console: Console, *, target: str
) -> int:
    """Continue a LangGraph-style thread: answer its interrupt with ``--value``
    (``Command(resume=value)``), else ``invoke(None)``, which also runs a failed node again."""
    command = _resume_command(obj, value) if args.value is not None else None
    args.stream = None
    return run_facade(obj, command, args, console, target=target, resuming=True)


def _persist(
    obj: Any, args: argparse.Namespace, console: Console, stack: ExitStack, *, resuming: bool
) -> None:
    own = getattr(obj, "checkpointer", None)
    if own is not None and own is not False and own is not True:
        if args.db is not None and not resuming:
            raise UsageError(
                f"--db: this graph keeps its threads in its own checkpointer "
                f"({type(own).__name__}); drop --db, or compile it without a checkpointer"
            )
        if "Memory" in type(own).__name__:
            print(
                f"superstep: warning: thread {args.thread!r} is kept by the graph's "
                f"{type(own).__name__}, which is gone when this process ends: `superstep "
                f"resume` cannot continue it (compile the graph without a checkpointer to let "
                f"--thread keep it in {DEFAULT_DB}, or with a SqliteSaver)",
                file=sys.stderr,
            )
        return
    if is_postgres(args.db):
        raise UsageError(
            f"--db {args.db!r}: a LangGraph-style graph without a checkpointer is given a "
            f"SQLite saver; pass a file path, or compile the graph with a PostgresSaver"
        )
    where = args.db or DEFAULT_DB
    saver = stack.enter_context(_sqlite_saver(where, obj))
    try:
        obj.checkpointer = saver
    except AttributeError as e:
        raise UsageError(
            f"cannot give {type(obj).__name__} a checkpointer ({e}): compile it with one"
        ) from e
    console.print(
        f"[dim]thread {args.thread!r}: the graph has no checkpointer; keeping the thread in "
        f"{where} (SqliteSaver)[/dim]",
        highlight=False,
        soft_wrap=True,
    )


def _drive(
    obj: Any, payload: Any, args: argparse.Namespace, console: Console, kwargs: dict[str, Any]
) -> int:
    if args.stream:
        modes = [m.strip() for m in args.stream.split(",") if m.strip()]
        if not modes or not callable(getattr(obj, "stream", None)):
            raise UsageError("--stream needs MODE[,MODE] and a graph with stream()")
        mode: str | list[str] = modes[0] if len(modes) == 1 else modes
        for chunk in obj.stream(payload, stream_mode=mode, **kwargs):
            if args.json:
                sys.stdout.buffer.write(to_json(chunk) + b"\n")
                sys.stdout.flush()
            else:
                console.print(summarise(chunk, 2000), highlight=False, markup=False, soft_wrap=True)
        return 0
    result = obj.invoke(payload, **kwargs)
    if args.json:
        sys.stdout.buffer.write(to_json(result) + b"\n")
    else:
        console.print(summarise(result, 2000), highlight=False, markup=False, soft_wrap=True)
    return 0


def _resume_command(obj: Any, value: Any) -> Any:
    """``Command(resume=value)`` of the façade the target was written against."""
    return _facade_module(obj, "types").Command(resume=value)


def _facade_module(obj: Any, name: str) -> ModuleType:
    """Module ``name`` of the package ``obj`` comes from (else of the façade)."""
    root = type(obj).__module__.split(".")[0] if obj is not None else ""
    for package in (root, *_PACKAGES) if root in _PACKAGES else _PACKAGES:
        try:
            return importlib.import_module(f"{package}.{name}")
        except ImportError:
            continue
    raise UsageError(f"a LangGraph-style graph needs superstep_compat installed (for .{name})")


@contextmanager
def _sqlite_saver(where: str, obj: Any = None) -> Iterator[Any]:
    saver_class = _facade_module(obj, "checkpoint.sqlite").SqliteSaver
    try:
        Path(where).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(where, check_same_thread=False)
    except (OSError, sqlite3.Error) as e:
        raise UsageError(f"cannot open --db {where!r}: {type(e).__name__}: {e}") from e
    with closing(conn):
        yield saver_class(conn)


# --- finding a thread and listing it ---------------------------------------------------------


def _config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


def has_facade_thread(db: str | None, thread: str) -> bool:
    """Whether the SQLite file ``db`` names keeps LangGraph-style thread ``thread``."""
    return _latest_metadata(db, thread) is not None


def thread_target(db: str | None, thread: str) -> str | None:
    """The target recorded with LangGraph-style thread ``thread`` (``None``: none)."""
    metadata = _latest_metadata(db, thread)
    target = (metadata or {}).get(TARGET_KEY)
    return str(target) if target else None


def _latest_metadata(db: str | None, thread: str) -> Mapping[str, Any] | None:
    if is_postgres(db):
        return None
    with _sqlite_saver(db or DEFAULT_DB) as saver:
        latest = saver.get_tuple(_config(thread))
    return None if latest is None else dict(latest.metadata)


def facade_history(
    db: str | None, thread: str, load: Callable[[str], Any], target: str | None = None
) -> list[dict[str, Any]]:
    """The checkpoints of LangGraph-style thread ``thread`` in ``db``, oldest first, as rows
    (step, checkpoint_id, source, status, written, next, failure). With a target (given, or
    recorded with the thread), ``load(target)`` gives the graph, which reads its history
    (``get_state_history``: next nodes, failed tasks); otherwise the saver lists it."""
    if target is not None and db is None:
        graph = load(target)
        own = getattr(graph, "checkpointer", None)
        if own is not None and callable(getattr(graph, "get_state_history", None)):
            # the graph keeps its threads in a saver of its own: read them there
            states = list(graph.get_state_history(_config(thread)))
            if states:
                return _rows_from_graph(states[::-1])
    if is_postgres(db):
        return []
    with _sqlite_saver(db or DEFAULT_DB) as saver:
        tuples = list(saver.list(_config(thread)))
        if not tuples:
            return []
        graph = None
        if target is not None:
            graph = load(target)
        elif tuples[0].metadata.get(TARGET_KEY):
            try:
                graph = load(str(tuples[0].metadata[TARGET_KEY]))
            except UsageError:  # moved or broken since: list what the saver has
                graph = None
        if graph is None or not callable(getattr(graph, "get_state_history", None)):
            return _rows_from_saver(tuples[::-1])
        graph.checkpointer = saver  # read the thread where it was found
        return _rows_from_graph(list(graph.get_state_history(_config(thread)))[::-1])


def _written(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[str]:
    if before is None:
        return sorted(after)
    return sorted(k for k, v in after.items() if k not in before or before[k] != v)


def _rows_from_saver(tuples: list[Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    previous: Mapping[str, Any] | None = None
    for t in tuples:
        values = t.checkpoint.get("channel_values", {})
        rows.append(
            {
                "step": t.metadata.get("step"),
                "checkpoint_id": t.config["configurable"].get("checkpoint_id"),
                "source": t.metadata.get("source", ""),
                "status": "",
                "written": _written(previous, values),
            }
        )
        previous = values
    return rows


def _rows_from_graph(snapshots: list[Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    previous: Mapping[str, Any] | None = None
    for s in snapshots:
        values = s.values if isinstance(s.values, Mapping) else {}
        errors = [f"node {t.name!r} failed: {t.error}" for t in s.tasks if t.error]
        if errors:
            status = "failed"
        elif s.interrupts:
            status = "suspended"
        else:
            status = "running" if s.next else "completed"
        rows.append(
            {
                "step": s.metadata.get("step"),
                "checkpoint_id": s.config["configurable"].get("checkpoint_id"),
                "source": s.metadata.get("source", ""),
                "status": status,
                "written": _written(previous, values),
                "next": list(s.next),
                "failure": "; ".join(errors) or None,
            }
        )
        previous = values
    return rows


def lc_dot(drawing: Any) -> str:
    """DOT text of a LangGraph drawing (``get_graph()``): conditional edges dashed."""
    lines = ["digraph {"]
    for edge in drawing.edges:
        style = " [style=dashed]" if edge.conditional else ""
        lines.append(f'  "{edge.source}" -> "{edge.target}"{style};')
    lines.append("}")
    return "\n".join(lines)
