"""The shared bench's w08 workload (an n-node chain checkpointed in an in-memory SQLite
database, a fresh thread per call) on Superstep with two savers of the same protocol:

- ``official``: LangGraph's `SqliteSaver` (langgraph-checkpoint-sqlite), as w08 uses it;
- ``own``: the engine's `SqliteCheckpointSaver` (the default of ``superstep run --thread``:
  only the channels a step changed are written).

    .venv/bin/python bench/w08_own_saver.py [--n 200] [--repeat 5] [--min-time 0.6]

(`make bench-own`.) Each round runs each saver in a fresh process, interleaved (A B A B);
a process times calls (process CPU time, ``gc.collect()`` before each, outside the timing)
after one checked warm-up call until ``--min-time`` seconds have passed (at least 3 calls)
and reports its median. Printed: the median over rounds of those medians per saver, µs per
checkpointed step, and own/official.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

SAVERS = ("official", "own")


def build(n: int, saver_kind: str) -> Callable[[], Any]:
    """One call: a fresh thread through an ``n``-node chain (the bench's own
    `facade_chain`), checkpointed by ``saver_kind``."""
    import sqlite3

    from _workloads import facade_chain

    saver: Any
    if saver_kind == "official":
        from langgraph.checkpoint.sqlite import SqliteSaver

        saver = SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))
    else:
        from superstep_core.checkpoint import SqliteCheckpointSaver

        saver = SqliteCheckpointSaver(":memory:")
    return facade_chain(n, checkpointer=saver)


def child(saver_kind: str, n: int, min_time: float) -> None:
    fn = build(n, saver_kind)
    result = fn()
    if result != {"x": n, "last": f"n{n - 1}"}:
        raise SystemExit(f"{saver_kind}: wrong result {result!r}")
    times: list[float] = []
    started = time.perf_counter()
    while len(times) < 3 or time.perf_counter() - started < min_time:
        gc.collect()
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    print(json.dumps({"median": statistics.median(times), "calls": len(times)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.6)
    parser.add_argument("--child", choices=SAVERS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.n, args.min_time)
        return
    medians: dict[str, list[float]] = {kind: [] for kind in SAVERS}
    for r in range(args.repeat):
        for kind in SAVERS:
            out = subprocess.run(
                [sys.executable, __file__, "--child", kind, "--n", str(args.n)]
                + ["--min-time", str(args.min_time)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            median = json.loads(out.strip().splitlines()[-1])["median"]
            medians[kind].append(median)
            print(f"[round {r + 1}] {kind}: {median * 1e3:.1f} ms/call", flush=True)
    print(f"\nw08 chain, n={args.n}, process CPU time, median of {args.repeat} rounds")
    summary = {kind: statistics.median(values) for kind, values in medians.items()}
    for kind in SAVERS:
        ms = summary[kind] * 1e3
        print(f"  {kind:9s} {ms:7.1f} ms/call  {summary[kind] / args.n * 1e6:6.1f} us/step")
    print(f"  own/official {summary['own'] / summary['official']:.2f}x")


if __name__ == "__main__":
    main()
