"""Retries and failure routes inside their superstep (`OpenSuperstep.retry_within`): a
within-step effect whose activation fails with a retry left is performed again by the host
in the same runner as soon as it fails, after its backoff on the host's clock, while the
superstep's other effects still run; one that fails for good hands over to its node's
failure route there too. A sibling effect that waits for the retried (or the route's) work
proves it: before, the retry started only once the whole round had returned, so the sibling
waited in vain. The log keeps every attempt, and a replay rebuilds the same execution."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

from superstep_core import (
    Activated,
    Append,
    AsyncHost,
    CompleteActivation,
    Effect,
    EffectCompleted,
    EffectContext,
    Event,
    Execution,
    FailActivation,
    Failure,
    FailureClass,
    Graph,
    Host,
    NodeContext,
    NodeFailed,
    OneShotEffect,
    Reaction,
    RetryPolicy,
    Spawn,
)
from superstep_core.graph import CompiledGraph
from superstep_core.host.clock import VirtualClock
from superstep_core.node import EffectFailure, NodeFn
from superstep_core.persistence.replay import replay

from .support import DriverFactory

RETRY = RetryPolicy(max_attempts=3, initial_interval=1.0)
WAIT = 5.0  # seconds a sibling waits for the work it expects (real time: the hosts' threads)


def _worker() -> OneShotEffect:
    """Asks for one within-step effect with its payload (a route's activation: for the
    failure it took over) and writes ``(activation, result)``; a failed effect fails it,
    retryably for a TypeError."""

    def request(ctx: NodeContext, event: Event) -> Effect | Reaction:
        assert isinstance(event, Activated)
        payload = event.payload
        if isinstance(payload, NodeFailed):
            payload = f"handle {payload.payload}"
        return Effect("work", payload, ctx.node, within_step=True)

    def settle(ctx: NodeContext, event: EffectCompleted) -> Reaction:
        if event.result == "try again":  # the effect ran, its outcome asks for a retry
            failure = Failure(FailureClass.RETRYABLE, "asked to", "Again")
            return Reaction(disposition=FailActivation(failure))
        if event.error is not None:
            retryable = event.error.type == "TypeError"
            failure = Failure(
                FailureClass.RETRYABLE if retryable else FailureClass.PERMANENT,
                event.error.message,
                event.error.type,
            )
            return Reaction(disposition=FailActivation(failure))
        return Reaction(updates={"out": (ctx.node, event.result)}, disposition=CompleteActivation())

    return OneShotEffect(request, settle)


def _plain(node: OneShotEffect) -> NodeFn:
    def react(ctx: NodeContext, event: Event) -> Reaction:
        return node(ctx, event)

    return react


def _graph(plain: bool, *, route: bool = False) -> CompiledGraph:
    """``start`` spawns ``w`` per item of its payload; ``w`` retries under `RETRY` and holds
    its superstep (``route``: a failure for good goes on as ``handler``)."""

    def start(ctx: NodeContext, event: Event) -> Reaction:
        assert isinstance(event, Activated)
        return Reaction(control=[Spawn("w", item) for item in event.payload])

    def node() -> NodeFn:
        return _plain(_worker()) if plain else _worker()

    g = Graph("within-retry").with_channels(out=Append())
    g.add_node("start", start, may_activate=["w"])
    g.add_node(
        "w", node(), retry=RETRY, retry_holds_step=True, on_failure="handler" if route else None
    )
    if route:
        g.add_node("handler", node())
    return g.start_at("start").compile()


def _work(attempts: list[str]) -> Callable[[Any, EffectContext], Any]:
    """``flaky`` fails twice (TypeError) then sets ``done``; ``broken`` always fails
    (ValueError); ``handle ...`` sets ``done``; ``slow`` waits for ``done``."""
    done = threading.Event()
    lock = threading.Lock()

    def work(request: Any, ctx: EffectContext) -> Any:
        with lock:
            attempts.append(request)
        if request == "flaky":
            if attempts.count("flaky") < 3:
                raise TypeError("not yet")
            done.set()
            return "flaky ok"
        if request == "asks again":
            return "try again" if attempts.count(request) < 3 else "third time"
        if request == "broken":
            raise ValueError("for good")
        if isinstance(request, str) and request.startswith("handle"):
            done.set()
            return request
        if request == "slow":
            return "saw it" if done.wait(WAIT) else "waited in vain"
        return request

    return work


@pytest.mark.parametrize("plain", [False, True], ids=["one-shot", "plain"])
def test_a_failed_effect_is_retried_while_its_siblings_run(
    make_driver: DriverFactory, plain: bool
) -> None:
    attempts: list[str] = []
    driver = make_driver({"work": _work(attempts)})
    graph = _graph(plain)
    ex = driver.run_graph(graph, payload=["flaky", "slow"])

    assert ex.failure is None
    assert sorted(ex.values["out"]) == [("w", "flaky ok"), ("w", "saw it")]
    assert attempts.count("flaky") == 3
    assert ex.step == 2  # start's superstep, then one for both tasks: nothing held
    assert driver.clock.slept == [1.0, 2.0]  # the policy's backoffs, on the host's clock
    # every attempt is logged; a replay rebuilds the execution and performs nothing
    replayed = replay(graph, list(ex.input_log), ex.execution_id)
    assert replayed.values == ex.values
    assert replayed.step == ex.step
    assert replayed.input_log == ex.input_log


@pytest.mark.parametrize("plain", [False, True], ids=["one-shot", "plain"])
def test_a_failure_for_good_goes_on_as_its_route_while_its_siblings_run(
    make_driver: DriverFactory, plain: bool
) -> None:
    attempts: list[str] = []
    driver = make_driver({"work": _work(attempts)})
    graph = _graph(plain, route=True)
    ex = driver.run_graph(graph, payload=["broken", "slow"])

    assert ex.failure is None
    assert sorted(ex.values["out"]) == [("handler", "handle broken"), ("w", "saw it")]
    assert attempts.count("broken") == 1  # a permanent failure: no retry, the route at once
    assert ex.step == 2
    assert not ex.instances
    replayed = replay(graph, list(ex.input_log), ex.execution_id)
    assert replayed.values == ex.values
    assert replayed.input_log == ex.input_log


def test_the_route_s_activation_is_named_in_the_outcome() -> None:
    """A host that asks `retry_within` gets the route's request in the failed one's place;
    the superstep's outcome names the activation that took over, with its `NodeFailed`."""
    graph = _graph(False, route=True)
    ex = Execution.start(graph, "x", payload=["broken"])
    ex.run_superstep()  # start: spawns w
    step = ex.begin_superstep()
    (request,) = step.effects
    failed = EffectCompleted(request.effect_id, error=_failure("ValueError"), tag="w")
    again = step.retry_within(request, failed)
    assert again is not None and again.delay == 0.0
    assert again.request.node == "handler"
    result = EffectCompleted(again.request.effect_id, result="handled", tag="handler")
    assert step.retry_within(again.request, result) is None
    step.supply([result])
    outcome = ex.end_superstep(step)
    assert outcome.committed
    ((aid, payload),) = outcome.handed_over
    assert aid == again.request.activation_id
    assert isinstance(payload, NodeFailed) and payload.activation_id == request.activation_id
    assert list(ex.values["out"]) == [("handler", "handled")]


