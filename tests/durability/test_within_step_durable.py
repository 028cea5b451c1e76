"""Within-step effects in a durable thread: `DurableExecution.run` drives the host's own loop,
so an effect declared ``within_step`` is performed inside the superstep that asked for it (one
checkpoint per superstep, its results in that superstep's input-log record); a process that
dies mid-superstep leaves the last checkpoint as it was, and the recovered thread performs
only the effects whose results were never recorded; one that lost the thread's lease
performs none."""

from __future__ import annotations

from typing import Any

import pytest

from engine.test_within_step import _chain, _fan
from superstep_core import EffectContext
from superstep_core.checkpoint import InMemorySaver
from superstep_core.host.durable import DurableRunner
from superstep_core.host.lease import LeaseLostError, MemoryLeaseStore
from superstep_core.testing import VirtualClock


class Died(BaseException):
    """The process dying while it performs an effect (not an effect failure: nothing
    catches it, nothing after it runs)."""


def _counting(calls: list[Any]) -> Any:
    def work(request: Any, ctx: EffectContext) -> Any:
        calls.append(request)
        return None if request is None else request * 2

    return work


def test_a_durable_thread_performs_within_step_effects_inside_their_superstep() -> None:
    saver = InMemorySaver()
    calls: list[Any] = []
    runner = DurableRunner(saver, {"work": _counting(calls)}, clock=VirtualClock())
    with runner.start(_chain(), "t", payload=3) as dx:
        ex = dx.run()
    # one superstep per node (not a request superstep and a result superstep each)
    assert ex.step == 2
    assert ex.values["out"] == (("a", 6), ("b", None))
    assert calls == [3, None]
    steps = [(h.step, h.source) for h in runner.history("t")]
    assert steps == [(0, "input"), (1, "loop"), (2, "loop")]
    report = runner.replay(_chain(), "t")
    assert report.matched, report.mismatches
    assert calls == [3, None]  # the replay answered both from the log


def test_a_thread_that_dies_mid_superstep_performs_only_what_was_not_recorded() -> None:
    graph = _fan(2)
    # one worker: w0's effect is performed (and recorded) before w1's, whose process dies
    saver2 = InMemorySaver()
    calls: list[Any] = []
    order: list[str] = []

    def dies_on_w1(request: Any, ctx: EffectContext) -> Any:
        order.append(ctx.node)
        if ctx.node == "w1":
            raise Died
        calls.append(ctx.node)
        return ctx.node

    runner = DurableRunner(saver2, {"work": dies_on_w1}, clock=VirtualClock(), max_workers=1)
    dx = runner.start(graph, "t")
    with pytest.raises(Died):
        dx.run()
    assert order == ["w0", "w1"]

    again: list[str] = []

    def records(request: Any, ctx: EffectContext) -> Any:
        again.append(ctx.node)
        return ctx.node

    recovering = DurableRunner(saver2, {"work": records}, clock=VirtualClock())
    with recovering.recover(graph, "t") as dx:
        ex = dx.run()
    assert again == ["w1"]  # w0's recorded result answered its request
    assert sorted(ex.values["out"]) == [("w0", "w0"), ("w1", "w1")]
    assert [h.step for h in recovering.history("t")] == [0, 1, 2]
    report = recovering.replay(graph, "t")
    assert report.matched, report.mismatches


def test_a_process_that_lost_the_thread_performs_no_within_step_effect() -> None:
    clock = VirtualClock(1000.0)
    leases = MemoryLeaseStore(clock.now)
    calls: list[Any] = []
    runner = DurableRunner(
        InMemorySaver(), {"work": _counting(calls)}, leases=leases, owner="h:1:one"
    )
    with runner.start(_chain(), "t", payload=3) as dx:
        assert dx.lease is not None
        clock.advance(60)  # expired without renewal: another owner takes the thread
        leases.acquire("t", "h:2:two", 30)
        assert dx.lease.renew() is False
        with pytest.raises(LeaseLostError):
            dx.run()
    assert calls == []
