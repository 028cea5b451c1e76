"""The ``superstep`` command line.

    superstep run TARGET [--input JSON] [--json] [--thread ID [--db PATH|URL]]
                         [--stream MODE[,MODE]]
    superstep resume --thread ID [--value JSON | --retry] [--json] [--db PATH|URL]
    superstep history --thread ID [--json] [--db PATH|URL]
    superstep replay --thread ID [--db PATH|URL]
    superstep graph TARGET [--format mermaid|dot]
    superstep run plan.json --handlers module:attr ...  # a DAG plan: see superstep_core.cli_plan
    superstep plan status plan.json --state state.json [--json]

With ``--thread`` an engine graph's execution is durable: every superstep is checkpointed to
``.superstep/superstep.db`` (SQLite; ``--db PATH`` for another file, ``--db postgresql://...``
for PostgreSQL), so ``resume`` continues it after its process died, answers its pending
interrupt with ``--value``, or with ``--retry`` runs a superstep that failed again; ``history``
lists its supersteps (failed ones too); ``replay`` rebuilds it from its input log, calling
nothing external, and reports whether it matched. For a LangGraph-style graph, ``--thread`` is
its ``thread_id``; one compiled without a checkpointer is given a SQLite saver on ``--db``, so
``resume`` and ``history`` work on its threads too (see `superstep_core.cli_facade`), and
``--stream`` prints its ``stream()`` chunks, one per line.

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
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

from rich.console import Console

from superstep_core.cli_facade import (
    facade_history,
    has_facade_thread,
    is_facade,
    lc_dot,
    resume_facade,
    run_facade,
    thread_target,
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
    load_target,
    open_store,
    parse_json,
    summarise,
    to_json,
)
from superstep_core.errors import StaleResumeError, SuperstepLimitError, UnknownInterruptError
from superstep_core.graph import CompiledGraph
from superstep_core.host import Host
from superstep_core.host.durable import DurableRunner, RecoveryError, UnknownThreadError
from superstep_core.persistence import CodecError
from superstep_core.plan import is_plan_document
from superstep_core.runtime import Execution, Status, StepOutcome
from superstep_core.visualise import to_dot, to_mermaid

__all__ = ["main", "to_json"]

INPUT_ERROR = "InputError"


DEFAULT_MAX_SUPERSTEPS = 100_000


# --- engine graphs -------------------------------------------------------------------------


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
    args: argparse.Namespace | None = None,
) -> int:
    """Print the closing report (and the result as JSON); returns the exit status. With the
    ``args`` of a durable thread, a failed superstep's report says how to run it again."""
    console.print(
        f"[bold]{graph.identity}[/bold] {ex.status.value} after {ex.step} supersteps "
        f"in {elapsed:.2f} s",
        highlight=False,
        soft_wrap=True,
    )
    summarise_values = getattr(module, "summary", None)
    if callable(summarise_values):
        console.print(summarise_values(ex.values), highlight=False, markup=False, soft_wrap=True)
    else:
        for name, value in ex.values.items():
            console.print(
                f"  {name}: {summarise(value)}", highlight=False, markup=False, soft_wrap=True
            )
    for activation, value in ex.interrupts:
        line = f"waiting: {activation} asks {summarise(value)} (answer with resume --value JSON)"
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    if as_json:
        sys.stdout.buffer.write(to_json(_result(ex)) + b"\n")
    if ex.failure is not None:
        f = ex.failure
        line = f"error: node {f.node!r} failed: {f.error_type}: {f.message}"
        console.print(line, highlight=False, markup=False, soft_wrap=True)
        if args is not None and f.step == ex.step + 1:  # nothing committed: it can run again
            db = f" --db {args.db}" if args.db else ""
            hint = (
                f"superstep {f.step} committed nothing; run it again once the cause is fixed: "
                f"superstep resume --thread {args.thread}{db} --retry"
            )
            console.print(hint, highlight=False, markup=False, soft_wrap=True)
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
    if is_json_target(args.target):  # a JSON document, told apart by its top-level keys
        doc = read_json_target(args.target)
        if is_plan_document(doc):
            return run_plan(doc, args, console)
        raise UsageError(f'{args.target} is not a plan document (an object with only "steps")')
    obj, module = load_target(args.target)
    payload = parse_json(args.input, "--input")
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
    if is_facade(obj):
        if payload is None and callable(getattr(module, "default_input", None)):
            payload = module.default_input()
        return run_facade(obj, payload, args, console, target=args.target)
    raise UsageError(
        f"{args.target!r} is a {type(obj).__name__}, not a graph (expected a CompiledGraph, "
        f"a Graph, or an object with invoke())"
    )


