"""A `StopRequest` ends a host's run at a superstep boundary (graceful shutdown): the
superstep in progress finishes and commits, no further one starts, `RunStopped` says so, and
the same execution driven again later continues where it stopped. Runs on both hosts."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from superstep_core import Append, Graph, Status, effect_node
from superstep_core.graph import CompiledGraph
from superstep_core.host import EffectContext, RunStopped, StopRequest

from .support import DriverFactory


def _pipeline(*names: str) -> CompiledGraph:
    """Nodes run one after another, each performing one ``work`` effect (its own name) and
    appending the result to ``done``."""
    g = Graph("pipe").with_channels(done=Append())
    for name in names:
        node = effect_node(
            "work",
            request=lambda state, payload, name=name: name,
            on_result=lambda state, result, payload: {"done": result},
        )
        g = g.add_node(name, node)
    for a, b in itertools.pairwise(names):
        g = g.connect(a, b)
    return g.start_at(names[0]).end_at(names[-1]).compile()


def _stopping_at(stop: StopRequest, node: str, log: list[str]) -> Any:
    def work(request: str, ctx: EffectContext) -> str:
        log.append(request)
        if request == node:
            stop.request("sigterm")
        return request

    return work


def test_a_stop_requested_during_a_superstep_commits_it_and_starts_no_further_one(
    make_driver: DriverFactory,
) -> None:
    stop, log = StopRequest(), []
    driver = make_driver({"work": _stopping_at(stop, "a", log)})
    ex = driver.host.start(_pipeline("a", "b", "c"))
    with pytest.raises(RunStopped) as caught:
        driver.run(ex, stop=stop)
    assert (caught.value.reason, caught.value.execution_id) == ("sigterm", ex.execution_id)
    assert caught.value.step == ex.step
    assert ex.values["done"] == ("a",)  # a's result was delivered and committed
    assert log == ["a"]  # b never started
    assert ex.failure is None and ex.queue  # consistent, with work left


def test_an_execution_stopped_continues_when_driven_again(make_driver: DriverFactory) -> None:
    stop, log = StopRequest(), []
    driver = make_driver({"work": _stopping_at(stop, "a", log)})
    ex = driver.host.start(_pipeline("a", "b", "c"))
    with pytest.raises(RunStopped):
        driver.run(ex, stop=stop)
    driver.run(ex)  # a later run, no stop requested for it
    assert ex.status is Status.COMPLETED
    assert ex.values["done"] == ("a", "b", "c")
    assert log == ["a", "b", "c"]  # nothing performed twice


def test_a_stop_requested_before_the_run_runs_nothing(make_driver: DriverFactory) -> None:
    stop, log = StopRequest(), []
    stop.request()
    driver = make_driver({"work": _stopping_at(stop, "-", log)})
    ex = driver.host.start(_pipeline("a", "b"))
    with pytest.raises(RunStopped, match="shutdown"):
        driver.run(ex, stop=stop)
    assert log == [] and ex.step == 0


def test_a_stop_requested_in_the_last_superstep_lets_the_run_finish(
    make_driver: DriverFactory,
) -> None:
    stop, log = StopRequest(), []
    driver = make_driver({"work": _stopping_at(stop, "b", log)})
    ex = driver.run_graph(_pipeline("a", "b"), stop=stop)
    assert ex.status is Status.COMPLETED and ex.values["done"] == ("a", "b")
    assert stop.requested and stop.reason == "sigterm"
