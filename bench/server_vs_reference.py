"""``superstep serve`` beside the reference dev server (``langgraph dev`` from
``langgraph-cli[inmem]``), both driven by the official ``langgraph-sdk`` sync client over HTTP
on localhost, serving the same two-node LangGraph graph file:

- ``wait``: latency of a trivial run, ``runs.wait`` on a thread (create + wait);
- ``first event``: from sending ``runs.stream`` to its first event (``metadata``), and to
  its first ``values`` chunk;
- ``runs/s``: N clients at once, each running ``runs.wait`` on a thread of its own in a loop.

The reference server is not part of this project: install it in a scratch venv outside the
repository and pass its ``langgraph`` command::

    python3 -m venv /tmp/ref && /tmp/ref/bin/pip install 'langgraph-cli[inmem]'
    .venv/bin/python bench/server_vs_reference.py --reference /tmp/ref/bin/langgraph

Without ``--reference`` only Superstep is measured. Not a test: wall-clock numbers on a
shared machine vary; run it with nothing else busy.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The same two-node graph file and free-port helper as the latency probe (a sibling script:
# run as ``python bench/server_vs_reference.py``, this folder is on sys.path).
from server_latency import GRAPH, _port


def _ms(samples: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples)
    return {
        "p50": statistics.median(ms),
        "p90": ms[max(int(len(ms) * 0.9) - 1, 0)],
        "max": ms[-1],
    }


def _client(url: str) -> Any:
    from langgraph_sdk import get_sync_client

    return get_sync_client(url=url, api_key=None)


def _wait_ready(url: str, process: subprocess.Popen[bytes], seconds: float = 120.0) -> None:
    import httpx

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server at {url} exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server at {url} did not answer /ok in {seconds} s")


def _latency(client: Any, n: int) -> dict[str, float]:
    thread = client.threads.create()["thread_id"]
    samples = []
    for i in range(n):
        start = time.perf_counter()
        out = client.runs.wait(thread, "two", input={"x": i})
        samples.append(time.perf_counter() - start)
        assert out == {"x": (i + 1) * 2}, out
    return _ms(samples)


def _first_event(client: Any, n: int) -> tuple[dict[str, float], dict[str, float]]:
    thread = client.threads.create()["thread_id"]
    first: list[float] = []
    values: list[float] = []
    for i in range(n):
        start = time.perf_counter()
        seen_first = seen_values = False
        for part in client.runs.stream(thread, "two", input={"x": i}):
            now = time.perf_counter() - start
            if not seen_first:
                first.append(now)
                seen_first = True
            if part.event == "values" and not seen_values:
                values.append(now)
                seen_values = True
        assert seen_values
    return _ms(first), _ms(values)


def _throughput(url: str, clients: int, runs_each: int) -> float:
    """Runs per second with ``clients`` concurrent sdk clients, each waiting for its runs on
    its own thread one after the other."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(clients + 1)

    def work() -> None:
        try:
            client = _client(url)
            thread = client.threads.create()["thread_id"]
            barrier.wait()
            for i in range(runs_each):
                out = client.runs.wait(thread, "two", input={"x": i})
                assert out == {"x": (i + 1) * 2}, out
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    workers = [threading.Thread(target=work) for _ in range(clients)]
    for w in workers:
        w.start()
    barrier.wait()
    start = time.perf_counter()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]
    return clients * runs_each / (time.perf_counter() - start)


def _measure(
    name: str, url: str, n: int, clients: list[int], runs_each: int, out: dict[str, Any]
) -> None:
    client = _client(url)
    for i in range(5):  # warm up: graph loaded, connections open
        client.runs.wait(None, "two", input={"x": i})
    result: dict[str, Any] = {"wait": _latency(client, n)}
    result["first_event"], result["first_values"] = _first_event(client, n)
    result["runs_per_s"] = {c: _throughput(url, c, runs_each) for c in clients}
    out[name] = result
    print(f"{name}: {result}", flush=True)


def _serve(cmd: list[str], cwd: Path, url: str, run: Callable[[], None]) -> None:
    process = subprocess.Popen(
        cmd,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env={**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1"},
    )
    try:
        _wait_ready(url, process)
        run()
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _table(results: dict[str, Any], clients: list[int]) -> str:
    ours = results["superstep"]
    ref = results.get("reference")
    rows = [
        "| measure | Superstep | reference | ratio (Superstep / reference) |",
        "|---|---|---|---|",
    ]

    def line(label: str, a: float, b: float | None, unit: str) -> None:
        if b is None:
            rows.append(f"| {label} | {a:.1f} {unit} | - | - |")
        else:
            rows.append(f"| {label} | {a:.1f} {unit} | {b:.1f} {unit} | {a / b:.3f} |")

    for key, label in (
        ("wait", "runs.wait"),
        ("first_event", "stream, first event"),
        ("first_values", "stream, first values"),
    ):
        for p in ("p50", "p90"):
            line(f"{label} {p}", ours[key][p], ref[key][p] if ref else None, "ms")
    for c in clients:
        line(
            f"runs/s, {c} clients",
            ours["runs_per_s"][c],
            ref["runs_per_s"][c] if ref else None,
            "runs/s",
        )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=30, help="runs per latency measure")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--runs-each", type=int, default=10)
    parser.add_argument("--workers", type=int, default=4, help="superstep serve --workers")
    parser.add_argument("--db", help="superstep serve --db (default: SQLite in a temp dir)")
    parser.add_argument("--reference", help="the reference's `langgraph` command")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "two.py").write_text(GRAPH)
        (root / "langgraph.json").write_text(
            '{"graphs": {"two": "./two.py:graph"}, "dependencies": ["."]}'
        )
        port = _port()
        url = f"http://127.0.0.1:{port}"
        superstep = Path(sys.executable).parent / "superstep"
        cmd = [str(superstep), "serve", "--config", str(root / "langgraph.json")]
        cmd += ["--port", str(port), "--workers", str(args.workers)]
        cmd += ["--db", args.db or str(root / "bench.db")]
        _serve(
            cmd,
            root,
            url,
            lambda: _measure("superstep", url, args.n, args.clients, args.runs_each, results),
        )
        if args.reference:
            port = _port()
            ref_url = f"http://127.0.0.1:{port}"
            ref_cmd = [args.reference, "dev", "--no-browser", "--no-reload"]
            ref_cmd += ["--port", str(port), "--config", str(root / "langgraph.json")]
            _serve(
                ref_cmd,
                root,
                ref_url,
                lambda: _measure(
                    "reference", ref_url, args.n, args.clients, args.runs_each, results
                ),
            )
    print(_table(results, args.clients))
    return 0


if __name__ == "__main__":
    sys.exit(main())
