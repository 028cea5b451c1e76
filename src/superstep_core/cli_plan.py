"""DAG plans on the ``superstep`` command line.

    superstep run plan.json --handlers module:attr [--thread ID [--db PATH|URL]]
                            [--compensate] [--max-cost-minor N] [--json]
    superstep resume --thread ID          # a plan thread: continues it, no step performed twice
    superstep plan status plan.json --state state.json [--max-cost-minor N] [--json]

A ``.json`` target whose top-level keys are exactly ``steps`` is a plan
(`superstep_core.plan.is_plan_document`). ``--handlers`` names a mapping of step kind ->
``handler(request, ctx)`` (``path/file.py:attr`` or ``module:attr``). With ``--thread`` the
run is durable: its checkpoints record the plan file and the handlers (each with a SHA-256 of
its file) and the options, so ``superstep resume --thread ID`` rebuilds the same graph, and
refuses when either file changed (``resume --handlers`` names other handlers on purpose).

Exit status: 0 when the plan succeeded, 1 when it failed or is blocked (or the engine failed),
2 on bad usage: an unreadable or invalid plan (a cycle, a float estimate), unknown handler
kinds, a plan or handlers file changed under a thread. ``plan status`` exits 0 whatever the
status it reports.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console
from rich.table import Table

from superstep_core.cli_support import (
    DEFAULT_DB,
    UsageError,
    absolute_target,
    failure_json,
    failure_line,
    load_target,
    open_db_saver,
    to_json,
    whole_number_at_least,
)
from superstep_core.cli_trust import remember, trusted
from superstep_core.host import Host
from superstep_core.host.durable import DurableRunner, RecoveryError
from superstep_core.persistence import CodecError
from superstep_core.plan import (
    StateError,
    StatusReport,
    Workflow,
    WorkflowError,
    validate_workflow,
    workflow_status,
)
from superstep_core.plan.runner import OUTCOMES, STARTED, PlanGraph, plan_graph, plan_outcomes
from superstep_core.runtime import Execution, StepOutcome

__all__ = [
    "PLAN_KEY",
    "add_plan_commands",
    "add_plan_run_options",
    "is_json_target",
    "plan_thread",
    "read_json_target",
    "replay_graph",
    "resume_plan",
    "run_plan",
]

PLAN_KEY = "plan"
"""Checkpoint metadata key of a plan thread: ``{"path", "sha256", "handlers",
"handlers_sha256", "compensate", "max_cost_minor"}``."""


# --- reading ------------------------------------------------------------------------------


def is_json_target(target: str) -> bool:
    """A target naming a JSON document (a plan, or another JSON document), not code."""
    return target.endswith(".json")


def read_json_target(path: str) -> Any:
    """The JSON document in file ``path``; `UsageError` (one line) if unreadable or not JSON."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as e:
        raise UsageError(f"{path} is not valid JSON: {e}") from None


def _workflow(doc: Any, path: str) -> Workflow:
    try:
        return validate_workflow(doc)
    except WorkflowError as e:
        raise UsageError(f"{path}: {e}") from None


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _handlers_file(spec: str) -> Path | None:
    """The source file a handlers target is loaded from (``None``: not found)."""
    where = spec.rpartition(":")[0]
    if where.endswith(".py") or "/" in where or "\\" in where:
        return Path(where)
    try:
        found = importlib.util.find_spec(where)
    except (ImportError, ValueError):
        return None
    return Path(found.origin) if found is not None and found.origin else None


def _handlers(spec: str) -> Mapping[str, Any]:
    obj, _ = load_target(spec)
    if not isinstance(obj, Mapping):
        raise UsageError(
            f"--handlers {spec}: expected a mapping of step kind -> handler(request, ctx), got "
            f"a {type(obj).__name__}"
        )
    return obj


