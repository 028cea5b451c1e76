"""Engine graphs on the ``superstep`` command line: running one (in memory or as a durable
thread), continuing a thread, progress lines and the closing report.

Must never import compat.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from rich.console import Console

from superstep_core.cli_db import CliDatabase
from superstep_core.cli_support import (
    UsageError,
    asked,
    failure_json,
    failure_line,
    redact,
    summarise,
    to_json,
)
from superstep_core.errors import StaleResumeError, UnknownInterruptError
from superstep_core.graph import CompiledGraph
from superstep_core.host import EffectContext, Handler, Host
from superstep_core.host.durable import DurableRunner, RecoveryError
from superstep_core.host.sync import limit_error
from superstep_core.persistence import CodecError
from superstep_core.runtime import Execution, Status, StepOutcome

__all__ = [
    "INPUT_ERROR",
    "effect_ticker",
    "progress",
    "report",
    "resume_engine_thread",
    "run_durable",
    "run_engine_graph",
]

INPUT_ERROR = "InputError"


def _print(console: Console, text: str, style: str | None = None) -> None:
    console.print(text, style=style, highlight=False, markup=False, soft_wrap=True)


def progress(
    console: Console, limit: int | None = None
) -> Callable[[Execution, StepOutcome], None]:
    """A step callback printing one line per superstep; with ``limit``, raising
    `SuperstepLimitError` (naming the cycle) after that many supersteps of this process."""
    recent: list[StepOutcome] = []

    def report(ex: Execution, outcome: StepOutcome) -> None:
        if not outcome.committed:
            _print(console, f"superstep {outcome.step}: failed", "red")
            return
        nodes = Counter(aid.rsplit(":", 1)[0] for aid, _ in outcome.delivered)
        who = ", ".join(f"{n} x{c}" if c > 1 else n for n, c in sorted(nodes.items()))
        extra = f", {len(outcome.effects)} effects" if outcome.effects else ""
        wrote = f", wrote {', '.join(outcome.written)}" if outcome.written else ""
        _print(console, f"superstep {outcome.step}: {who}{extra}{wrote}")
        if limit is not None:
            recent.append(outcome)
            if len(recent) > limit and ex.queue:
                raise limit_error(ex, limit, recent[-64:])

    return report


@contextmanager
def effect_ticker(
    console: Console, handlers: Mapping[str, Handler], every: float = 2.0
) -> Iterator[dict[str, Handler]]:
    """``handlers`` wrapped to count completed effects, and a thread that prints how many
    are done every ``every`` seconds while any run (a superstep of 1,800 reads is otherwise
    silent for many seconds)."""
    done = [0]
    lock = threading.Lock()
    stop = threading.Event()

    def counted(handler: Handler) -> Handler:
        def run(request: Any, ctx: EffectContext) -> Any:
            try:
                return handler(request, ctx)
            finally:
                with lock:
                    done[0] += 1

        return run

    def tick() -> None:
        shown = 0
        while not stop.wait(every):
            with lock:
                now = done[0]
            if now != shown:
                _print(console, f"  ... {now:,} effects done", "dim")
                shown = now

    ticker = threading.Thread(target=tick, name="superstep-progress", daemon=True)
    ticker.start()
    try:
        yield {kind: counted(h) for kind, h in handlers.items()}
    finally:
        stop.set()
        ticker.join()


def run_engine_graph(
    graph: CompiledGraph,
    module: ModuleType,
    payload: Any,
    *,
    as_json: bool,
    console: Console,
    max_supersteps: int | None,
) -> int:
    """Run ``graph`` in memory (no thread) and report; returns the exit status."""
    started = time.perf_counter()
    with effect_ticker(console, getattr(module, "handlers", {})) as handlers:
        host = Host(handlers, on_step=progress(console), max_supersteps=max_supersteps or None)
        with host:
            ex = host.run_graph(graph, payload=payload)
    return report(graph, module, ex, time.perf_counter() - started, as_json, console)


def run_durable(
    graph: CompiledGraph,
    module: ModuleType,
    payload: Any,
    args: argparse.Namespace,
    console: Console,
    db: CliDatabase,
) -> int:
    """Start thread ``args.thread`` of ``graph`` in ``db`` and run it; the caller holds the
    thread's lease."""
    started = time.perf_counter()
    metadata = {"target": args.target, "graph": graph.identity}
    with effect_ticker(console, getattr(module, "handlers", {})) as handlers:
        runner = _runner(db, handlers, args, console)
        try:
            with runner.start(graph, args.thread, payload=payload, metadata=metadata) as dx:
                ex = dx.run()
        except CodecError as e:
            raise UsageError(f"cannot persist thread {args.thread!r}: {e}") from e
    return report(graph, module, ex, time.perf_counter() - started, args.json, console, args)


