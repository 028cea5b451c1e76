"""Instructions per node (valgrind callgrind), unaffected by the machine's load:

    .venv/bin/python bench/callgrind_node.py WORKLOAD [N]

WORKLOAD: ``engine`` (compute-node chain, `Execution.run_superstep`), ``host`` (the same
through the sync `Host`), ``oneshot`` (a chain of one-shot within-step effect nodes
through the sync `Host`: the façade's shape, without the façade), ``oneshot-engine`` (the
same chain, its effects answered by a bare loop: the interpreter's share), ``w01`` (w01_chain
through the façade's ``invoke``). Runs the workload under callgrind once with 1 warm call and
once with 3, and prints (3 calls - 1 call) / 2 / N instructions per node: building the
graph, imports and the first (cold) call cancel out. ``--run K`` (internal) performs one warm
call then K more, the child callgrind runs.
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


def _workload(name: str, n: int) -> Any:
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


def _instructions(name: str, n: int, calls: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                name,
                str(n),
                "--run",
                str(calls),
            ],
            check=True,
            capture_output=True,
        )
        text = out.read_text()
    found = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
    assert found, "no totals in the callgrind output"
    return int(found.group(1))


def main() -> None:
    args = sys.argv[1:]
    name = args[0]
    n = int(args[1]) if len(args) > 1 and not args[1].startswith("-") else 100
    if "--run" in args:
        run = _workload(name, n)
        if os.environ.get("CG_NOGC"):
            import gc

            gc.disable()
        run()  # warm: the first call's caches and lazy imports
        for _ in range(int(args[args.index("--run") + 1])):
            run()
        return
    one = _instructions(name, n, 1)
    three = _instructions(name, n, 3)
    print(f"{name} n={n}: {(three - one) / 2 / n:,.0f} instructions per node")


if __name__ == "__main__":
    main()