def _compile(
    workflow: Workflow, handlers: Mapping[str, Any], path: str, options: Mapping[str, Any]
) -> PlanGraph:
    try:
        return plan_graph(
            workflow,
            handlers,
            compensate=bool(options.get("compensate")),
            max_cost_minor=options.get("max_cost_minor"),
        )
    except WorkflowError as e:
        raise UsageError(f"{path}: {e}") from None


# --- run ----------------------------------------------------------------------------------


def add_plan_run_options(run: argparse.ArgumentParser) -> None:
    """The options ``superstep run`` takes for a plan target."""
    run.add_argument("--handlers", help="plans: step kind -> handler mapping, as module:attr")
    run.add_argument(
        "--compensate", action="store_true", help="plans: undo a failed run's succeeded steps"
    )
    run.add_argument(
        "--max-cost-minor",
        type=whole_number_at_least(0),
        help="plans: the budget ceiling, in minor units",
    )


def run_plan(doc: Any, args: argparse.Namespace, console: Console) -> int:
    """``superstep run plan.json``: the plan ``doc`` read from ``args.target``."""
    path = args.target
    for option, given in (("--input", args.input), ("--stream", args.stream)):
        if given is not None:
            raise UsageError(f"{option} is not for plans: a plan's steps take their own input")
    if not args.handlers:
        raise UsageError(
            f"{path} is a plan: name its handlers with --handlers module:attr (a mapping of "
            f"step kind -> handler(request, ctx))"
        )
    workflow = _workflow(doc, path)
    options = {"compensate": args.compensate, "max_cost_minor": args.max_cost_minor}
    pg = _compile(workflow, _handlers(args.handlers), path, options)
    started = time.perf_counter()
    if args.thread is None:
        if args.db is not None:
            raise UsageError("--db needs --thread ID (the thread to persist)")
        host = Host(
            pg.handlers,
            on_step=_progress(console),
            max_workers=args.workers,
            max_supersteps=args.max_supersteps or None,
        )
        with host:
            ex = host.run_graph(pg.graph)
        return _report(pg, ex, time.perf_counter() - started, args, console)
    handlers_file = _handlers_file(args.handlers)
    recorded = {
        "path": str(Path(path).resolve()),
        "sha256": _sha256(Path(path)),
        "handlers": absolute_target(args.handlers),
        "handlers_sha256": None if handlers_file is None else _sha256(handlers_file),
        **options,
    }
    remember(recorded["handlers"], recorded["handlers_sha256"])  # the user named them
    saver = open_db_saver(args.db)
    try:
        runner = DurableRunner(
            saver, pg.handlers, on_step=_progress(console), max_workers=args.workers
        )
        if runner.exists(args.thread):
            raise UsageError(
                f"thread {args.thread!r} already exists in {args.db or DEFAULT_DB}: continue "
                f"it with `superstep resume --thread {args.thread}`, or pick another id"
            )
        metadata = {PLAN_KEY: recorded, "graph": pg.graph.identity}
        try:
            with runner.start(pg.graph, args.thread, metadata=metadata) as dx:
                ex = dx.run()
        except CodecError as e:
            raise UsageError(f"cannot persist thread {args.thread!r}: {e}") from None
        return _report(pg, ex, time.perf_counter() - started, args, console)
    finally:
        saver.close()


# --- resume and replay --------------------------------------------------------------------


def plan_thread(runner: DurableRunner, thread: str) -> Mapping[str, Any] | None:
    """What a plan thread recorded (`PLAN_KEY`), or ``None`` for no thread or another kind."""
    if not runner.exists(thread):
        return None
    recorded = runner.latest_metadata(thread).get(PLAN_KEY)
    return recorded if isinstance(recorded, Mapping) else None


