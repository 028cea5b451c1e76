"""The ``superstep`` command line.

    superstep run TARGET [--input JSON] [--json] [--thread ID [--db PATH|URL]]
                         [--stream MODE[,MODE]] [--workers N] [--max-supersteps N]
    superstep resume --thread ID [--value JSON [--activation ID] | --retry]
                     [--expected-step N] [--target TARGET] [--json] [--db PATH|URL]
    superstep history --thread ID [--target TARGET] [--json] [--db PATH|URL]
    superstep replay --thread ID [--target TARGET] [--db PATH|URL]
    superstep graph TARGET [--format mermaid|dot]
    superstep run plan.json --handlers module:attr ...  # a DAG plan: see superstep_core.cli_plan
    superstep plan status plan.json --state state.json [--json]
    superstep run flow.json [--events] [--step] ...     # a workflow document: see cli_document
    superstep schema workflow | workflow save|versions|show ...

With ``--thread`` an engine graph's execution is durable: every superstep is checkpointed to
``.superstep/superstep.db`` (SQLite; ``--db PATH`` for another file, ``--db postgresql://...``
for PostgreSQL), so ``resume`` continues it after its process died, answers its pending
interrupt with ``--value``, or with ``--retry`` runs a superstep that failed again; ``history``
lists its supersteps (failed ones too); ``replay`` rebuilds it from its input log, calling
nothing external, and reports whether it matched. For a LangGraph-style graph (run by the
driver the façade registers through the ``superstep.plugins`` entry point), ``--thread`` is its
``thread_id``.

One owner per thread: ``run --thread`` and ``resume`` take the thread's lease in the database
first, so a second process is refused (naming the owner) before it performs anything. Before
the first superstep, ``run --thread`` records the target (path and SHA-256 of its file) and
the input: a run killed at any moment can be continued by ``resume``. A database never
chooses code: ``history`` imports nothing (unless ``--target`` is given), and ``resume`` and
``replay`` load the target the user names with ``--target`` or the recorded one only when its
file is unchanged.

TARGET is ``path/to/file.py:attr`` or ``package.module:attr`` (as in a ``langgraph.json``);
the file's directory (or, for a module, the working directory) goes first on ``sys.path``,
with the local ``dependencies`` of a ``langgraph.json`` beside it. The attribute is a compiled
engine graph (or a `Graph`, compiled on load), or a target a registered driver accepts. For an
engine graph the module may define ``handlers`` (effect kind -> handler), ``default_input()``
(the input used when ``--input`` is not given) and ``summary(values) -> str``.

Exit status: 0 on success, 1 when the execution failed (or a replay did not match), 2 on bad
usage, printed as one line: bad options, a target that cannot be loaded, input that is not
JSON, an unknown or busy thread, a database that cannot be used (wrong URL, damaged or
read-only file, full disk), or a node failing with error type ``InputError``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any, NoReturn

from rich.console import Console

from superstep_core.cli_db import CliDatabase, check_db, database_error
from superstep_core.cli_document import (
    add_document_arguments,
    add_document_commands,
    graph_json_target,
    is_document_run,
    replay_document_thread,
    resume_document_thread,
    run_json_target,
)
from superstep_core.cli_drivers import TargetDriver, commands, driver_for, drivers
from superstep_core.cli_engine import (
    resume_engine_thread,
    run_durable,
    run_engine_graph,
)
from superstep_core.cli_plan import (
    add_plan_commands,
    add_plan_run_options,
    is_json_target,
    plan_thread,
    read_json_target,
    replay_graph,
    resume_plan,
    run_plan,
)
from superstep_core.cli_support import (
    DEFAULT_DB,
    UsageError,
    absolute_target,
    first_line,
    load_target,
    parse_json,
    redact,
    target_source,
    to_json,
    whole_number_at_least,
)
from superstep_core.cli_trust import remember, trusted
from superstep_core.errors import SuperstepError, SuperstepLimitError
from superstep_core.graph import CompiledGraph
from superstep_core.host.durable import DurableRunner, UnknownThreadError
from superstep_core.host.run_records import RunRecord
from superstep_core.host.sync import DEFAULT_MAX_SUPERSTEPS
from superstep_core.plan import is_plan_document
from superstep_core.visualise import to_dot, to_mermaid

__all__ = ["main", "to_json"]

STREAM_MODES = ("values", "updates", "messages", "custom", "debug", "checkpoints", "tasks")
"""LangGraph's ``stream_mode`` names, the values ``--stream`` accepts."""


