"""The ``superstep`` command line.

    superstep run TARGET [--input JSON] [--json] [--thread ID [--db PATH|URL]]
                         [--stream MODE[,MODE]]
    superstep resume --thread ID [--value JSON] [--json] [--db PATH|URL]
    superstep history --thread ID [--json] [--db PATH|URL]
    superstep replay --thread ID [--db PATH|URL]
    superstep graph TARGET [--format mermaid|dot]

With ``--thread`` an engine graph's execution is durable: every superstep is checkpointed to
``.superstep/superstep.db`` (SQLite; ``--db PATH`` for another file, ``--db postgresql://...``
for PostgreSQL), so ``resume`` continues it after its process died, or answers its pending
interrupt with ``--value``; ``history`` lists its supersteps; ``replay`` rebuilds it from its
input log, calling nothing external, and reports whether it matched. For a LangGraph-style
graph, ``--thread`` is passed as ``{"configurable": {"thread_id": ID}}`` and ``--stream``
prints its ``stream()`` chunks, one per line.

TARGET is ``path/to/file.py:attr`` or ``package.module:attr`` (as in a ``langgraph.json``).
The attribute is a compiled engine graph (or a `Graph`, compiled on load), or any object
with ``invoke`` (a LangGraph-style compiled graph). For an engine graph the module may
define ``handlers`` (effect kind -> handler), ``default_input()`` (the input used when
``--input`` is not given) and ``summary(values) -> str`` (the closing report).

Exit status: 0 on success, 1 when the execution failed (or a replay did not match), 2 on
bad usage: a target that cannot be loaded, input that is not JSON, an unknown thread, a thread
that cannot be recovered, or a node failing with error type ``InputError`` (the convention for
"the input names something that does not exist").
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
from rich.console import Console

from superstep_core.checkpoint import CheckpointStore, SqliteCheckpointStore
from superstep_core.errors import (
    StaleResumeError,
    SuperstepError,
    SuperstepLimitError,
    UnknownInterruptError,
)
from superstep_core.graph import CompiledGraph, Graph
from superstep_core.host import Host
from superstep_core.host.durable import DurableRunner, RecoveryError, UnknownThreadError
from superstep_core.persistence import CodecError
from superstep_core.runtime import Execution, Status, StepOutcome
from superstep_core.visualise import to_dot, to_mermaid

__all__ = ["main"]

INPUT_ERROR = "InputError"


DEFAULT_MAX_SUPERSTEPS = 100_000


class UsageError(Exception):
    """Bad command-line usage: printed as one line, exit status 2."""


# --- loading targets -----------------------------------------------------------------------


def load_target(target: str) -> tuple[Any, ModuleType]:
    """Import ``file.py:attr`` or ``module:attr``; returns (object, module).
    Raises `UsageError` with a one-line reason."""
    where, sep, attr = target.rpartition(":")
    if not sep or not where or not attr:
        raise UsageError(f"target {target!r} must look like path/to/file.py:attr or module:attr")
    if where.endswith(".py") or "/" in where or "\\" in where:
        path = Path(where)
        if not path.is_file():
            raise UsageError(f"cannot load {target!r}: no file {where!r}")
        name = f"superstep_target_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise UsageError(f"cannot load {target!r}: {where!r} is not a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            raise UsageError(f"cannot load {target!r}: {type(e).__name__}: {e}") from e
    else:
        try:
            module = importlib.import_module(where)
        except Exception as e:
            raise UsageError(f"cannot load {target!r}: {type(e).__name__}: {e}") from e
    if not hasattr(module, attr):
        found = sorted(n for n in vars(module) if not n.startswith("_"))
        raise UsageError(
            f"cannot load {target!r}: {where!r} has no attribute {attr!r} "
            f"(it has: {', '.join(found[:12])}{', ...' if len(found) > 12 else ''})"
        )
    obj = getattr(module, attr)
    if isinstance(obj, Graph):
        try:
            obj = obj.compile()
        except SuperstepError as e:
            raise UsageError(f"{target!r} does not compile: {e}") from e
    return obj, module


def parse_input(text: str | None) -> Any:
    return parse_json(text, "--input")


def parse_json(text: str | None, option: str) -> Any:
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as e:
        raise UsageError(f"{option} is not valid JSON: {e}") from e


def to_json(value: Any) -> bytes:
    """Serialise a result for ``--json``: tuples and sets become lists, unknown types their
    ``str``."""

    def default(obj: Any) -> Any:
        if isinstance(obj, set | frozenset):
            return sorted(obj, key=repr)
        if hasattr(obj, "model_dump"):
            return obj.model_dump()
        return str(obj)

    return orjson.dumps(value, default=default, option=orjson.OPT_NON_STR_KEYS)


# --- commands ------------------------------------------------------------------------------


def _progress(console: Console) -> Callable[[Execution, StepOutcome], None]:
    def report(ex: Execution, outcome: StepOutcome) -> None:
        if not outcome.committed:
            console.print(f"[dim]superstep {outcome.step}[/dim]: [red]failed[/red]")
            return
        nodes = Counter(aid.rsplit(":", 1)[0] for aid, _ in outcome.delivered)
        who = ", ".join(f"{n} x{c}" if c > 1 else n for n, c in sorted(nodes.items()))
        extra = f", {len(outcome.effects)} effects" if outcome.effects else ""
        wrote = f", wrote {', '.join(outcome.written)}" if outcome.written else ""
        console.print(f"[dim]superstep {outcome.step}[/dim]: {who}{extra}{wrote}", highlight=False)

    return report


def _summary(value: Any, limit: int = 100) -> str:
    if isinstance(value, list | tuple) and len(value) > 3:
        return f"{len(value)} items, first: {_summary(value[0], limit)}"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def run_engine_graph(
    graph: CompiledGraph,
    module: ModuleType,
    payload: Any,
    *,
    as_json: bool,
    console: Console,
    max_supersteps: int | None = DEFAULT_MAX_SUPERSTEPS,
) -> int:
    if payload is None and callable(getattr(module, "default_input", None)):
        payload = module.default_input()
    host = Host(
        getattr(module, "handlers", {}),
        on_step=_progress(console),
        max_supersteps=max_supersteps or None,
    )
    started = time.perf_counter()
    with host:
        ex = host.run_graph(graph, payload=payload)
    return _report(graph, module, ex, time.perf_counter() - started, as_json, console)


def _report(
    graph: CompiledGraph,
    module: ModuleType,
    ex: Execution,
    elapsed: float,
    as_json: bool,
    console: Console,
) -> int:
    """Print the closing report (and the result as JSON); returns the exit status."""
    console.print(
        f"[bold]{graph.identity}[/bold] {ex.status.value} after {ex.step} supersteps "
        f"in {elapsed:.2f} s",
        highlight=False,
        soft_wrap=True,
    )
    summarise = getattr(module, "summary", None)
    if callable(summarise):
        console.print(summarise(ex.values), highlight=False, markup=False, soft_wrap=True)
    else:
        for name, value in ex.values.items():
            console.print(
                f"  {name}: {_summary(value)}", highlight=False, markup=False, soft_wrap=True
            )
    for activation, value in ex.interrupts:
        line = f"waiting: {activation} asks {_summary(value)} (answer with resume --value JSON)"
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    if as_json:
        sys.stdout.buffer.write(to_json(_result(ex)) + b"\n")
    if ex.failure is not None:
        f = ex.failure
        line = f"error: node {f.node!r} failed: {f.error_type}: {f.message}"
        console.print(line, highlight=False, markup=False, soft_wrap=True)
        return 2 if f.error_type == INPUT_ERROR else 1
    return 0


def _result(ex: Execution) -> dict[str, Any]:
    return {
        "execution_id": ex.execution_id,
        "status": ex.status.value,
        "supersteps": ex.step,
        "values": ex.values,
        "outputs": [{"node": n, "output": o} for n, o in ex.outputs],
        "interrupts": [{"activation": a, "value": v} for a, v in ex.interrupts],
        "failure": None
        if ex.failure is None
        else {
            "node": ex.failure.node,
            "type": ex.failure.error_type,
            "message": ex.failure.message,
        },
    }


def cmd_run(args: argparse.Namespace, console: Console) -> int:
    obj, module = load_target(args.target)
    payload = parse_input(args.input)
    if isinstance(obj, CompiledGraph):
        if args.stream:
            raise UsageError(
                "--stream is for LangGraph-style graphs; an engine graph reports "
                "every superstep as it runs"
            )
        if args.thread is None:
            if args.db is not None:
                raise UsageError("--db needs --thread ID (the thread to persist)")
            return run_engine_graph(
                obj,
                module,
                payload,
                as_json=args.json,
                console=console,
                max_supersteps=args.max_supersteps,
            )
        return run_durable(obj, module, payload, args, console)
    if callable(getattr(obj, "invoke", None)):
        if payload is None and callable(getattr(module, "default_input", None)):
            payload = module.default_input()
        return run_facade(obj, payload, args, console)
    raise UsageError(
        f"{args.target!r} is a {type(obj).__name__}, not a graph (expected a CompiledGraph, "
        f"a Graph, or an object with invoke())"
    )


def run_facade(obj: Any, payload: Any, args: argparse.Namespace, console: Console) -> int:
    """Run a LangGraph-style compiled graph: ``invoke``, or ``stream`` with ``--stream``."""
    if args.db is not None:
        raise UsageError(
            "--db is for engine graphs; a LangGraph-style graph persists through "
            "its own checkpointer"
        )
    kwargs: dict[str, Any] = {}
    if args.thread is not None:
        kwargs["config"] = {"configurable": {"thread_id": args.thread}}
    try:
        return _drive_facade(obj, payload, args, console, kwargs)
    except Exception as e:  # the graph's own error, as one line (exit 1, not a traceback)
        print(f"superstep: error: {type(e).__name__}: {_first_line(e)}", file=sys.stderr)
        return 1


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else repr(error)


def _drive_facade(
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
                console.print(_summary(chunk, 2000), highlight=False, markup=False, soft_wrap=True)
        return 0
    result = obj.invoke(payload, **kwargs)
    if args.json:
        sys.stdout.buffer.write(to_json(result) + b"\n")
    else:
        console.print(_summary(result, 2000), highlight=False, markup=False, soft_wrap=True)
    return 0


# --- durable threads -----------------------------------------------------------------------

DEFAULT_DB = ".superstep/superstep.db"


def open_store(db: str | None) -> CheckpointStore:
    """The store ``--db`` names: a PostgreSQL URL, or an SQLite file (default
    ``.superstep/superstep.db``, its directory created)."""
    where = db or DEFAULT_DB
    if where.startswith(("postgresql://", "postgres://")):
        try:
            from superstep_core.checkpoint.postgres import PostgresCheckpointStore

            return PostgresCheckpointStore(where, min_size=1, max_size=4)
        except Exception as e:
            raise UsageError(f"cannot open --db {where!r}: {type(e).__name__}: {e}") from e
    path = Path(where)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return SqliteCheckpointStore(path)
    except Exception as e:
        raise UsageError(f"cannot open --db {where!r}: {type(e).__name__}: {e}") from e


def _absolute_target(target: str) -> str:
    """``target`` with a file path made absolute, so `resume` finds it from anywhere."""
    where, _, attr = target.rpartition(":")
    if where.endswith(".py") or "/" in where or "\\" in where:
        return f"{Path(where).resolve()}:{attr}"
    return target


def run_durable(
    graph: CompiledGraph,
    module: ModuleType,
    payload: Any,
    args: argparse.Namespace,
    console: Console,
) -> int:
    if payload is None and callable(getattr(module, "default_input", None)):
        payload = module.default_input()
    store = open_store(args.db)
    try:
        runner = DurableRunner(
            store,
            getattr(module, "handlers", {}),
            on_step=_progress(console),
            max_workers=args.workers,
        )
        if runner.exists(args.thread):
            raise UsageError(
                f"thread {args.thread!r} already exists in {args.db or DEFAULT_DB}: continue "
                f"it with `superstep resume --thread {args.thread}`, or pick another id"
            )
        started = time.perf_counter()
        metadata = {"target": _absolute_target(args.target), "graph": graph.identity}
        try:
            with runner.start(graph, args.thread, payload=payload, metadata=metadata) as dx:
                ex = dx.run()
        except CodecError as e:
            raise UsageError(f"cannot persist thread {args.thread!r}: {e}") from e
        return _report(graph, module, ex, time.perf_counter() - started, args.json, console)
    finally:
        store.close()


def _thread_graph(
    runner: DurableRunner, args: argparse.Namespace
) -> tuple[CompiledGraph, ModuleType]:
    try:
        metadata = runner.latest_metadata(args.thread)
    except UnknownThreadError:
        raise UsageError(f"no thread {args.thread!r} in {args.db or DEFAULT_DB}") from None
    target = args.target or metadata.get("target")
    if not target:
        raise UsageError(f"thread {args.thread!r} has no recorded target: pass --target")
    obj, module = load_target(str(target))
    if not isinstance(obj, CompiledGraph):
        raise UsageError(f"{target!r} is a {type(obj).__name__}, not an engine graph")
    return obj, module


def cmd_resume(args: argparse.Namespace, console: Console) -> int:
    value = parse_json(args.value, "--value")
    if args.target is not None:
        obj, _ = load_target(args.target)
        if not isinstance(obj, CompiledGraph) and callable(getattr(obj, "invoke", None)):
            # A LangGraph-style graph keeps its threads in its own checkpointer: answer the
            # pending interrupt (or continue) through invoke, as LangGraph does.
            command = _resume_command(value) if args.value is not None else None
            args.stream, args.db = None, None
            return run_facade(obj, command, args, console)
    store = open_store(args.db)
    try:
        runner = DurableRunner(store, on_step=_progress(console), max_workers=args.workers)
        graph, module = _thread_graph(runner, args)
        runner.handlers = dict(getattr(module, "handlers", {}))
        started = time.perf_counter()
        try:
            dx = runner.recover(graph, args.thread)
        except (RecoveryError, CodecError) as e:
            raise UsageError(f"cannot recover thread {args.thread!r}: {e}") from e
        with dx:
            ex = dx.execution
            if args.value is not None:
                if ex.status is not Status.SUSPENDED:
                    raise UsageError(
                        f"thread {args.thread!r} is {ex.status.value}, not waiting for an "
                        f"answer: resume it without --value"
                    )
                try:
                    dx.resume(value, args.activation, expected_step=args.expected_step)
                except (StaleResumeError, UnknownInterruptError) as e:
                    raise UsageError(str(e)) from e
            elif ex.failure is not None and args.retry:
                dx.retry_failed()
            else:
                dx.run()
        return _report(graph, module, ex, time.perf_counter() - started, args.json, console)
    finally:
        store.close()


def _resume_command(value: Any) -> Any:
    """``Command(resume=value)`` of the façade the target was written against."""
    for name in ("langgraph.types", "superstep_compat.types"):
        try:
            return importlib.import_module(name).Command(resume=value)
        except ImportError:
            continue
    raise UsageError("resuming a LangGraph-style graph needs superstep_compat installed")


def cmd_history(args: argparse.Namespace, console: Console) -> int:
    store = open_store(args.db)
    try:
        try:
            entries = DurableRunner(store).history(args.thread)
        except UnknownThreadError:
            raise UsageError(f"no thread {args.thread!r} in {args.db or DEFAULT_DB}") from None
    finally:
        store.close()
    if args.json:
        rows = [
            {
                "step": e.step,
                "checkpoint_id": e.checkpoint_id,
                "source": e.source,
                "status": e.status,
                "written": list(e.written),
                "actor": e.actor,
                "permission": e.permission,
                "timestamp": e.timestamp,
            }
            for e in entries
        ]
        sys.stdout.buffer.write(to_json(rows) + b"\n")
        return 0
    for e in entries:
        line = f"superstep {e.step:>4}  {e.source:<5}  {e.status:<19}"
        if e.written:
            line += f"  wrote {', '.join(e.written)}"
        if e.actor is not None:
            line += f"  by {e.actor} ({e.permission}) at {e.timestamp}"
        sys.stdout.write(line.rstrip() + "\n")
    return 0


def cmd_replay(args: argparse.Namespace, console: Console) -> int:
    store = open_store(args.db)
    try:
        runner = DurableRunner(store)
        graph, _ = _thread_graph(runner, args)
        report = runner.replay(graph, args.thread)
    finally:
        store.close()
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
    obj, _ = load_target(args.target)
    if isinstance(obj, CompiledGraph):
        text = to_mermaid(obj) if args.format == "mermaid" else to_dot(obj)
    elif callable(getattr(obj, "get_graph", None)):
        drawing = obj.get_graph()
        text = drawing.draw_mermaid() if args.format == "mermaid" else _lc_dot(drawing)
    else:
        raise UsageError(f"{args.target!r} is a {type(obj).__name__}, not a graph")
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def _lc_dot(drawing: Any) -> str:
    lines = ["digraph {"]
    for edge in drawing.edges:
        style = " [style=dashed]" if edge.conditional else ""
        lines.append(f'  "{edge.source}" -> "{edge.target}"{style};')
    lines.append("}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="superstep", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    db_help = f"SQLite file or postgresql:// URL (default {DEFAULT_DB})"
    run = sub.add_parser("run", help="run a graph to completion (or until it waits)")
    run.add_argument("target", help="path/to/file.py:attr or module:attr")
    run.add_argument("--input", help="the input, as JSON")
    run.add_argument("--json", action="store_true", help="print the final result as JSON")
    run.add_argument("--workers", type=int, default=8, help="effects performed at once (default 8)")
    run.add_argument(
        "--max-supersteps",
        type=int,
        default=DEFAULT_MAX_SUPERSTEPS,
        help=f"stop an engine graph after N supersteps (default {DEFAULT_MAX_SUPERSTEPS:,}; "
        "0: no limit)",
    )
    run.add_argument("--thread", help="persist the run as this thread (resumable)")
    run.add_argument("--db", help=db_help)
    run.add_argument("--stream", help="LangGraph-style graphs: print stream chunks of MODE[,MODE]")
    run.set_defaults(handler=cmd_run)
    resume = sub.add_parser("resume", help="continue a thread, or answer its interrupt")
    resume.add_argument("--thread", required=True)
    resume.add_argument(
        "--workers", type=int, default=8, help="effects performed at once (default 8)"
    )
    resume.add_argument("--value", help="the answer to the pending interrupt, as JSON")
    resume.add_argument("--activation", help="which suspended activation --value answers")
    resume.add_argument("--expected-step", type=int, help="fail if the thread moved past it")
    resume.add_argument("--retry", action="store_true", help="run a failed superstep again")
    resume.add_argument("--target", help="the graph, if not the one recorded with the thread")
    resume.add_argument("--json", action="store_true", help="print the final result as JSON")
    resume.add_argument("--db", help=db_help)
    resume.set_defaults(handler=cmd_resume)
    history = sub.add_parser("history", help="list a thread's supersteps")
    history.add_argument("--thread", required=True)
    history.add_argument("--json", action="store_true", help="print the list as JSON")
    history.add_argument("--db", help=db_help)
    history.set_defaults(handler=cmd_history)
    replay = sub.add_parser("replay", help="replay a thread from its input log and compare")
    replay.add_argument("--thread", required=True)
    replay.add_argument("--target", help="the graph, if not the one recorded with the thread")
    replay.add_argument("--db", help=db_help)
    replay.set_defaults(handler=cmd_replay)
    graph = sub.add_parser("graph", help="print a diagram of a graph")
    graph.add_argument("target", help="path/to/file.py:attr or module:attr")
    graph.add_argument("--format", choices=["mermaid", "dot"], default="mermaid")
    graph.set_defaults(handler=cmd_graph)
    return parser


def load_plugins() -> None:
    """Run the ``superstep.plugins`` entry points (``superstep_compat`` registers one that
    makes ``import langgraph`` load the façade), so targets written against LangGraph load."""
    for entry in entry_points(group="superstep.plugins"):
        try:
            entry.load()()
        except Exception as e:  # a broken plugin must not break the command line
            print(f"superstep: warning: plugin {entry.name!r} failed: {e}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``superstep`` console script; returns the exit status."""
    load_plugins()
    parser = build_parser()
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    try:
        status: int = args.handler(args, console)
    except UsageError as e:
        print(f"superstep: error: {e}", file=sys.stderr)
        return 2
    except SuperstepLimitError as e:
        print(f"superstep: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("superstep: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
