"""A superstep that failed because of something outside the graph, then succeeded when it was
retried: the input log keeps the failure as observed, so the thread replays exactly, a
recovery does not run the failed superstep again, and history keeps every committed superstep
and lists the failed one."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Any

import pytest

from superstep_core import Graph, Reducer, compute_node
from superstep_core.checkpoint import InMemorySaver
from superstep_core.graph import CompiledGraph
from superstep_core.host.durable import DurableRunner
from superstep_core.persistence.replay import ReplayError, replay
from superstep_core.runtime import Execution, Status


class Outside:
    """The world a flaky node reads: broken until fixed; counts the node's calls."""

    def __init__(self) -> None:
        self.broken = True
        self.calls = 0


def _graph(outside: Outside) -> CompiledGraph:
    def flaky(state: Mapping[str, Any], _: Any) -> dict[str, Any]:
        outside.calls += 1
        if outside.broken:
            raise RuntimeError("the service is down")
        return {"log": ["flaky"]}

    return (
        Graph("retried", version="1")
        .with_channels(log=Reducer(operator.add, list))
        .add_node("first", compute_node(lambda s, _: {"log": ["first"]}))
        .add_node("second", compute_node(lambda s, _: {"log": ["second"]}))
        .add_node("flaky", compute_node(flaky))
        .add_node("last", compute_node(lambda s, _: {"log": ["last"]}))
        .start_at("first")
        .connect("first", "second")
        .connect("second", "flaky")
        .connect("flaky", "last")
        .compile()
    )


def _drain(ex: Execution) -> Execution:
    while ex.queue and ex.failure is None:
        ex.run_superstep()
    return ex


def test_a_retried_failure_replays_exactly_from_the_in_memory_log() -> None:
    outside = Outside()
    graph = _graph(outside)
    ex = _drain(Execution.start(graph, "run"))
    assert ex.failure is not None and ex.failure.node == "flaky"
    outside.broken = False
    ex.retry_failed()
    _drain(ex)
    assert ex.status is Status.COMPLETED

    replayed = replay(graph, list(ex.input_log), "run")
    assert replayed.values == ex.values
    assert [r.as_tuple() for r in replayed.trace] == [r.as_tuple() for r in ex.trace]
    assert replayed.step == ex.step == 4
    assert replayed.input_log == ex.input_log


def test_a_replay_names_a_committed_superstep_that_fails_when_replayed() -> None:
    outside = Outside()
    outside.broken = False
    graph = _graph(outside)
    log = list(_drain(Execution.start(graph, "run")).input_log)
    outside.broken = True  # the node's result depends on the world, not only its state
    with pytest.raises(ReplayError, match=r"superstep 3 committed when it was recorded"):
        replay(graph, log, "run")


def test_a_thread_finished_by_a_retry_replays_and_keeps_every_superstep_in_history() -> None:
    outside = Outside()
    graph = _graph(outside)
    runner = DurableRunner(InMemorySaver())
    with runner.start(graph, "t1") as dx:
        assert dx.run().status is Status.FAILED
    outside.broken = False
    with runner.recover(graph, "t1") as dx:
        dx.retry_failed()
    assert dx.execution.values == {"log": ["first", "second", "flaky", "last"]}

    report = runner.replay(graph, "t1")
    assert report.matched, report.mismatches
    rows = [(e.step, e.status, e.written) for e in runner.history("t1")]
    assert rows == [
        (0, "running", ()),
        (1, "running", ("log",)),
        (2, "running", ("log",)),  # the commit the failure used to overwrite
        (3, "failed", ()),
        (3, "running", ("log",)),
        (4, "completed", ("log",)),
    ]
    failed = runner.history("t1")[3]
    assert failed.failure == "node 'flaky' failed: RuntimeError: the service is down"


def test_recovering_a_failed_thread_keeps_the_failure_without_running_the_node_again() -> None:
    outside = Outside()
    graph = _graph(outside)
    runner = DurableRunner(InMemorySaver())
    with runner.start(graph, "t1") as dx:
        failure = dx.run().failure
    calls = outside.calls
    outside.broken = False  # a re-run would now succeed: recovery must not re-run it
    with runner.recover(graph, "t1") as dx:
        assert dx.run().failure == failure
        assert dx.execution.values == {"log": ["first", "second"]}
    assert outside.calls == calls
    assert runner.load_state("t1").failure is None  # the last checkpoint is the commit
