"""Micro-benchmarks of the engine's hot paths (pytest-benchmark). Run with `make bench-micro`
or `python bench/engine_activation.py` (no pytest-benchmark needed). Not collected by
`make test`: pytest's testpaths is tests/.

Each benchmark is one pass through a chain of ``CHAIN_N`` nodes, one node per superstep, so
µs per node activation = the benchmark's time / CHAIN_N (``extra_info["us_per_activation"]``).
"""

from __future__ import annotations

from typing import Any

import pytest
from _workloads import CHAIN_N, engine_chain, facade_chain, run_execution, run_host

from superstep_core import Execution, Host, LastValue


@pytest.fixture(scope="module")
def chain() -> Any:
    return engine_chain(CHAIN_N)


def _note(benchmark: Any) -> None:
    if benchmark.stats is None:  # --benchmark-disable: ran once, nothing measured
        return
    stats = benchmark.stats.stats
    benchmark.extra_info["us_per_activation"] = round(stats.median * 1e6 / CHAIN_N, 2)
    benchmark.extra_info["min_us_per_activation"] = round(stats.min * 1e6 / CHAIN_N, 2)


def test_execution_superstep_per_activation(benchmark: Any, chain: Any) -> None:
    """`Execution.run_superstep` loop, trace recording on (the default)."""
    benchmark(run_execution, chain, CHAIN_N)
    _note(benchmark)


def test_execution_superstep_no_trace(benchmark: Any, chain: Any) -> None:
    """The same with ``record_trace=False``: the cost of `TraceRecord`s."""
    benchmark(run_execution, chain, CHAIN_N, record_trace=False)
    _note(benchmark)


def test_host_run_graph_per_activation(benchmark: Any, chain: Any) -> None:
    """`Host.run_graph`: the interpreter plus the sync host's loop (no effects)."""
    host = Host()
    benchmark(run_host, chain, CHAIN_N, host)
    _note(benchmark)


def test_execution_snapshot(benchmark: Any, chain: Any) -> None:
    """One `Execution.snapshot()` of a mid-chain execution (taken per checkpoint)."""
    ex = Execution.start(chain, "snap", updates={"x": 0, "last": ""})
    for _ in range(CHAIN_N // 2):
        ex.run_superstep()
    benchmark(ex.snapshot)


def test_lastvalue_combine(benchmark: Any) -> None:
    """One LastValue combine (the per-write channel cost)."""
    ch = LastValue()
    benchmark(ch.combine, "x", 1, [("n1:1", 2)])


def test_facade_invoke_per_activation(benchmark: Any) -> None:
    """w01_chain through `superstep_compat` (StateGraph.invoke)."""
    run = facade_chain(CHAIN_N)
    benchmark(run)
    _note(benchmark)


def test_facade_invoke_memsaver_per_activation(benchmark: Any) -> None:
    """w07_chain_memsaver through `superstep_compat` (InMemorySaver, fresh thread per call)."""
    from superstep_compat.checkpoint.memory import InMemorySaver

    run = facade_chain(CHAIN_N, InMemorySaver())
    benchmark(run)
    _note(benchmark)
