"""One-shot effect nodes (`OneShotEffect`): a node whose activation asks for one effect and
settles on its result. The runtime asks for the effect and stages the settled reaction
directly in a superstep the host performs within; every observable thing (values, steps,
effect ids, input log, trace, failures, held supersteps, interrupts, replay) is what the
same node gives as a plain reducer, which the runtime knows nothing about."""

from __future__ import annotations

import threading
from collections.abc import Callable
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
    NodeContext,
    OneShotEffect,
    Reaction,
    RemainActive,
    Resumed,
    RetryPolicy,
    Spawn,
    Status,
    SuspendActivation,
)
from superstep_core.graph import CompiledGraph
from superstep_core.node import NodeFn
from superstep_core.persistence.replay import replay
from superstep_core.runtime import Execution

from .support import DriverFactory, drain

RETRY = RetryPolicy(max_attempts=3, initial_interval=1.0)


def _shot(*, again: bool = False, within: bool = True) -> OneShotEffect:
    """Asks for one effect of kind ``work`` with its payload (a resumed activation: with the
    answer), writes ``(node, result)`` to ``out`` and completes; a result ``"ask"`` suspends it
    (an interrupt), a failed effect fails it, retryably for a TypeError. ``again``: a result
    ``"more"`` asks for a second within-step effect before settling."""

    def request(ctx: NodeContext, event: Event) -> Effect | Reaction:
        if isinstance(event, Activated):
            if event.payload == "skip":  # no work: a whole reaction instead of an effect
                return Reaction(updates={"out": (ctx.node, "skipped")})
            ctx.memory["asked"] = event.payload
            return Effect("work", event.payload, ctx.node, within_step=within)
        if isinstance(event, Resumed):
            return Effect("work", ("answer", event.value), ctx.node, within_step=within)
        return Reaction(disposition=RemainActive())

    def settle(ctx: NodeContext, event: EffectCompleted) -> Reaction:
        if event.error is not None:
            retryable = event.error.type == "TypeError"
            cls = FailureClass.RETRYABLE if retryable else FailureClass.PERMANENT
            failure = Failure(
                cls, event.error.message, event.error.type, RETRY if retryable else None
            )
            return Reaction(disposition=FailActivation(failure))
        if event.result == "ask":
            return Reaction(disposition=SuspendActivation(f"{ctx.node} asks"))
        if again and event.result == "more":
            effect = Effect("work", "second", ctx.node, within_step=True)
            more = {"out": (ctx.node, "more")}
            return Reaction(updates=more, effects=[effect], disposition=RemainActive())
        return Reaction(updates={"out": (ctx.node, event.result)}, disposition=CompleteActivation())

    return OneShotEffect(request, settle)