# --- running -----------------------------------------------------------------------------------


def _payload(module: ModuleType, text: str | None) -> Any:
    payload = parse_json(text, "--input")
    if payload is None and callable(getattr(module, "default_input", None)):
        payload = module.default_input()
    return payload


def cmd_run(args: argparse.Namespace, console: Console) -> int:
    if is_json_target(args.target):  # a JSON document, told apart by its top-level keys
        doc = read_json_target(args.target)
        if not is_plan_document(doc):
            return run_json_target(args, console)  # a workflow document, or one line saying not
        if args.thread is None:
            return run_plan(doc, args, console)
        with CliDatabase(args.db) as db, db.hold(args.thread):  # one owner for plan threads too
            return run_plan(doc, args, console)
    parse_json(args.input, "--input")  # bad JSON is refused before anything is opened
    if args.thread is None:
        if args.db is not None:
            raise UsageError("--db needs --thread ID (the thread to persist)")
        obj, module = load_target(args.target)
        if isinstance(obj, CompiledGraph):
            _no_stream(args)
            payload = _payload(module, args.input)
            return run_engine_graph(
                obj,
                module,
                payload,
                as_json=args.json,
                console=console,
                max_supersteps=args.max_supersteps,
            )
        return _driver(obj, args.target).run(obj, _payload(module, args.input), args, console)
    with CliDatabase(args.db) as db, db.hold(args.thread):
        if db.runs().get(args.thread) is not None or DurableRunner(db.saver()).exists(args.thread):
            raise UsageError(
                f"thread {args.thread!r} already exists in {db.shown}: continue it with "
                f"`superstep resume --thread {args.thread}`, or pick another id"
            )
        source, digest = target_source(args.target)
        obj, module = load_target(args.target)
        target = absolute_target(args.target)
        remember(target, digest)  # the user named it: `resume` may load it again
        db.runs().record(RunRecord(args.thread, target, source, digest, args.input, time.time()))
        return _start(obj, module, args.input, _with(args, target=target), console, db)


def _start(
    obj: Any,
    module: ModuleType,
    text: str | None,
    args: argparse.Namespace,
    console: Console,
    db: CliDatabase,
) -> int:
    """Run a new thread of a loaded target on input ``text`` (JSON; ``None``: its default)."""
    if isinstance(obj, CompiledGraph):
        _no_stream(args)
        return run_durable(obj, module, _payload(module, text), args, console, db)
    return _driver(obj, args.target).run(obj, _payload(module, text), args, console)


def _no_stream(args: argparse.Namespace) -> None:
    if getattr(args, "stream", None):
        raise UsageError(
            "--stream is for LangGraph-style graphs; an engine graph reports every superstep "
            "as it runs"
        )


def _driver(obj: Any, target: str) -> TargetDriver:
    driver = driver_for(obj)
    if driver is None:
        raise UsageError(
            f"{target!r} is a {type(obj).__name__}, not a graph (expected a CompiledGraph, "
            f"a Graph, or an object with invoke())"
        )
    return driver


def _with(args: argparse.Namespace, **changes: Any) -> argparse.Namespace:
    return argparse.Namespace(**{**vars(args), **changes})


# --- continuing a thread -----------------------------------------------------------------------


def _recorded_target(db: CliDatabase, args: argparse.Namespace, console: Console) -> str | None:
    """The target to load for thread ``args.thread``: the one the user names, else the one
    its run record names if that file is unchanged (`UsageError` if not); ``None``: no
    record."""
    if args.target is not None:
        return str(args.target)
    record = db.runs().get(args.thread)
    if record is None:
        return None
    try:
        source, digest = target_source(record.target)
    except UsageError:
        source, digest = "", ""
    if source != record.source or digest != record.digest:
        why = "is gone" if not source else "changed since the thread was started"
        if source and source != record.source:
            why = f"now resolves to another file, {source}"
        raise UsageError(
            f"thread {args.thread!r} was started on {record.target} ({record.source}, sha256 "
            f"{record.digest[:12]}), which {why}: check it, then pass --target to load it"
        )
    if not trusted(record.target, record.digest):  # the database never chooses code
        raise UsageError(
            f"thread {args.thread!r} names {record.target} as its graph, which was not run "
            f"from this machine's command line by this user (the database may come from "
            f"elsewhere, or have been edited): check it, then pass --target to load it"
        )
    return record.target