# --- durable threads -----------------------------------------------------------------------


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
        metadata = {"target": absolute_target(args.target), "graph": graph.identity}
        try:
            with runner.start(graph, args.thread, payload=payload, metadata=metadata) as dx:
                ex = dx.run()
        except CodecError as e:
            raise UsageError(f"cannot persist thread {args.thread!r}: {e}") from e
        elapsed = time.perf_counter() - started
        return _report(graph, module, ex, elapsed, args.json, console, args)
    finally:
        store.close()


def _no_thread(args: argparse.Namespace) -> UsageError:
    return UsageError(
        f"no thread {args.thread!r} in {args.db or DEFAULT_DB} (a graph that keeps its "
        "threads in a saver of its own: pass --target FILE.py:graph, or --db the saver's file)"
    )


def _thread_graph(
    runner: DurableRunner, args: argparse.Namespace
) -> tuple[CompiledGraph, ModuleType]:
    try:
        metadata = runner.latest_metadata(args.thread)
    except UnknownThreadError:
        raise _no_thread(args) from None
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
        if is_facade(obj):
            # A LangGraph-style graph keeps its threads in a checkpointer: answer the pending
            # interrupt (or continue) through invoke, as LangGraph does.
            return resume_facade(obj, value, args, console, target=args.target)
    store = open_store(args.db)
    try:
        runner = DurableRunner(store, on_step=_progress(console), max_workers=args.workers)
        if (recorded := plan_thread(runner, args.thread)) is not None:
            return resume_plan(runner, recorded, args, console)
        if runner.exists(args.thread):
            return _resume_engine_thread(runner, value, args, console)
    finally:
        store.close()
    return _resume_facade_thread(value, args, console)


def _resume_engine_thread(
    runner: DurableRunner, value: Any, args: argparse.Namespace, console: Console
) -> int:
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
    return _report(graph, module, ex, time.perf_counter() - started, args.json, console, args)


def _resume_facade_thread(value: Any, args: argparse.Namespace, console: Console) -> int:
    """Resume a LangGraph-style thread the CLI keeps in ``--db`` (no engine thread there)."""
    if not has_facade_thread(args.db, args.thread):
        raise _no_thread(args)
    target = thread_target(args.db, args.thread)
    if target is None:
        raise UsageError(
            f"thread {args.thread!r} is a LangGraph-style thread with no recorded target: "
            f"pass --target"
        )
    obj, _ = load_target(target)
    if not is_facade(obj):
        raise UsageError(f"{target!r} is a {type(obj).__name__}, not a LangGraph-style graph")
    return resume_facade(obj, value, args, console, target=target)


def cmd_history(args: argparse.Namespace, console: Console) -> int:
    store = open_store(args.db)
    try:
        rows = _history_rows(DurableRunner(store).history(args.thread))
    except UnknownThreadError:
        rows = None
    finally:
        store.close()
    if rows is None:
        rows = facade_history(args.db, args.thread, lambda t: load_target(t)[0], args.target)
        if not rows:
            raise _no_thread(args)
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
    store = open_store(args.db)
    try:
        runner = DurableRunner(store)
        if not runner.exists(args.thread) and has_facade_thread(args.db, args.thread):
            raise UsageError(
                f"thread {args.thread!r} is a LangGraph-style thread (kept by a SqliteSaver): "
                f"replay rebuilds engine threads from their input log; list it with "
                f"`superstep history --thread {args.thread}`"
            )
        if (recorded := plan_thread(runner, args.thread)) is not None:
            graph = replay_graph(recorded, args.thread).graph
        else:
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
        text = drawing.draw_mermaid() if args.format == "mermaid" else lc_dot(drawing)
    else:
        raise UsageError(f"{args.target!r} is a {type(obj).__name__}, not a graph")
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


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
    add_plan_run_options(run)
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
    resume.add_argument("--handlers", help="plan threads: handlers other than the recorded ones")
    resume.set_defaults(handler=cmd_resume)
    history = sub.add_parser("history", help="list a thread's supersteps")
    history.add_argument("--thread", required=True)
    history.add_argument("--json", action="store_true", help="print the list as JSON")
    history.add_argument(
        "--target", help="LangGraph-style threads: the graph, if not the one recorded"
    )
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
    add_plan_commands(sub)
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
