"""Within-step effects: performed by the host inside the superstep that asked for them, their
results delivered in that superstep, which then commits once, atomically; logged with the
superstep so a replay performs nothing; retried by the engine under the policy the failure
carries; bounded by the host's concurrency limit."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from superstep_core import (
    Activated,
    Append,
    CompleteActivation,
    Effect,
    EffectCompleted,
    EffectContext,
    Event,
    FailActivation,
    Failure,
    FailureClass,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    RemainActive,
    RetryPolicy,
)
from superstep_core.graph import CompiledGraph
from superstep_core.host import AsyncHost, Host
from superstep_core.persistence.replay import replay
from superstep_core.runtime import Execution, ExecutionState
from superstep_core.testing import VirtualClock

from .support import DriverFactory

# LangGraph's list semantics, as a node of this test states them: the first rule whose
# exception type matches decides the retry
RULES: tuple[tuple[str, RetryPolicy], ...] = (
    ("KeyError", RetryPolicy(max_attempts=2, initial_interval=1.0)),
    ("TypeError", RetryPolicy(max_attempts=5, initial_interval=1.0)),
)


def _worker(kind: str = "work", *, rules: tuple[tuple[str, RetryPolicy], ...] = ()) -> Any:
    """A node that asks for one within-step effect of ``kind`` with its payload, appends the
    result to ``out`` and completes; a failed effect fails it retryably under the first of
    ``rules`` naming the error's type (permanently when none does)."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            effect = Effect(kind, event.payload, within_step=True)
            return Reaction(effects=[effect], disposition=RemainActive())
        assert isinstance(event, EffectCompleted)
        if event.error is not None:
            policy = next((p for name, p in rules if name == event.error.type), None)
            cls = FailureClass.RETRYABLE if policy else FailureClass.PERMANENT
            failure = Failure(cls, event.error.message, event.error.type, policy)
            return Reaction(disposition=FailActivation(failure))
        return Reaction(updates={"out": (ctx.node, event.result)}, disposition=CompleteActivation())

    return react


def _chain() -> CompiledGraph:
    """``a`` then ``b``, each one within-step effect."""
    g = Graph("chain").with_channels(out=Append())
    g.add_node("a", _worker()).add_node("b", _worker())
    return g.connect("a", "b").start_at("a").compile()


def _fan(n: int, *, retry_b: bool = False) -> CompiledGraph:
    """``start`` forks into ``w0`` .. ``w{n-1}``, each one within-step effect; with
    ``retry_b``, ``w1`` retries TypeError and holds its superstep while it does."""
    g = Graph("fan").with_channels(out=Append())
    g.add_node("start", lambda ctx, e: Reaction(disposition=CompleteActivation()))
    names = [f"w{i}" for i in range(n)]
    for name in names:
        rules = RULES if retry_b and name == "w1" else ()
        g.add_node(name, _worker(rules=rules), retry_holds_step=retry_b)
    return g.fork("start", names).start_at("start").compile()


def _double(request: Any, ctx: EffectContext) -> Any:
    return None if request is None else request * 2


def test_a_within_step_effect_is_delivered_in_the_superstep_that_asked(
    make_driver: DriverFactory,
) -> None:
    driver = make_driver({"work": _double})
    ex = driver.run_graph(_chain(), payload=3)
    # one superstep per node, not two (request, then result)
    assert ex.step == 2
    assert ex.values["out"] == (("a", 6), ("b", None))  # b's payload is a's output: None
    assert sorted(driver.performed) == ["chain-1/a:1/e0", "chain-1/b:2/e0"]
    assert not ex.awaited