def _as_plain(node: OneShotEffect) -> NodeFn:
    """The same node as a plain reducer: the runtime cannot tell its shape."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        return node(ctx, event)

    return react


def _graph(plain: bool, **shot: Any) -> CompiledGraph:
    """``start`` spawns ``w`` per item of its payload (``w`` retries TypeError and holds its
    superstep, and holds it on an interrupt too), each leading to ``end``, itself one shot."""

    def node(n: OneShotEffect) -> NodeFn:
        return _as_plain(n) if plain else n

    def start(ctx: NodeContext, event: Event) -> Reaction:
        assert isinstance(event, Activated)
        return Reaction(control=[Spawn("w", item) for item in event.payload])

    g = Graph("shots").with_channels(out=Append())
    g.add_node("start", start, may_activate=["w"])
    g.add_node("w", node(_shot(**shot)), retry_holds_step=True, suspend_holds_step=True)
    g.add_node("end", node(_shot(**shot)), coalesce=True)
    return g.connect("w", "end").start_at("start").compile()


def _work(calls: list[Any]) -> Callable[[Any, EffectContext], Any]:
    lock = threading.Lock()

    def work(request: Any, ctx: EffectContext) -> Any:
        with lock:
            calls.append((ctx.idempotency_key, request))
            tries = sum(1 for key, _ in calls if key == ctx.idempotency_key)
        if request == "fail-once" and tries == 1:
            raise TypeError("once")
        if request == "broken":
            raise ValueError("for good")
        if isinstance(request, tuple):
            return f"answered {request[1]}"
        return request

    return work


def _seen(ex: Execution) -> tuple[Any, ...]:
    return (
        ex.values,
        ex.step,
        ex.status,
        ex.input_log,
        [(r.step, r.delivered, r.written, r.dropped) for r in ex.trace],
        ex.failure,
    )


@pytest.mark.parametrize(
    "payload",
    [
        ["a", "b", "c"],  # one superstep of three shots, then end's
        ["a", "fail-once", "c"],  # a retry holds the superstep; the siblings' results kept
        ["a", "broken"],  # a permanent failure fails the execution
        ["skip", "b"],  # a request that is a whole reaction
        [None, None],  # results None
    ],
)
def test_a_one_shot_node_runs_as_its_plain_reducer_does(
    make_driver: DriverFactory, payload: list[Any]
) -> None:
    runs = []
    for plain in (True, False):
        calls: list[Any] = []
        ex = make_driver({"work": _work(calls)}).run_graph(_graph(plain), payload=payload)
        runs.append((_seen(ex), sorted(calls, key=repr)))
    assert runs[0] == runs[1]
    (values, step, status, log, _, failure), _ = runs[1]
    if "broken" in payload:
        assert failure is not None and failure.error_type == "ValueError"
    else:
        assert failure is None and status is Status.COMPLETED
        assert len(values["out"]) == len(payload) + 1
    # every within-step result is in the input log, so a replay performs nothing
    replayed = replay(_graph(False), list(log), "shots-1")
    assert replayed.values == values and replayed.step == step


def test_a_settle_that_asks_again_takes_another_round(make_driver: DriverFactory) -> None:
    runs = []
    for plain in (True, False):
        calls: list[Any] = []
        driver = make_driver({"work": _work(calls)})
        ex = driver.run_graph(_graph(plain, again=True), payload=["more"])
        runs.append((_seen(ex), sorted(calls, key=repr)))
    assert runs[0] == runs[1]
    values = runs[1][0][0]
    # w's two reactions in one superstep write as one activation; end asks once
    assert values["out"] == (("w", "more"), ("w", "second"), ("end", None))


def test_interrupts_hold_the_superstep_and_resume_as_a_plain_reducer_does(
    make_driver: DriverFactory,
) -> None:
    runs = []
    for plain in (True, False):
        calls: list[Any] = []
        driver = make_driver({"work": _work(calls)})
        ex = driver.run_graph(_graph(plain), payload=["a", "ask", "c"])
        paused = (ex.status, ex.step, dict(ex.values), list(ex.interrupts))
        (asking,) = [i.id for i in ex.instances.values() if i.state == "suspended"]
        driver.resume(ex, 42, asking)
        runs.append((paused, _seen(ex), sorted(calls, key=repr)))
    assert runs[0] == runs[1]
    paused, (values, *_), calls = runs[1]
    assert paused[0] is Status.SUSPENDED and paused[2]["out"] == ()  # nothing committed
    assert sorted(values["out"]) == [("end", None), ("w", "a"), ("w", "answered 42"), ("w", "c")]
    # the siblings' effects ran once: their results were kept while the step was held
    assert [request for _, request in calls].count("a") == 1


def test_a_raising_request_or_settle_fails_its_activation(make_driver: DriverFactory) -> None:
    def boom(ctx: NodeContext, event: Any) -> Any:
        raise KeyError("bug")

    for node in (
        OneShotEffect(boom, boom),
        OneShotEffect(lambda c, e: Effect("work", 1, within_step=True), boom),
    ):
        runs = []
        for plain in (True, False):
            g = Graph("bug").with_channels(out=Append())
            g.add_node("a", _as_plain(node) if plain else node).start_at("a")
            ex = make_driver({"work": _work([])}).run_graph(g.compile())
            runs.append(_seen(ex))
        assert runs[0] == runs[1]
        failure = runs[1][-1]
        assert failure is not None and (failure.node, failure.error_type) == ("a", "KeyError")


def test_an_ordinary_effect_is_performed_after_the_commit(make_driver: DriverFactory) -> None:
    ex = make_driver({"work": _work([])}).run_graph(_graph(False, within=False), payload=["a"])
    assert ex.failure is None
    assert ex.values["out"] == (("w", "a"), ("end", None))
    assert ex.step == 5  # start; w asks; w settles; end asks; end settles


def test_run_superstep_uses_the_reducer_form() -> None:
    # a driver that performs nothing within a superstep gets the effect as an ordinary one
    ex = Execution.start(_graph(False), "x", payload=["a"])
    drain(ex, lambda r: EffectCompleted(r.effect_id, result=r.effect.request))
    assert ex.values["out"] == (("w", "a"), ("end", None))


def test_the_runtime_asks_and_settles_without_the_reducer_form(
    make_driver: DriverFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(self: OneShotEffect, ctx: NodeContext, event: Event) -> Reaction:
        raise AssertionError("the reducer form was called")

    monkeypatch.setattr(OneShotEffect, "__call__", never)
    ex = make_driver({"work": _work([])}).run_graph(_graph(False), payload=["a", "b"])
    assert ex.failure is None, ex.failure
    assert sorted(ex.values["out"]) == [("end", None), ("w", "a"), ("w", "b")]
