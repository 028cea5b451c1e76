"""LangGraph-style graphs on the ``superstep`` command line: the `TargetDriver` for compiled
graphs that have ``invoke`` (``run``, ``resume``, ``history`` and ``graph`` of them), registered
through the ``superstep.plugins`` entry point together with the import shim.

``--thread`` is the graph's ``thread_id``. A graph compiled without a checkpointer is given
the saver of ``--db`` itself (`superstep_core.cli_db.open_saver`: the SQLite file, by default
``.superstep/superstep.db``, or the PostgreSQL database), the one that keeps engine threads:
both are written through LangGraph's checkpoint protocol, so one database holds both kinds and
``resume``/``history`` find the thread there. The target is recorded in the checkpoints'
metadata (``superstep_target``), for display only: the command line loads code only from a
target the user names or one whose file it checked against the run record. A graph with its
own checkpointer keeps its threads there (``--db`` is then refused; an in-memory one is
warned about, as nothing outlives the process); ``history --db FILE`` also reads a file the
official `SqliteSaver` wrote.

Façade names used: `superstep_compat.shim.install`, `superstep_compat.types.Command`,
`superstep_compat.checkpoint.sqlite.SqliteSaver`, and the public graph methods ``invoke``,
``stream``, ``get_state``, ``get_state_history``, ``get_graph`` and the ``checkpointer``
attribute.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, closing, contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from superstep_compat.pregel._lgcheckpoint import is_state_channel
from superstep_core.checkpoint.sqlite import connect_read_only
from superstep_core.cli_db import database_error, open_saver
from superstep_core.cli_drivers import ThreadFound, register
from superstep_core.cli_support import (
    DEFAULT_DB,
    UsageError,
    absolute_target,
    asked,
    first_line,
    is_postgres,
    redact,
    summarise,
    to_json,
)
from superstep_core.graph import CompiledGraph
from superstep_core.host.thread_checkpoints import STEP

__all__ = ["TARGET_KEY", "FacadeDriver", "install"]

TARGET_KEY = "superstep_target"
"""Checkpoint metadata key holding the target of a thread the CLI started."""


def install() -> None:
    """The ``superstep.plugins`` entry point: ``import langgraph`` loads the façade, and the
    command line runs LangGraph-style targets with `FacadeDriver`."""
    from superstep_compat.shim import install as install_shim

    install_shim()
    register(FacadeDriver())


def _config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


class FacadeDriver:
    """Runs LangGraph-style compiled graphs for the ``superstep`` command line."""

    name = "langgraph"

    def accepts(self, obj: Any) -> bool:
        return not isinstance(obj, CompiledGraph) and callable(getattr(obj, "invoke", None))

    # --- run and resume ----------------------------------------------------------------------

    def run(self, obj: Any, payload: Any, args: argparse.Namespace, console: Console) -> int:
        with ExitStack() as stack:
            kwargs = self._thread_config(obj, args, console, stack, resuming=False)
            return self._guarded(obj, payload, args, console, kwargs)

    def resume(self, obj: Any, value: Any, args: argparse.Namespace, console: Console) -> int:
        """Answer the pending interrupt with ``--value`` (``Command(resume=value)``, or
        ``{interrupt_id: value}`` with ``--activation``), else continue with ``invoke(None)``,
        which also runs a failed node again. ``--expected-step`` refuses a thread that moved."""
        from superstep_compat.types import Command

        args.stream = None
        with ExitStack() as stack:
            kwargs = self._thread_config(obj, args, console, stack, resuming=True)
            state = obj.get_state(kwargs["config"])
            step = (state.metadata or {}).get("step")
            if args.expected_step is not None and step != args.expected_step:
                raise UsageError(
                    f"thread {args.thread!r} is at superstep {step}, not {args.expected_step}: "
                    f"it moved since you looked; check it with `superstep history`"
                )
            pending = {i.id: i for i in getattr(state, "interrupts", ())}
            command: Any = None
            if args.value is not None:
                if not pending:
                    status = "finished" if not state.next else "not waiting for an answer"
                    raise UsageError(
                        f"thread {args.thread!r} is {status}: not waiting for an answer, so "
                        f"--value would be dropped; resume it without --value"
                    )
                if args.activation is not None:
                    if args.activation not in pending:
                        raise UsageError(
                            f"thread {args.thread!r} has no pending interrupt "
                            f"{args.activation!r}; pending: {', '.join(sorted(pending))}"
                        )
                    command = Command(resume={args.activation: value})
                else:
                    command = Command(resume=value)
            elif args.activation is not None:
                raise UsageError("--activation names the interrupt --value answers: add --value")
            return self._guarded(obj, command, args, console, kwargs)

    def _guarded(
        self,
        obj: Any,
        payload: Any,
        args: argparse.Namespace,
        console: Console,
        kwargs: dict[str, Any],
    ) -> int:
        try:
            return self._drive(obj, payload, args, console, kwargs)
        except UsageError:
            raise
        except Exception as e:  # the graph's own error, as one line (exit 1, not a traceback)
            print(f"superstep: error: {type(e).__name__}: {first_line(e)}", file=sys.stderr)
            return 1

    def _thread_config(
        self,
        obj: Any,
        args: argparse.Namespace,
        console: Console,
        stack: ExitStack,
        *,
        resuming: bool,
    ) -> dict[str, Any]:
        if args.thread is None:
            if args.db is not None:
                raise UsageError("--db needs --thread ID (the thread to persist)")
            return {}
        self._persist(obj, args, console, stack, resuming=resuming)
        return {
            "config": {
                **_config(args.thread),
                "metadata": {TARGET_KEY: absolute_target(args.target)},
            }
        }

    def _persist(
        self,
        obj: Any,
        args: argparse.Namespace,
        console: Console,
        stack: ExitStack,
        *,
        resuming: bool,
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
                    f"resume` cannot continue it (compile the graph without a checkpointer to "
                    f"let --thread keep it in {DEFAULT_DB}, or with a SqliteSaver)",
                    file=sys.stderr,
                )
            return
        where = args.db or DEFAULT_DB
        saver = stack.enter_context(_database_saver(where))
        try:
            obj.checkpointer = saver
        except AttributeError as e:
            raise UsageError(
                f"cannot give {type(obj).__name__} a checkpointer ({e}): compile it with one"
            ) from e
        if resuming:
            return
        console.print(
            f"thread {args.thread!r}: the graph has no checkpointer; keeping the thread in "
            f"{redact(where)}",
            style="dim",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )

    def _drive(
        self,
        obj: Any,
        payload: Any,
        args: argparse.Namespace,
        console: Console,
        kwargs: dict[str, Any],
    ) -> int:
        if args.stream:
            if not callable(getattr(obj, "stream", None)):
                raise UsageError(f"--stream: {type(obj).__name__} has no stream()")
            modes = args.stream
            mode: str | list[str] = modes[0] if len(modes) == 1 else modes
            for chunk in obj.stream(payload, stream_mode=mode, **kwargs):
                if args.json:
                    sys.stdout.buffer.write(to_json(chunk) + b"\n")
                    sys.stdout.flush()
                else:
                    _print(console, summarise(chunk, 2000))
            result: Any = None
        else:
            result = obj.invoke(payload, **kwargs)
            shown = result
            if isinstance(result, Mapping) and "__interrupt__" in result:
                shown = {k: v for k, v in result.items() if k != "__interrupt__"}
            if args.json:
                sys.stdout.buffer.write(to_json(result) + b"\n")
            else:
                _print(console, summarise(shown, 2000))
        if "config" in kwargs:
            self._report_interrupts(obj, args, console, kwargs["config"])
        elif isinstance(result, Mapping) and result.get("__interrupt__"):
            for interrupt in result["__interrupt__"]:
                _print(console, f"waiting: the graph asks {asked(interrupt.value)}")
            _print(console, "  (run it with --thread ID to answer it later with superstep resume)")
        return 0

    def _report_interrupts(
        self, obj: Any, args: argparse.Namespace, console: Console, config: Any
    ) -> None:
        """What a paused thread asks, and the exact command that answers it."""
        try:
            pending = list(getattr(obj.get_state(config), "interrupts", ()))
        except Exception:  # a graph without state access: nothing to report
            return
        db = f" --db {_shell(redact(args.db))}" if args.db else ""
        for interrupt in pending:
            which = f" --activation {interrupt.id}" if len(pending) > 1 else ""
            _print(console, f"waiting: the graph asks {asked(interrupt.value)}")
            _print(
                console,
                f"  answer with: superstep resume --thread {_shell(args.thread)}{db}{which} "
                f"--value JSON",
            )

    # --- finding a thread and listing it -----------------------------------------------------

    def has_thread(self, obj: Any, args: argparse.Namespace) -> bool:
        own = getattr(obj, "checkpointer", None)
        if own is not None and own is not False and own is not True:
            return own.get_tuple(_config(args.thread)) is not None
        found = self.find_thread(args.db, args.thread)
        return found is not None

    def find_thread(self, db: str | None, thread: str) -> ThreadFound | None:
        with _read_only_saver(db or DEFAULT_DB) as saver:
            latest = None if saver is None else saver.get_tuple(_config(thread))
        if latest is None or is_engine_checkpoint(latest):
            return None
        target = dict(latest.metadata).get(TARGET_KEY)
        return ThreadFound(str(target) if target else None)

    def history(self, db: str | None, thread: str, graph: Any | None) -> list[dict[str, Any]]:
        if graph is not None and db is None:
            own = getattr(graph, "checkpointer", None)
            if own is not None and callable(getattr(graph, "get_state_history", None)):
                # the graph keeps its threads in a saver of its own: read them there
                states = list(graph.get_state_history(_config(thread)))
                if states:
                    return _rows_from_graph(states[::-1])
        with _read_only_saver(db or DEFAULT_DB) as saver:
            if saver is None:
                return []
            tuples = list(saver.list(_config(thread)))
            if not tuples or is_engine_checkpoint(tuples[0]):
                return []
            if graph is None or not callable(getattr(graph, "get_state_history", None)):
                return _rows_from_saver(tuples[::-1])
            graph.checkpointer = saver  # read the thread where it was found
            return _rows_from_graph(list(graph.get_state_history(_config(thread)))[::-1])

    def diagram(self, obj: Any, fmt: str) -> str:
        if not callable(getattr(obj, "get_graph", None)):
            raise UsageError(f"{type(obj).__name__} has no get_graph(): no diagram to draw")
        drawing = obj.get_graph()
        if fmt == "mermaid":
            return str(drawing.draw_mermaid())
        lines = ["digraph {"]
        for edge in drawing.edges:
            style = " [style=dashed]" if edge.conditional else ""
            lines.append(f'  "{edge.source}" -> "{edge.target}"{style};')
        lines.append("}")
        return "\n".join(lines)


def _print(console: Console, text: str) -> None:
    console.print(text, highlight=False, markup=False, soft_wrap=True)


def _shell(text: str) -> str:
    import shlex

    return shlex.quote(text)


@contextmanager
def _database_saver(where: str) -> Iterator[Any]:
    """The saver of ``--db`` ``where`` (a SQLite file, created if missing, or a PostgreSQL
    URL), closed when the command ends."""
    try:
        if not is_postgres(where):
            Path(where).parent.mkdir(parents=True, exist_ok=True)
        saver = open_saver(where)
    except Exception as e:
        error = database_error(e)
        if error is None:
            raise
        raise UsageError(f"cannot open --db {redact(where)!r}: {error}") from None
    try:
        yield saver
    finally:
        _close(saver)


@contextmanager
def _read_only_saver(where: str) -> Iterator[Any]:
    """A saver on ``--db`` ``where`` opened read-only: the official `SqliteSaver` for a file
    it wrote (a graph's own saver), else the database's own saver (`open_saver`); ``None``
    when there is nothing to read (no such file; nothing is created)."""
    if is_postgres(where):
        saver = open_saver(where)
        try:
            yield saver
        finally:
            _close(saver)
        return
    path = Path(where)
    if not path.is_file():
        yield None
        return
    conn = connect_read_only(path)
    if _has_saver_tables(conn):
        from superstep_compat.checkpoint.sqlite import SqliteSaver

        with closing(conn):
            official = SqliteSaver(conn)
            official.is_setup = True  # the tables exist; setting up would write to the file
            yield official
        return
    conn.close()
    own = open_saver(where, read_only=True)
    try:
        yield own
    finally:
        _close(own)


def _close(saver: Any) -> None:
    close = getattr(saver, "close", None)  # the database's savers have close()
    if close is not None:
        close()


def is_engine_checkpoint(found: Any) -> bool:
    """Whether a `CheckpointTuple` is an engine thread's (its ``__superstep__`` step channel,
    `superstep_core.host.thread_checkpoints.STEP`): the engine's commands own that thread."""
    return STEP in found.checkpoint.get("channel_values", {})


