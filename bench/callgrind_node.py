"""Instructions per node (valgrind callgrind), unaffected by the machine's load:

    .venv/bin/python bench/callgrind_node.py WORKLOAD [N] [--langgraph [PYTHON]]

WORKLOAD: ``engine`` (compute-node chain, `Execution.run_superstep`), ``host`` (the same
through the sync `Host`), ``oneshot`` (a chain of one-shot within-step effect nodes
through the sync `Host`: the façade's shape, without the façade), ``oneshot-engine`` (the
same chain, its effects answered by a bare loop: the interpreter's share), ``w01`` (w01_chain
through the façade's ``invoke``), or a workload file of the shared bench by its prefix
(``w07`` = w07_chain_memsaver, ``w08`` = w08_chain_sqlite, ``w01s`` = w01_chain; the folder is
$SHARED_BENCH, default ../shared/bench beside the repository), run as `make bench` runs it:
``langgraph`` imports the façade through bench/target. Runs the workload under callgrind once
with 1 warm call and once with 3, and prints (3 calls - 1 call) / 2 / N instructions per node:
building the graph, imports and the first (cold) call cancel out.

``--langgraph [PYTHON]`` also runs a shared workload (``w01`` means w01_chain there) on real
LangGraph, in PYTHON (default $SUPERSTEP_LANGGRAPH_PYTHON, else .venv-langgraph/bin/python),
and prints both counts and the ratio. ``--run K`` (internal) performs one warm call then K
more, the child callgrind runs; ``--real`` (internal) leaves ``langgraph`` unredirected.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

_REPO = Path(__file__).resolve().parents[1]
_TARGET = "superstep_bench_langgraph"  # the façade under ``langgraph``, as `make bench` does


def _shared_bench() -> Path:
    return Path(os.environ.get("SHARED_BENCH") or _REPO.parent / "shared" / "bench")


def _shared_file(name: str) -> Path | None:
    """The shared bench's workload file for ``wNN`` (``w01s``: w01 there), or None."""
    if not re.fullmatch(r"w\d\ds?", name):
        return None
    found = sorted(_shared_bench().glob(f"{name[:3]}_*.py"))
    if not found:
        raise SystemExit(f"no {name[:3]}_*.py in {_shared_bench()} (set SHARED_BENCH)")
    return found[0]


def _shared_workload(path: Path, n: int, real: bool) -> Any:
    """``build(n)`` of a shared workload file, its result checked on every call; without
    ``real`` its ``langgraph`` imports are redirected like the shared runner's ``--impl
    superstep`` (run.py's own redirect, to bench/target)."""
    import importlib.util

    sys.path.insert(0, str(path.parent))
    if not real:
        sys.path.insert(0, str(Path(__file__).parent / "target"))
        from run import install_redirect  # the shared runner's, stdlib only

        install_redirect("langgraph", _TARGET)
    spec = importlib.util.spec_from_file_location("bench_" + path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    call = module.build(n)

    def checked() -> None:
        module.check(call(), n)

    return checked


def _workload(name: str, n: int, real: bool = False) -> Any:
    shared = _shared_file(name)
    if shared is not None:
        return _shared_workload(shared, n, real)
    from _workloads import (
        engine_chain,
        facade_chain,
        oneshot_chain,
        oneshot_host,
        run_execution,
        run_host,
    )

    from superstep_core import Execution, Host
    from superstep_core.node import EffectCompleted

    if name == "engine":
        g = engine_chain(n)
        return lambda: run_execution(g, n)
    if name == "host":
        g = engine_chain(n)
        host = Host()
        return lambda: run_host(g, n, host)
    if name == "oneshot":  # untraced, as the façade runs its executions
        g = oneshot_chain(n)
        host = oneshot_host()

        def oneshot() -> None:
            ex = Execution.start(g, "b", updates={"x": 0, "last": ""}, record_trace=False)
            host.run(ex)
            assert ex.values == {"x": n, "last": f"n{n - 1}"}, ex.values

        return oneshot
    if name == "oneshot-engine":  # the same, its effects answered by a loop, without a host
        g = oneshot_chain(n)

        def bare() -> None:
            ex = Execution.start(g, "b", updates={"x": 0, "last": ""}, record_trace=False)
            while ex.queue:
                step = ex.begin_superstep()
                while step.effects:
                    step.supply(
                        [EffectCompleted(r.effect_id, r.effect.request + 1) for r in step.effects]
                    )
                ex.end_superstep(step)
            assert ex.values == {"x": n, "last": f"n{n - 1}"}, ex.values

        return bare
    if name == "w01":
        return facade_chain(n)
    raise SystemExit(f"unknown workload {name!r}")


def _instructions(name: str, n: int, calls: int, python: str | None = None) -> int:
    """Callgrind's total for one warm call and ``calls`` more; ``python``: real LangGraph's."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            python or sys.executable,
            __file__,
            name,
            str(n),
            "--run",
            str(calls),
        ]
        # string hashes decide dict and set layouts: one seed, so that runs compare
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(
            command + (["--real"] if python else []), capture_output=True, env=env
        )
        if done.returncode:
            sys.stderr.write(done.stderr.decode(errors="replace")[-3000:])
            raise SystemExit(f"{name} failed under callgrind ({done.returncode})")
        text = out.read_text()
    found = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
    assert found, "no totals in the callgrind output"
    return int(found.group(1))


def _per_node(name: str, n: int, python: str | None = None) -> float:
    one = _instructions(name, n, 1, python)
    three = _instructions(name, n, 3, python)
    return (three - one) / 2 / n


def _langgraph_python(args: list[str]) -> str:
    at = args.index("--langgraph") + 1
    if at < len(args) and not args[at].startswith("-"):
        return args[at]
    return os.environ.get("SUPERSTEP_LANGGRAPH_PYTHON") or str(
        _REPO / ".venv-langgraph" / "bin" / "python"
    )


def main() -> None:
    args = sys.argv[1:]
    name = args[0]
    n = int(args[1]) if len(args) > 1 and not args[1].startswith("-") else 100
    if "--run" in args:
        run = _workload(name, n, real="--real" in args)
        if os.environ.get("CG_NOGC"):
            import gc

            gc.disable()
        run()  # warm: the first call's caches and lazy imports
        for _ in range(int(args[args.index("--run") + 1])):
            run()
        return
    if "--langgraph" not in args:
        print(f"{name} n={n}: {_per_node(name, n):,.0f} instructions per node")
        return
    shared = "w01s" if name == "w01" else name
    if _shared_file(shared) is None:
        raise SystemExit("--langgraph: only for a workload of the shared bench (wNN)")
    ours = _per_node(shared, n)
    theirs = _per_node(shared, n, _langgraph_python(args))
    print(
        f"{name} n={n}: superstep {ours:,.0f}, langgraph {theirs:,.0f} instructions per node"
        f" (ratio {ours / theirs:.3f})"
    )


if __name__ == "__main__":
    main()
