"""Latency probe of the agent server: ``runs.wait`` on a two-node graph through the official
``langgraph-sdk`` sync client against ``superstep serve`` (a separate process), stateless
and on one thread; prints p50/p90/max in milliseconds. ``--throughput N``: also N
background runs on N/4 threads created at once, then joined; prints runs per second.

    .venv/bin/python bench/server_latency.py [--n 200] [--db PATH|postgresql://...]
        [--workers 2] [--throughput 400]

Not a test: wall-clock numbers on a shared machine vary; run it with nothing else busy.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

GRAPH = """
from typing import TypedDict
from langgraph.graph import START, StateGraph

class S(TypedDict):
    x: int

def a(state: S) -> dict:
    return {"x": state["x"] + 1}

def b(state: S) -> dict:
    return {"x": state["x"] * 2}

builder = StateGraph(S)
builder.add_node("a", a)
builder.add_node("b", b)
builder.add_edge(START, "a")
builder.add_edge("a", "b")
graph = builder.compile()
"""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _summary(name: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[int(len(ms) * 0.9) - 1]
    return (
        f"{name:<22} n={len(ms):<4} p50={statistics.median(ms):6.1f} ms  "
        f"p90={p90:6.1f} ms  max={ms[-1]:6.1f} ms"
    )


def _throughput(client: Any, n: int) -> float:
    """Runs per second: ``n`` background runs over ``n // 4`` threads (queued behind each
    other on a thread), created as fast as one client can, then all joined."""
    threads = [client.threads.create()["thread_id"] for _ in range(max(n // 4, 1))]
    start = time.perf_counter()
    runs = [
        client.runs.create(
            threads[i % len(threads)], "two", input={"x": i}, multitask_strategy="enqueue"
        )
        for i in range(n)
    ]
    for i, run in enumerate(runs):
        out = client.runs.join(run["thread_id"], run["run_id"])
        assert out == {"x": (i + 1) * 2}, out
    return n / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--db")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--throughput", type=int, default=0)
    args = parser.parse_args()
    from langgraph_sdk import get_sync_client

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "two.py").write_text(GRAPH)
        (Path(tmp) / "langgraph.json").write_text('{"graphs": {"two": "./two.py:graph"}}')
        port = _port()
        db = args.db or str(Path(tmp) / "bench.db")
        superstep = Path(sys.executable).parent / "superstep"
        server = subprocess.Popen(
            [
                str(superstep),
                "serve",
                "--config",
                str(Path(tmp) / "langgraph.json"),
                "--port",
                str(port),
                "--db",
                db,
                "--workers",
                str(args.workers),
            ],
            env={**os.environ},
        )
        try:
            client = get_sync_client(url=f"http://127.0.0.1:{port}", api_key=None)
            for _ in range(300):
                try:
                    client.http.get("/ok")
                    break
                except Exception:
                    time.sleep(0.1)
            for _ in range(20):  # warm up
                client.runs.wait(None, "two", input={"x": 1})
            stateless: list[float] = []
            for i in range(args.n):
                start = time.perf_counter()
                out = client.runs.wait(None, "two", input={"x": i})
                stateless.append(time.perf_counter() - start)
                assert out == {"x": (i + 1) * 2}, out
            thread = client.threads.create()
            on_thread: list[float] = []
            for i in range(args.n):
                start = time.perf_counter()
                out = client.runs.wait(thread["thread_id"], "two", input={"x": i})
                on_thread.append(time.perf_counter() - start)
                assert out == {"x": (i + 1) * 2}, out
            rate = _throughput(client, args.throughput) if args.throughput else None
            kind = "postgres" if db.startswith("postgres") else "sqlite"
            print(
                f"superstep serve ({kind}, {args.workers} workers), runs.wait on a two-node graph"
            )
            print(_summary("stateless /runs/wait", stateless))
            print(_summary("thread /runs/wait", on_thread))
            if rate is not None:
                print(
                    f"throughput             {args.throughput} background runs: {rate:.0f} runs/s"
                )
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