def _has_saver_tables(conn: sqlite3.Connection) -> bool:
    """Whether ``conn``'s database has the official SqliteSaver's ``checkpoints`` table."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(checkpoints)").fetchall()}
    return {"checkpoint_ns", "checkpoint_id", "parent_checkpoint_id"} <= columns


def _written(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[str]:
    if before is None:
        return sorted(after)
    return sorted(k for k, v in after.items() if k not in before or before[k] != v)


def _rows_from_saver(tuples: list[Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    previous: Mapping[str, Any] | None = None
    for t in tuples:
        values = {
            k: v for k, v in t.checkpoint.get("channel_values", {}).items() if is_state_channel(k)
        }
        errors = [
            f"task {task_id[:8]} failed: {value if isinstance(value, str) else summarise(value)}"
            for task_id, channel, value in (t.pending_writes or ())
            if channel == "__error__"
        ]
        asks = [w for w in (t.pending_writes or ()) if w[1] == "__interrupt__"]
        rows.append(
            {
                "step": t.metadata.get("step"),
                "checkpoint_id": t.config["configurable"].get("checkpoint_id"),
                "source": t.metadata.get("source", ""),
                "status": "failed" if errors else ("suspended" if asks else ""),
                "written": _written(previous, values),
                "failure": "; ".join(errors) or None,
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