def _failure(kind: str) -> EffectFailure:
    return EffectFailure(kind, "boom", False)


class _Ledger:
    """Every result recorded by effect id, as a durable execution's ledger keeps them."""

    def __init__(self) -> None:
        self.results: dict[str, EffectCompleted] = {}

    def recorded(self, effect_id: str) -> EffectCompleted | None:
        return self.results.get(effect_id)

    def record(self, completed: EffectCompleted) -> None:
        self.results[completed.effect_id] = completed


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_retry_is_performed_though_the_ledger_holds_the_attempt_before(kind: str) -> None:
    """A retry keeps its effect's id (its idempotency key), and the attempt that ran but
    asked for a retry was recorded under it: the retry is performed, not answered by the
    ledger with that attempt's result."""
    attempts: list[str] = []
    ledger = _Ledger()
    handlers = {"work": _work(attempts)}
    graph = _graph(False)
    if kind == "sync":
        with Host(handlers, clock=VirtualClock(), ledger=ledger) as host:
            ex = host.run_graph(graph, payload=["asks again"])
    else:
        ahost = AsyncHost(handlers, clock=VirtualClock(), ledger=ledger)
        ex = asyncio.run(ahost.run_graph(graph, payload=["asks again"]))
    assert attempts == ["asks again"] * 3
    assert list(ex.values["out"]) == [("w", "third time")]
