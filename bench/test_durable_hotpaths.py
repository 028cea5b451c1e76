"""Micro-benchmarks of durable executions (`DurableRunner`): a chain of nodes, one checkpoint
per superstep, on the in-memory saver and on a SQLite file (one fresh thread per round).

µs per checkpointed superstep = the benchmark's time / ``DURABLE_N``
(``extra_info["us_per_step"]``). Run with `make bench-micro`; not collected by `make test`.
Besides the chain (two small channels), a chain whose ``log`` channel grows by one item a
step (an Append channel: segments) measures the cost of a long value.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _workloads import engine_chain

from superstep_core import Append, Graph, LastValue, compute_node
from superstep_core.host.durable import DurableRunner

DURABLE_N = 200

_threads = itertools.count()


def _store(kind: str, tmp: Path) -> Any:
    from _durable_store import open_store

    return open_store(kind, tmp)


def _growing_chain(n: int) -> Any:
    g = Graph(f"grow{n}").with_channels(x=LastValue(), log=Append())

    def make(i: int) -> Callable[..., dict[str, Any]]:
        def node(state: Any, _payload: Any) -> dict[str, Any]:
            return {"x": state["x"] + 1, "log": [f"step {i}"]}

        node.__name__ = f"n{i}"
        return node

    for i in range(n):
        g.add_node(f"n{i}", compute_node(make(i)))
    for i in range(n - 1):
        g.connect(f"n{i}", f"n{i + 1}")
    return g.start_at("n0").end_at(f"n{n - 1}").compile()


def _run(runner: DurableRunner, graph: Any, updates: dict[str, Any]) -> None:
    with runner.start(graph, f"t{next(_threads)}", updates=updates) as dx:
        dx.run()
        assert dx.execution.values["x"] == DURABLE_N


def _note(benchmark: Any) -> None:
    if benchmark.stats is None:
        return
    stats = benchmark.stats.stats
    benchmark.extra_info["us_per_step"] = round(stats.median * 1e6 / DURABLE_N, 1)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_durable_chain_per_step(benchmark: Any, kind: str, tmp_path: Path) -> None:
    """`DurableRunner.start(...).run()` over a chain: one checkpoint per superstep."""
    store = _store(kind, tmp_path)
    runner = DurableRunner(store)
    graph = engine_chain(DURABLE_N)
    benchmark.pedantic(_run, (runner, graph, {"x": 0, "last": ""}), rounds=5, iterations=1)
    _note(benchmark)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_durable_growing_log_per_step(benchmark: Any, kind: str, tmp_path: Path) -> None:
    """The same with a channel that grows by one item per superstep."""
    store = _store(kind, tmp_path)
    runner = DurableRunner(store)
    graph = _growing_chain(DURABLE_N)
    benchmark.pedantic(_run, (runner, graph, {"x": 0, "log": []}), rounds=5, iterations=1)
    _note(benchmark)


def test_durable_recover_latest(benchmark: Any, tmp_path: Path) -> None:
    """`DurableRunner.recover` of a finished 200-step thread on SQLite (load the latest
    checkpoint and rebuild the execution)."""
    store = _store("sqlite", tmp_path)
    runner = DurableRunner(store)
    graph = _growing_chain(DURABLE_N)
    with runner.start(graph, "done", updates={"x": 0, "log": []}) as dx:
        dx.run()

    def recover() -> None:
        runner.recover(graph, "done").close()

    benchmark(recover)