def _no_thread(args: argparse.Namespace, shown: str) -> UsageError:
    return UsageError(
        f"no thread {args.thread!r} in {shown} (a graph that keeps its threads in a saver of "
        "its own: pass --target FILE.py:graph, or --db the saver's file)"
    )


def _no_record(args: argparse.Namespace) -> UsageError:
    return UsageError(
        f"thread {args.thread!r} has no run record (it was not started by `superstep run`): "
        f"pass --target FILE.py:graph, the graph to continue it with"
    )


def cmd_resume(args: argparse.Namespace, console: Console) -> int:
    value = parse_json(args.value, "--value")
    with CliDatabase(args.db) as db, db.hold(args.thread):
        if args.target is None and is_document_run(db.saver(), args.thread):
            return resume_document_thread(args, console, db)
        if (recorded := plan_thread(DurableRunner(db.saver()), args.thread)) is not None:
            runner = DurableRunner(
                db.saver(), max_workers=args.workers, leases=db.leases(), owner=db.owner
            )
            return resume_plan(runner, recorded, args, console)
        target = _recorded_target(db, args, console)
        engine_thread = DurableRunner(db.saver()).exists(args.thread)
        if target is None:
            found = any(d.find_thread(args.db, args.thread) for d in drivers())
            if engine_thread or found:
                raise _no_record(args)
            raise _no_thread(args, db.shown)
        obj, module = load_target(target)
        args = _with(args, target=target)
        record = db.runs().get(args.thread)
        if isinstance(obj, CompiledGraph):
            if engine_thread:
                return resume_engine_thread(obj, module, value, args, console, db)
        else:
            driver = _driver(obj, target)
            if driver.has_thread(obj, args):
                return driver.resume(obj, value, args, console)
        if record is None:
            raise _no_thread(args, db.shown)
        if engine_thread or any(d.find_thread(args.db, args.thread) for d in drivers()):
            # it has checkpoints, of a graph of another kind than the one named
            raise UsageError(
                f"thread {args.thread!r} has checkpoints that {target} cannot continue (the "
                f"thread ran {record.target}): leave --target out, or name that graph"
            )
        # killed before its first checkpoint: start it from what was recorded
        if args.value is not None:
            raise UsageError(
                f"thread {args.thread!r} never ran its first superstep, so it is not waiting "
                f"for an answer: resume it without --value"
            )
        console.print(
            f"thread {args.thread!r} has no checkpoint yet: starting it from its run record",
            style="dim",
            highlight=False,
            markup=False,
        )
        return _start(obj, module, record.input, args, console, db)


# --- looking at a thread -------------------------------------------------------------------------


def cmd_history(args: argparse.Namespace, console: Console) -> int:
    graph = load_target(args.target)[0] if args.target is not None else None  # user-named only
    rows: list[dict[str, Any]] | None = None
    with CliDatabase(args.db, read_only=True) as db:
        if db.exists:
            runner = DurableRunner(db.saver())
            try:
                # a LangGraph-style thread in the same database is the drivers' to list
                if runner.exists(args.thread):
                    rows = _history_rows(runner.history(args.thread))
            except UnknownThreadError:
                rows = None
        shown = db.shown
    if rows is None:
        rows = []
        for driver in drivers():
            if graph is None or driver.accepts(graph):
                rows = driver.history(args.db, args.thread, graph)
            if rows:
                break
        if not rows:
            raise _no_thread(args, shown)
    if args.json:
        sys.stdout.buffer.write(to_json(rows) + b"\n")
        return 0
    for row in rows:
        line = f"superstep {row['step']:>4}  {row['source']:<5}  {row['status']:<19}"
        if row["written"]:
            line += f"  wrote {', '.join(row['written'])}"
        if row.get("next"):
            line += f"  next {', '.join(row['next'])}"
        if row.get("actor") is not None:
            line += f"  by {row['actor']} ({row['permission']}) at {row['timestamp']}"
        if row.get("failure"):
            line += f"  {row['failure']}"
        sys.stdout.write(line.rstrip() + "\n")
    return 0


