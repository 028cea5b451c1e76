"""The ``superstep`` command line.

    superstep run TARGET [--input JSON] [--json]
    superstep graph TARGET [--format mermaid|dot]

TARGET is ``path/to/file.py:attr`` or ``package.module:attr`` (as in a ``langgraph.json``).
The attribute is a compiled engine graph (or a `Graph`, compiled on load), or any object
with ``invoke`` (a LangGraph-style compiled graph). For an engine graph the module may
define ``handlers`` (effect kind -> handler), ``default_input()`` (the input used when
``--input`` is not given) and ``summary(values) -> str`` (the closing report).

Exit status: 0 on success, 1 when the execution failed, 2 on bad usage: a target that
cannot be loaded, input that is not JSON, or a node failing with error type ``InputError``
(the convention for "the input names something that does not exist").
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson
from rich.console import Console

from superstep_core.graph import CompiledGraph, Graph
from superstep_core.host import Host
from superstep_core.runtime import Execution, StepOutcome
from superstep_core.visualise import to_dot, to_mermaid

__all__ = ["main"]

INPUT_ERROR = "InputError"


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
        obj = obj.compile()
    return obj, module


def parse_input(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as e:
        raise UsageError(f"--input is not valid JSON: {e}") from e


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
    graph: CompiledGraph, module: ModuleType, payload: Any, *, as_json: bool, console: Console
) -> int:
    if payload is None and callable(getattr(module, "default_input", None)):
        payload = module.default_input()
    host = Host(getattr(module, "handlers", {}), on_step=_progress(console))
    started = time.perf_counter()
    with host:
        ex = host.run_graph(graph, payload=payload)
    elapsed = time.perf_counter() - started
    status = ex.status
    console.print(
        f"[bold]{graph.identity}[/bold] {status.value} after {ex.step} supersteps "
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
    if ex.failure is not None:
        f = ex.failure
        line = f"error: node {f.node!r} failed: {f.error_type}: {f.message}"
        console.print(line, highlight=False, markup=False, soft_wrap=True)
        if as_json:
            sys.stdout.buffer.write(to_json(_result(ex)) + b"\n")
        return 2 if f.error_type == INPUT_ERROR else 1
    if as_json:
        sys.stdout.buffer.write(to_json(_result(ex)) + b"\n")
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
        return run_engine_graph(obj, module, payload, as_json=args.json, console=console)
    if callable(getattr(obj, "invoke", None)):
        result = obj.invoke(payload)
        if args.json:
            sys.stdout.buffer.write(to_json(result) + b"\n")
        else:
            console.print(_summary(result, 2000), highlight=False, markup=False, soft_wrap=True)
        return 0
    raise UsageError(
        f"{args.target!r} is a {type(obj).__name__}, not a graph (expected a CompiledGraph, "
        f"a Graph, or an object with invoke())"
    )


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
    run = sub.add_parser("run", help="run a graph to completion (or until it waits)")
    run.add_argument("target", help="path/to/file.py:attr or module:attr")
    run.add_argument("--input", help="the input, as JSON")
    run.add_argument("--json", action="store_true", help="print the final result as JSON")
    run.set_defaults(handler=cmd_run)
    graph = sub.add_parser("graph", help="print a diagram of a graph")
    graph.add_argument("target", help="path/to/file.py:attr or module:attr")
    graph.add_argument("--format", choices=["mermaid", "dot"], default="mermaid")
    graph.set_defaults(handler=cmd_graph)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``superstep`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    try:
        status: int = args.handler(args, console)
    except UsageError as e:
        print(f"superstep: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("superstep: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