def _runner(
    db: CliDatabase, handlers: Mapping[str, Handler], args: argparse.Namespace, console: Console
) -> DurableRunner:
    limit = getattr(args, "max_supersteps", None) or None
    return DurableRunner(
        db.saver(),
        handlers,
        on_step=progress(console, limit),
        max_workers=args.workers,
        leases=db.leases(),
        owner=db.owner,
    )


def resume_engine_thread(
    graph: CompiledGraph,
    module: ModuleType,
    value: Any,
    args: argparse.Namespace,
    console: Console,
    db: CliDatabase,
) -> int:
    """Continue thread ``args.thread``: answer its interrupt (``--value``), run its failed
    superstep again (``--retry``) or carry on; the caller holds the thread's lease."""
    started = time.perf_counter()
    with effect_ticker(console, getattr(module, "handlers", {})) as handlers:
        runner = _runner(db, handlers, args, console)
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
            else:
                if args.activation is not None:
                    raise UsageError(
                        "--activation names the interrupt --value answers: add --value"
                    )
                if args.expected_step is not None and args.expected_step != ex.step:
                    raise UsageError(
                        f"thread {args.thread!r} is at superstep {ex.step}, not "
                        f"{args.expected_step}: it moved since you looked"
                    )
                if ex.failure is not None and args.retry:
                    dx.retry_failed()
                else:
                    dx.run()
    return report(graph, module, ex, time.perf_counter() - started, args.json, console, args)


def _command(args: argparse.Namespace, *rest: str) -> str:
    db = f" --db {shlex.quote(redact(args.db))}" if args.db else ""
    return f"superstep resume --thread {shlex.quote(args.thread)}{db} {' '.join(rest)}".rstrip()


def report(
    graph: CompiledGraph,
    module: ModuleType,
    ex: Execution,
    elapsed: float,
    as_json: bool,
    console: Console,
    args: argparse.Namespace | None = None,
) -> int:
    """Print the closing report (and the result as JSON); returns the exit status. With the
    ``args`` of a durable thread, a pending interrupt and a failed superstep come with the
    exact command that continues the thread."""
    _print(
        console, f"{graph.identity} {ex.status.value} after {ex.step} supersteps in {elapsed:.2f} s"
    )
    summarise_values = getattr(module, "summary", None)
    if callable(summarise_values):
        _print(console, str(summarise_values(ex.values)))
    else:
        for name, value in ex.values.items():
            _print(console, f"  {name}: {summarise(value)}")
    for activation, value in ex.interrupts:
        _print(console, f"waiting: {activation} asks {asked(value)}")
        if args is not None and args.thread is not None:
            which = f"--activation {activation} " if len(ex.interrupts) > 1 else ""
            _print(console, f"  answer with: {_command(args, which + '--value JSON')}")
        else:
            _print(console, "  (run it with --thread ID to answer it later with superstep resume)")
    if as_json:
        sys.stdout.buffer.write(to_json(_result(ex)) + b"\n")
    if ex.failure is not None:
        f = ex.failure
        _print(console, failure_line(f))
        if args is not None and args.thread is not None and f.step == ex.step + 1:
            _print(
                console,
                f"superstep {f.step} committed nothing; run it again once the cause is fixed: "
                f"{_command(args, '--retry')}",
            )
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
        "failure": failure_json(ex.failure),
    }