def test_the_superstep_logs_its_results_and_a_replay_performs_nothing(
    make_driver: DriverFactory,
) -> None:
    calls: list[Any] = []

    def work(request: Any, ctx: EffectContext) -> Any:
        calls.append(request)
        return _double(request, ctx)

    ex = make_driver({"work": work}).run_graph(_chain(), payload=3)
    assert len(calls) == 2
    steps = [entry for entry in ex.input_log if entry[0] == "superstep"]
    assert [len(entry[1]) for entry in steps] == [1, 1]
    assert steps[0][1][0] == EffectCompleted("chain-1/a:1/e0", result=6)
    replayed = replay(_chain(), list(ex.input_log), ex.execution_id)
    assert len(calls) == 2  # nothing performed again
    assert replayed.values == ex.values
    assert replayed.step == ex.step
    assert replayed.input_log == ex.input_log


def test_a_failing_effect_is_retried_under_the_first_policy_that_matches(
    make_driver: DriverFactory,
) -> None:
    # TypeError three times: the KeyError rule (2 attempts) does not match, so the TypeError
    # rule (5 attempts) decides and the fourth attempt succeeds
    keys: list[str] = []

    def flaky(request: Any, ctx: EffectContext) -> Any:
        keys.append(ctx.idempotency_key)
        if len(keys) <= 3:
            raise TypeError(f"attempt {len(keys)}")
        return "ok"

    g = Graph("r").with_channels(out=Append())
    g.add_node("a", _worker(rules=RULES)).start_at("a")
    driver = make_driver({"work": flaky})
    ex = driver.run_graph(g.compile(), payload=1)
    assert ex.failure is None, ex.failure
    assert ex.values["out"] == (("a", "ok"),)
    # every attempt asks under the same idempotency key (the engine's rule for retries)
    assert keys == ["r-1/a:1/e0"] * 4
    assert driver.clock.slept == [1.0, 2.0, 4.0]


def test_a_retry_that_no_policy_matches_fails_the_execution(make_driver: DriverFactory) -> None:
    def broken(request: Any, ctx: EffectContext) -> Any:
        raise ValueError("no rule for me")

    g = Graph("r").with_channels(out=Append())
    g.add_node("a", _worker(rules=RULES)).start_at("a")
    ex = make_driver({"work": broken}).run_graph(g.compile())
    assert ex.failure is not None
    assert (ex.failure.node, ex.failure.error_type) == ("a", "ValueError")
    assert ex.step == 0  # the failed superstep committed nothing


def test_a_held_superstep_keeps_its_siblings_results(make_driver: DriverFactory) -> None:
    # w1 fails once and holds the superstep; w0 and w2 finished: their effects are not
    # performed again when the superstep is delivered again, and it commits once
    counts: dict[str, int] = {}
    lock = threading.Lock()

    def work(request: Any, ctx: EffectContext) -> Any:
        with lock:
            counts[ctx.activation_id] = counts.get(ctx.activation_id, 0) + 1
            first = counts[ctx.activation_id] == 1
        if ctx.node == "w1" and first:
            raise TypeError("once")
        return ctx.node

    driver = make_driver({"work": work})
    ex = driver.run_graph(_fan(3, retry_b=True))
    assert ex.failure is None, ex.failure
    assert counts == {"w0:2": 1, "w1:3": 2, "w2:4": 1}
    assert sorted(ex.values["out"]) == [("w0", "w0"), ("w1", "w1"), ("w2", "w2")]
    assert ex.step == 2  # start, then the fan-out superstep committed once
    assert not ex.kept


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_within_step_effects_respect_the_hosts_concurrency_bound(kind: str) -> None:
    running = 0
    peak = 0
    lock = threading.Lock()

    def enter() -> None:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)

    def leave() -> None:
        nonlocal running
        with lock:
            running -= 1

    def work(request: Any, ctx: EffectContext) -> Any:
        enter()
        time.sleep(0.02)
        leave()
        return ctx.node

    async def awork(request: Any, ctx: EffectContext) -> Any:
        enter()
        await asyncio.sleep(0.02)
        leave()
        return ctx.node

    graph = _fan(6)
    if kind == "sync":
        with Host({"work": work}, clock=VirtualClock(), max_workers=2) as host:
            ex = host.run_graph(graph)
    else:
        ahost = AsyncHost({"work": awork}, clock=VirtualClock(), max_concurrency=2)
        ex = asyncio.run(ahost.run_graph(graph))
    assert ex.failure is None, ex.failure
    assert len(ex.values["out"]) == 6
    assert ex.step == 2  # the six effects were performed within one superstep
    assert peak == 2  # concurrently, and never more than the bound