def _history_rows(entries: Sequence[Any]) -> list[dict[str, Any]]:
    return [
        {
            "step": e.step,
            "checkpoint_id": e.checkpoint_id,
            "source": e.source,
            "status": e.status,
            "written": list(e.written),
            "actor": e.actor,
            "permission": e.permission,
            "timestamp": e.timestamp,
            "failure": e.failure,
        }
        for e in entries
    ]


def cmd_replay(args: argparse.Namespace, console: Console) -> int:
    with CliDatabase(args.db, read_only=True) as db:
        if not db.exists:
            raise _no_thread(args, db.shown)
        runner = DurableRunner(db.saver())
        if not runner.exists(args.thread):
            if any(d.find_thread(args.db, args.thread) for d in drivers()):
                raise UsageError(
                    f"thread {args.thread!r} is a LangGraph-style thread (kept by a "
                    f"SqliteSaver): replay rebuilds engine threads from their input log; list "
                    f"it with `superstep history --thread {args.thread}`"
                )
            raise _no_thread(args, db.shown)
        if args.target is None and is_document_run(db.saver(), args.thread):
            return replay_document_thread(args, db)
        if (recorded := plan_thread(runner, args.thread)) is not None:
            graph = replay_graph(recorded, args.thread).graph
        else:
            target = _recorded_target(db, args, console)
            if target is None:
                raise _no_record(args)
            obj, _ = load_target(target)
            if not isinstance(obj, CompiledGraph):
                raise UsageError(f"{target!r} is a {type(obj).__name__}, not an engine graph")
            graph = obj
        report = runner.replay(graph, args.thread)
    if report.matched:
        sys.stdout.write(
            f"thread {args.thread!r}: replayed {report.inputs} inputs; all "
            f"{report.checkpoints} checkpoints matched\n"
        )
        return 0
    sys.stdout.write(
        f"thread {args.thread!r}: replay did NOT match: {'; '.join(report.mismatches[:5])}\n"
    )
    return 1


def cmd_graph(args: argparse.Namespace, console: Console) -> int:
    if is_json_target(args.target):
        return graph_json_target(args)
    obj, _ = load_target(args.target)
    if isinstance(obj, CompiledGraph):
        text = to_mermaid(obj) if args.format == "mermaid" else to_dot(obj)
    else:
        text = _driver(obj, args.target).diagram(obj, args.format)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


# --- options -------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (``superstep: error: ...``), exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog.removeprefix('superstep ')}: {message}".lstrip(": "))


def _thread_id(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("a thread id must not be empty")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise argparse.ArgumentTypeError(f"a thread id must not hold control characters: {text!r}")
    if len(text) > 512:
        raise argparse.ArgumentTypeError("a thread id must be at most 512 characters")
    return text


def _stream_modes(text: str) -> list[str]:
    modes = [m.strip() for m in text.split(",") if m.strip()]
    unknown = [m for m in modes if m not in STREAM_MODES]
    if not modes or unknown:
        raise argparse.ArgumentTypeError(
            f"{text!r}: each MODE must be one of {', '.join(STREAM_MODES)}"
        )
    return modes


def _db(text: str) -> str:
    try:
        return check_db(text)
    except UsageError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("--db ")) from None


