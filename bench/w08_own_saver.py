"""The shared bench's w08 workload (an n-node chain checkpointed in an in-memory SQLite
database, a fresh thread per call) on Superstep with two savers of the same protocol:

- ``official``: LangGraph's `SqliteSaver` (langgraph-checkpoint-sqlite), as w08 uses it;
- ``own``: the engine's `SqliteCheckpointSaver` (the default of ``superstep run --thread``:
  only the channels a step changed are written).

    .venv/bin/python bench/w08_own_saver.py [--n 200] [--repeat 5] [--min-time 0.6] [--file]

``--file``: both savers on a SQLite file in a temporary directory instead of in memory (how
``superstep run --thread`` keeps threads; the official saver as
``SqliteSaver.from_conn_string(path)`` opens it: SQLite's defaults, rollback journal), timed by
the wall clock (a file's commits wait on the disk, which process CPU time does not see).
``--postgres URL``: both Postgres savers instead (LangGraph's `PostgresSaver` on one autocommit
connection, as its documentation sets it up, and our `PostgresCheckpointSaver`), wall clock,
each in its own schema of the database ``URL`` (dropped afterwards). Both savers use WAL on
a file; the official one keeps SQLite's ``synchronous=FULL`` (a sync per
commit), ours defaults to ``NORMAL`` (survives a killed process, not a power loss):
``--synchronous FULL`` gives ours the official saver's setting.

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


def build(n: int, saver_kind: str, path: str, synchronous: str) -> Callable[[], Any]:
    """One call: a fresh thread through an ``n``-node chain (the bench's own
    `facade_chain`), checkpointed by ``saver_kind`` in the SQLite database ``path``."""
    import sqlite3

    from _workloads import facade_chain

    saver: Any
    if path.startswith("postgresql://"):
        return facade_chain(n, checkpointer=postgres_saver(saver_kind, path))
    if saver_kind == "official":
        from langgraph.checkpoint.sqlite import SqliteSaver

        saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
    else:
        from superstep_core.checkpoint import SqliteCheckpointSaver

        saver = SqliteCheckpointSaver(path, synchronous=synchronous)
    return facade_chain(n, checkpointer=saver)


def postgres_saver(saver_kind: str, url: str) -> Any:
    """A Postgres saver of ``saver_kind`` in a fresh schema of ``url`` (see `drop_schemas`)."""
    import psycopg

    schema = f"w08_{saver_kind}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        conn.execute(f"CREATE SCHEMA {schema}")
    if saver_kind == "official":
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg.rows import dict_row

        conn = psycopg.connect(
            url,
            autocommit=True,
            prepare_threshold=0,
            row_factory=dict_row,
            options=f"-c search_path={schema}",
        )
        saver = PostgresSaver(conn)
        saver.setup()
        return saver
    from superstep_core.checkpoint.postgres import PostgresCheckpointSaver

    return PostgresCheckpointSaver(url, schema=schema, min_size=1, max_size=2)


def drop_schemas(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for kind in SAVERS:
            conn.execute(f"DROP SCHEMA IF EXISTS w08_{kind} CASCADE")


def child(
    saver_kind: str, n: int, min_time: float, on_file: bool, synchronous: str, postgres: str
) -> None:
    import tempfile

    clock = time.perf_counter if on_file or postgres else time.process_time
    if postgres:
        measure(saver_kind, n, build(n, saver_kind, postgres, synchronous), min_time, clock)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/w08.db" if on_file else ":memory:"
        fn = build(n, saver_kind, path, synchronous)
        measure(saver_kind, n, fn, min_time, clock)


def measure(
    saver_kind: str, n: int, fn: Callable[[], Any], min_time: float, clock: Callable[[], float]
) -> None:
    result = fn()
    if result != {"x": n, "last": f"n{n - 1}"}:
        raise SystemExit(f"{saver_kind}: wrong result {result!r}")
    times: list[float] = []
    started = time.perf_counter()
    while len(times) < 3 or time.perf_counter() - started < min_time:
        gc.collect()
        t = clock()
        fn()
        times.append(clock() - t)
    print(json.dumps({"median": statistics.median(times), "calls": len(times)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.6)
    parser.add_argument("--file", action="store_true", help="a SQLite file, wall clock")
    parser.add_argument("--synchronous", default="NORMAL", help="our saver's synchronous")
    parser.add_argument("--postgres", default="", help="a PostgreSQL URL: the Postgres savers")
    parser.add_argument("--child", choices=SAVERS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.n, args.min_time, args.file, args.synchronous, args.postgres)
        return
    medians: dict[str, list[float]] = {kind: [] for kind in SAVERS}
    for r in range(args.repeat):
        for kind in SAVERS:
            out = subprocess.run(
                [sys.executable, __file__, "--child", kind, "--n", str(args.n)]
                + ["--min-time", str(args.min_time)]
                + (["--file"] if args.file else [])
                + ["--synchronous", args.synchronous]
                + (["--postgres", args.postgres] if args.postgres else []),
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            median = json.loads(out.strip().splitlines()[-1])["median"]
            medians[kind].append(median)
            print(f"[round {r + 1}] {kind}: {median * 1e3:.1f} ms/call", flush=True)
    where = "in-memory SQLite, process CPU time"
    if args.file:
        where = f"SQLite file (ours synchronous={args.synchronous}), wall clock"
    if args.postgres:
        where = "PostgreSQL, wall clock"
        drop_schemas(args.postgres)
    print(f"\nw08 chain, n={args.n}, {where}, median of {args.repeat} rounds")
    summary = {kind: statistics.median(values) for kind, values in medians.items()}
    for kind in SAVERS:
        ms = summary[kind] * 1e3
        print(f"  {kind:9s} {ms:7.1f} ms/call  {summary[kind] / args.n * 1e6:6.1f} us/step")
    print(f"  own/official {summary['own'] / summary['official']:.2f}x")


if __name__ == "__main__":
    main()
