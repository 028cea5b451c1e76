"""µs per node activation on a chain of compute_nodes, without pytest-benchmark:

    .venv/bin/python bench/engine_activation.py [N]

Prints the interpreter alone (`Execution.run_superstep`), the sync `Host`, and the façade
(`superstep_compat` StateGraph.invoke, without and with InMemorySaver), at N nodes (default
1000), plus N/4 and 4N for the engine to show whether the per-activation cost is flat in N.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _workloads import (
    CHAIN_N,
    engine_chain,
    facade_chain,
    per_unit_us,
    run_execution,
    run_host,
)

from superstep_core import Host


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else CHAIN_N
    rows: list[tuple[str, int, dict[str, float]]] = []
    for size in (n // 4, n, n * 4):
        g = engine_chain(size)
        rows.append(
            (
                "engine Execution.run_superstep",
                size,
                per_unit_us(lambda g=g, size=size: run_execution(g, size), size),
            )
        )
    g = engine_chain(n)
    rows.append(
        (
            "engine Execution, record_trace=False",
            n,
            per_unit_us(lambda: run_execution(g, n, record_trace=False), n),
        )
    )
    host = Host()
    rows.append(("engine Host.run_graph", n, per_unit_us(lambda: run_host(g, n, host), n)))
    rows.append(("façade invoke (w01 shape)", n, per_unit_us(facade_chain(n), n)))
    from superstep_compat.checkpoint.memory import InMemorySaver

    saver = InMemorySaver()
    rows.append(
        ("façade invoke + InMemorySaver (w07 shape)", n, per_unit_us(facade_chain(n, saver), n))
    )
    print("| path | n | median wall µs/activation | min wall µs | median CPU µs | calls |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, size, r in rows:
        print(
            f"| {name} | {size} | {r['median_wall_us']:.1f} | {r['min_wall_us']:.1f} "
            f"| {r['median_cpu_us']:.1f} | {r['calls']:.0f} |"
        )


if __name__ == "__main__":
    main()