def _target(text: str) -> str:
    where, sep, attr = text.rpartition(":")
    if (not sep or not where or not attr) and not text.endswith(".json"):
        raise argparse.ArgumentTypeError(
            f"{text!r} must look like path/to/file.py:attr, module:attr or a JSON document"
        )
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="superstep", description=(__doc__ or "").split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    db_help = f"SQLite file or postgresql:// URL (default {DEFAULT_DB})"
    workers: dict[str, Any] = {
        "type": whole_number_at_least(1),
        "default": 8,
        "help": "effects performed at once (default 8)",
    }
    run = sub.add_parser("run", help="run a graph to completion (or until it waits)")
    run.add_argument("target", type=_target, help="path/to/file.py:attr or module:attr")
    run.add_argument("--input", help="the input, as JSON")
    run.add_argument("--json", action="store_true", help="print the final result as JSON")
    run.add_argument("--workers", **workers)
    run.add_argument(
        "--max-supersteps",
        type=whole_number_at_least(0),
        default=DEFAULT_MAX_SUPERSTEPS,
        help=f"stop an engine graph after N supersteps (default {DEFAULT_MAX_SUPERSTEPS:,}; "
        "0: no limit)",
    )
    run.add_argument("--thread", type=_thread_id, help="persist the run as this thread")
    run.add_argument("--db", type=_db, help=db_help)
    run.add_argument(
        "--stream",
        type=_stream_modes,
        help="LangGraph-style graphs: print stream chunks of MODE[,MODE] "
        f"({', '.join(STREAM_MODES)})",
    )
    add_plan_run_options(run)
    run.set_defaults(handler=cmd_run)
    resume = sub.add_parser("resume", help="continue a thread, or answer its interrupt")
    resume.add_argument("--thread", type=_thread_id, required=True)
    resume.add_argument("--workers", **workers)
    answer = resume.add_mutually_exclusive_group()
    answer.add_argument("--value", help="the answer to the pending interrupt, as JSON")
    answer.add_argument("--retry", action="store_true", help="run a failed superstep again")
    resume.add_argument("--activation", help="which pending interrupt --value answers")
    resume.add_argument(
        "--expected-step",
        type=whole_number_at_least(-1),
        help="refuse if the thread moved past superstep N",
    )
    resume.add_argument("--target", type=_target, help="the graph to load (else the recorded one)")
    resume.add_argument("--json", action="store_true", help="print the final result as JSON")
    resume.add_argument("--db", type=_db, help=db_help)
    resume.add_argument("--handlers", help="plan threads: handlers other than the recorded ones")
    resume.set_defaults(handler=cmd_resume, max_supersteps=DEFAULT_MAX_SUPERSTEPS, stream=None)
    history = sub.add_parser("history", help="list a thread's supersteps (imports nothing)")
    history.add_argument("--thread", type=_thread_id, required=True)
    history.add_argument("--json", action="store_true", help="print the list as JSON")
    history.add_argument(
        "--target", type=_target, help="LangGraph-style threads: load this graph to list them"
    )
    history.add_argument("--db", type=_db, help=db_help)
    history.set_defaults(handler=cmd_history)
    replay = sub.add_parser("replay", help="replay a thread from its input log and compare")
    replay.add_argument("--thread", type=_thread_id, required=True)
    replay.add_argument("--target", type=_target, help="the graph to load (else the recorded one)")
    replay.add_argument("--db", type=_db, help=db_help)
    replay.set_defaults(handler=cmd_replay)
    graph = sub.add_parser("graph", help="print a diagram of a graph")
    graph.add_argument("target", type=_target, help="path/to/file.py:attr or module:attr")
    graph.add_argument("--format", choices=["mermaid", "dot"], default="mermaid")
    graph.set_defaults(handler=cmd_graph)
    add_plan_commands(sub)
    add_document_arguments(run, resume)
    add_document_commands(sub)
    for _name, install in commands():  # plugin subcommands (`superstep serve`, ...)
        install(sub)
    return parser


# --- entry point ---------------------------------------------------------------------------------


def load_plugins() -> None:
    """Run the ``superstep.plugins`` entry points (the façade registers one that makes
    ``import langgraph`` load it and registers its target driver)."""
    for entry in entry_points(group="superstep.plugins"):
        try:
            entry.load()()
        except Exception as e:  # a broken plugin must not break the command line
            print(f"superstep: warning: plugin {entry.name!r} failed: {e}", file=sys.stderr)


def _console() -> Console:
    # Colour only on a terminal: FORCE_COLOR (set by some CI systems) must not put escape
    # codes into a file or a pipe.
    return Console(stderr=True, force_terminal=None if sys.stderr.isatty() else False)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``superstep`` console script; returns the exit status."""
    load_plugins()
    console = _console()
    try:
        args = build_parser().parse_args(argv)
        status: int = args.handler(args, console)
    except UsageError as e:
        print(f"superstep: error: {redact(str(e))}", file=sys.stderr)
        return 2
    except SystemExit as e:  # --help
        return e.code if isinstance(e.code, int) else 0
    except KeyboardInterrupt:
        print("superstep: interrupted", file=sys.stderr)
        return 130
    except SuperstepLimitError as e:
        print(f"superstep: error: {redact(str(e))}", file=sys.stderr)
        return 1
    except Exception as e:
        error = database_error(e)
        if error is not None:
            print(f"superstep: error: {redact(str(error))}", file=sys.stderr)
            return 2
        if os.environ.get("SUPERSTEP_TRACEBACK") or not isinstance(e, SuperstepError):
            raise
        print(f"superstep: error: {type(e).__name__}: {redact(first_line(e))}", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