class _Crash(BaseException):
    """The process dying while a handler runs (not an error a host turns into a failure)."""


def test_a_crash_mid_step_leaves_the_previous_checkpoint() -> None:
    checkpoints: list[ExecutionState] = []
    crash = True

    def work(request: Any, ctx: EffectContext) -> Any:
        if ctx.node == "b" and crash:
            raise _Crash
        return "done"

    def save(ex: Execution, outcome: Any) -> None:
        checkpoints.append(ex.snapshot())

    graph = _chain()
    host = Host({"work": work}, clock=VirtualClock(), on_step=save)
    ex = host.start(graph, payload=1)
    with pytest.raises(_Crash):
        host.run(ex)
    assert [c.step for c in checkpoints] == [1]
    # the superstep that died committed nothing, even in memory
    assert ex.step == 1
    assert ex.values["out"] == (("a", "done"),)
    # a new process restores the last checkpoint and finishes the run
    crash = False
    restored = Execution.restore(graph, checkpoints[-1])
    Host({"work": work}, clock=VirtualClock()).run(restored)
    assert restored.values["out"] == (("a", "done"), ("b", "done"))
    assert restored.step == 2


def test_run_superstep_issues_within_step_effects_as_ordinary_ones() -> None:
    # a driver that performs nothing inside a superstep still runs the graph, a superstep
    # later: the effect is awaited after the commit
    ex = Execution.start(_chain(), "x", payload=2)
    outcome = ex.run_superstep()
    assert outcome.committed and [r.effect_id for r in outcome.effects] == ["x/a:1/e0"]
    ex.deliver(EffectCompleted("x/a:1/e0", result=4))
    ex.run_superstep()
    assert ex.values["out"] == (("a", 4),)


def test_an_open_superstep_changes_nothing_until_it_ends() -> None:
    ex = Execution.start(_chain(), "x", payload=2)
    log = list(ex.input_log)
    step = ex.begin_superstep()
    assert [r.effect_id for r in step.effects] == ["x/a:1/e0"]
    assert ex.step == 0 and ex.input_log == log and ex.queue
    with pytest.raises(RuntimeError, match="still waits"):
        ex.end_superstep(step)
    with pytest.raises(ValueError, match="x/a:1/e0"):
        step.supply([])
    step.supply([EffectCompleted("x/a:1/e0", result=4)])
    outcome = ex.end_superstep(step)
    assert outcome.committed and ex.step == 1
    assert ex.values["out"] == (("a", 4),)
    assert ex.input_log[-1] == ("superstep", (EffectCompleted("x/a:1/e0", result=4),))


def test_a_last_value_channel_sees_both_reactions_of_a_step() -> None:
    # the reaction that asks and the one that gets the result write in the same superstep:
    # their writes combine as one activation's
    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            effect = Effect("work", 5, within_step=True)
            return Reaction(updates={"log": "asked"}, effects=[effect], disposition=RemainActive())
        assert isinstance(event, EffectCompleted)
        return Reaction(updates={"log": "got", "last": event.result})

    g = Graph("w").with_channels(log=Append(), last=LastValue())
    g.add_node("a", react).start_at("a")
    with Host({"work": _double}, clock=VirtualClock()) as host:
        ex = host.run_graph(g.compile())
    assert ex.step == 1
    assert ex.values["log"] == ("asked", "got")
    assert ex.values["last"] == 10