def _recorded_graph(
    recorded: Mapping[str, Any], thread: str, handlers: str | None = None
) -> PlanGraph:
    path = Path(str(recorded["path"]))
    if not path.is_file():
        raise UsageError(f"thread {thread!r} runs plan {path}, which no longer exists")
    if _sha256(path) != recorded["sha256"]:
        raise UsageError(
            f"thread {thread!r} runs plan {path}, which changed since the thread started: "
            f"restore it, or start a new thread"
        )
    spec = handlers or str(recorded["handlers"])
    if handlers is None and not trusted(spec, recorded.get("handlers_sha256")):
        raise UsageError(  # the database never chooses code
            f"thread {thread!r} names handlers {spec}, which were not given to a run from "
            f"this machine's command line by this user (the database may come from elsewhere, "
            f"or have been edited): check them, then name them with --handlers"
        )
    if handlers is None and recorded.get("handlers_sha256") is not None:
        source = _handlers_file(spec)
        if source is None or not source.is_file() or _sha256(source) != recorded["handlers_sha256"]:
            raise UsageError(
                f"thread {thread!r}: handlers {spec} changed (or are gone) since the thread "
                f"started; restore them, or name the handlers to use with --handlers"
            )
    workflow = _workflow(read_json_target(str(path)), str(path))
    return _compile(workflow, _handlers(spec), str(path), recorded)


def resume_plan(
    runner: DurableRunner, recorded: Mapping[str, Any], args: argparse.Namespace, console: Console
) -> int:
    """``superstep resume --thread ID`` of a plan thread: recover it from its last checkpoint
    and run it on; steps whose effects completed are never performed again."""
    for option, given in (
        ("--value", args.value),
        ("--activation", args.activation),
        ("--expected-step", args.expected_step),
        ("--target", args.target),
    ):
        if given is not None:
            raise UsageError(
                f"{option} is not for plan threads: thread {args.thread!r} runs a plan, which "
                f"has no interrupts and records its own plan and handlers"
            )
    pg = _recorded_graph(recorded, args.thread, getattr(args, "handlers", None))
    runner.handlers = dict(pg.handlers)
    started = time.perf_counter()
    try:
        dx = runner.recover(pg.graph, args.thread)
    except (RecoveryError, CodecError) as e:
        raise UsageError(f"cannot recover thread {args.thread!r}: {e}") from None
    with dx:
        try:
            if dx.execution.failure is not None and args.retry:
                ex = dx.retry_failed()
            else:
                ex = dx.run()
        except CodecError as e:
            raise UsageError(f"cannot persist thread {args.thread!r}: {e}") from None
    return _report(pg, ex, time.perf_counter() - started, args, console)


def replay_graph(recorded: Mapping[str, Any], thread: str) -> PlanGraph:
    """The graph a plan thread ran (for ``superstep replay``); nothing is performed."""
    return _recorded_graph(recorded, thread)


# --- plan status --------------------------------------------------------------------------


def add_plan_commands(sub: Any) -> None:
    """Register ``superstep plan status`` on the top-level subparsers ``sub``."""
    plan = sub.add_parser("plan", help="DAG plans: where a plan run stands")
    plan_sub = plan.add_subparsers(dest="plan_command", required=True)
    status = plan_sub.add_parser("status", help="the status of a plan in a given state")
    status.add_argument("plan", help="the plan document (JSON)")
    status.add_argument(
        "--state",
        required=True,
        help='JSON file {"succeeded": [...], "failed": [...], "in_flight": [...]}',
    )
    status.add_argument(
        "--max-cost-minor", type=whole_number_at_least(0), help="the budget ceiling, in minor units"
    )
    status.add_argument("--json", action="store_true", help="print the report as JSON")
    status.set_defaults(handler=cmd_plan_status)


def cmd_plan_status(args: argparse.Namespace, console: Console) -> int:
    workflow = _workflow(read_json_target(args.plan), args.plan)
    state = read_json_target(args.state)
    try:
        report = workflow_status(workflow, state, max_cost_minor=args.max_cost_minor)
    except StateError as e:
        raise UsageError(f"{args.state}: {e}") from None
    except WorkflowError as e:
        raise UsageError(f"--max-cost-minor: {e}") from None
    if args.json:
        sys.stdout.buffer.write(to_json(report.as_document()) + b"\n")
        return 0
    out = Console(file=sys.stdout, width=None if sys.stdout.isatty() else 120)
    _print_report(out, workflow, report, {})
    return 0


# --- reporting ----------------------------------------------------------------------------


def _progress(console: Console) -> Callable[[Execution, StepOutcome], None]:
    def report(ex: Execution, outcome: StepOutcome) -> None:
        if not outcome.committed:
            console.print(f"[dim]superstep {outcome.step}[/dim]: [red]failed[/red]")
            return
        started = ex.values.get(STARTED) or {}
        outcomes = ex.values.get(OUTCOMES) or {}
        news = [f"{sid} {o['status']}" for sid, o in outcomes.items() if o["at"] == outcome.step]
        began = [sid for sid, at in started.items() if at == outcome.step]
        if began:
            news.append(f"started {', '.join(began)}")
        if news:
            line = f"[dim]superstep {outcome.step}[/dim]: {'; '.join(news)}"
            console.print(line, highlight=False, soft_wrap=True)

    return report


_STYLE = {
    "succeeded": "green",
    "failed": "red",
    "unreachable": "yellow",
    "in flight": "cyan",
    "ready": "cyan",
    "waiting": "dim",
}


def _print_report(
    console: Console,
    workflow: Workflow,
    report: StatusReport,
    outcomes: Mapping[str, Mapping[str, Any]],
) -> None:
    unreachable = {u.id: u for u in report.unreachable}
    place: dict[str, str] = {}
    for name, ids in (
        ("succeeded", report.succeeded),
        ("failed", report.failed),
        ("in flight", report.in_flight),
        ("ready", report.ready),
        ("waiting", report.waiting),
    ):
        place.update(dict.fromkeys(ids, name))
    place.update(dict.fromkeys(unreachable, "unreachable"))
    table = Table(title=None, show_lines=False)
    for column in ("step", "kind", "outcome", "detail"):
        table.add_column(column, overflow="fold")
    for sid in (*workflow.forward, *(s.id for s in workflow.steps if s.is_compensation)):
        step = workflow.by_id[sid]
        where = place[sid]
        detail = ""
        outcome = outcomes.get(sid)
        if where == "unreachable":
            detail = unreachable[sid].reason
        elif outcome is not None and outcome["status"] == "failed":
            detail = f"{outcome['error']['type']}: {outcome['error']['message']}"
        elif outcome is not None:
            detail = _brief(outcome.get("result"))
        if step.compensates is not None:
            undoes = f"compensates {step.compensates}"
            detail = f"{undoes}: {detail}" if detail else f"{undoes} (when a failed run is undone)"
        table.add_row(sid, step.kind, f"[{_STYLE[where]}]{where}[/]", detail)
    console.print(table)
    style = {"succeeded": "green", "failed": "red", "blocked": "yellow"}.get(report.status, "cyan")
    console.print(
        f"plan [bold {style}]{report.status}[/]: {report.reason}", highlight=False, soft_wrap=True
    )


def _brief(value: Any, limit: int = 72) -> str:
    text = to_json(value).decode()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _report(
    pg: PlanGraph, ex: Execution, elapsed: float, args: argparse.Namespace, console: Console
) -> int:
    report = pg.report(ex.values)
    outcomes = plan_outcomes(ex.values)
    console.print(
        f"[bold]{pg.graph.identity}[/bold]: {ex.step} supersteps in {elapsed:.2f} s",
        highlight=False,
    )
    _print_report(console, pg.workflow, report, outcomes)
    if pg.max_cost_minor is not None:
        console.print(
            f"budget: spent {report.spent_minor} of {pg.max_cost_minor} minor units",
            highlight=False,
        )
    if args.json:
        result = {
            "thread": args.thread,
            "report": report.as_document(),
            "outcomes": outcomes,
            "failure": failure_json(ex.failure),
        }
        sys.stdout.buffer.write(to_json(result) + b"\n")
    if ex.failure is not None:
        console.print(
            failure_line(ex.failure),
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        return 1
    return 0 if report.status == "succeeded" else 1
