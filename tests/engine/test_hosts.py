"""Hosts perform effects: concurrently within a superstep, delivered in request order, errors
classified retryable or permanent. `Host` and `AsyncHost` share these semantics, so every
scenario here runs on both."""

from __future__ import annotations

import threading
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
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    RemainActive,
    RetryableEffectError,
    Status,
    effect_node,
)
from superstep_core.graph import CompiledGraph
from superstep_core.host import classify

from .support import DriverFactory


def _gather(n: int, kind: str = "work") -> CompiledGraph:
    """One node requesting ``n`` effects of ``kind`` at once; it appends each result (or
    error) in the order they are delivered, then completes."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            effects = [Effect(kind, i, tag=f"item{i}") for i in range(n)]
            return Reaction(effects=effects, disposition=RemainActive())
        assert isinstance(event, EffectCompleted)
        ctx.memory["left"] = ctx.memory.get("left", n) - 1
        item = (event.tag, event.result if event.ok else event.error)
        done = ctx.memory["left"] == 0
        return Reaction(
            updates={"results": item},
            disposition=CompleteActivation() if done else RemainActive(),
        )

    g = Graph("g").with_channels(results=Append()).add_node("fan", react).start_at("fan")
    return g.compile()


def test_a_handler_gets_the_request_and_an_effect_context(make_driver: DriverFactory) -> None:
    contexts: list[EffectContext] = []

    def work(request: Any, ctx: EffectContext) -> Any:
        contexts.append(ctx)
        return request * 2

    driver = make_driver({"work": work})
    ex = driver.run_graph(_gather(1))
    assert ex.values["results"] == (("item0", 0),)
    (ctx,) = contexts
    assert ctx == EffectContext(f"{ex.execution_id}/fan:1/e0", ex.execution_id, "fan", "fan:1")
    assert driver.performed == {ctx.idempotency_key: 1}


def test_the_effects_of_one_superstep_run_concurrently(make_driver: DriverFactory) -> None:
    # each handler waits until all three are running at once: serial execution would break
    # the barrier (after its timeout) instead of passing it
    barrier = threading.Barrier(3, timeout=5)

    def work(request: int, ctx: EffectContext) -> int:
        barrier.wait()
        return request

    ex = make_driver({"work": work}).run_graph(_gather(3))
    assert ex.status is Status.COMPLETED
    assert [r for _, r in ex.values["results"]] == [0, 1, 2]


def test_results_are_delivered_in_request_order_whatever_order_they_finish_in(
    make_driver: DriverFactory,
) -> None:
    n = 4
    finished = [threading.Event() for _ in range(n)]
    finish_order: list[int] = []
    lock = threading.Lock()

    def work(request: int, ctx: EffectContext) -> int:
        # item i finishes only after item i+1 did: they finish in reverse order
        if request + 1 < n:
            assert finished[request + 1].wait(timeout=5)
        with lock:
            finish_order.append(request)
        finished[request].set()
        return request

    ex = make_driver({"work": work}).run_graph(_gather(n))
    assert finish_order == [3, 2, 1, 0]
    assert [tag for tag, _ in ex.values["results"]] == ["item0", "item1", "item2", "item3"]


def test_a_launch_key_orders_the_starts_and_results_keep_request_order(
    make_driver: DriverFactory,
) -> None:
    started: list[int] = []

    def work(request: int, ctx: EffectContext) -> int:
        started.append(request)
        return request

    driver = make_driver({"work": work})
    host = driver.host
    # one effect at a time, so the start order is the launch order
    if hasattr(host, "max_workers"):
        host.max_workers = 1
    else:
        host.max_concurrency = 1
    host.launch_key = lambda request: request.effect.request % 2  # even items first
    ex = driver.run_graph(_gather(4))
    assert started == [0, 2, 1, 3]
    assert [tag for tag, _ in ex.values["results"]] == ["item0", "item1", "item2", "item3"]


@pytest.mark.parametrize(
    ("error", "retryable"),
    [
        (RetryableEffectError("429 too many requests"), True),
        (TimeoutError("read timed out"), True),
        (ConnectionError("reset by peer"), True),
        (ValueError("bad request"), False),
        (KeyError("k"), False),
    ],
)
def test_handler_errors_are_classified_retryable_or_permanent(
    make_driver: DriverFactory, error: Exception, retryable: bool
) -> None:
    def work(request: Any, ctx: EffectContext) -> Any:
        raise error

    ex = make_driver({"work": work}).run_graph(_gather(1))
    ((_, failure),) = ex.values["results"]
    assert failure.type == type(error).__name__
    assert failure.message == str(error)
    assert failure.retryable is retryable


def test_an_error_with_a_true_retryable_attribute_is_retryable() -> None:
    class Http503(Exception):
        retryable = True

    assert classify(Http503())
    assert not classify(RuntimeError())


def test_an_effect_with_no_handler_fails_with_a_clear_error(make_driver: DriverFactory) -> None:
    ex = make_driver({"other": lambda r, c: r}).run_graph(_gather(1, kind="mail"))
    ((_, failure),) = ex.values["results"]
    assert failure.type == "LookupError"
    assert not failure.retryable
    assert failure.message == (
        "node 'fan' requested an effect of kind 'mail', but the host has no handler for it; "
        "registered kinds: other"
    )


def test_a_missing_handler_fails_an_effect_node_naming_the_kind(
    make_driver: DriverFactory,
) -> None:
    node = effect_node("mail", request=lambda s, p: p, on_result=lambda s, r, p: {"x": r})
    g = Graph("g").with_channels(x=LastValue()).add_node("send", node).start_at("send")
    ex = make_driver().run_graph(g.compile())
    assert ex.status is Status.FAILED
    assert ex.failure is not None
    assert "effect of kind 'mail', but the host has no handler" in ex.failure.message


def test_a_call_effect_runs_its_callable_without_a_handler(make_driver: DriverFactory) -> None:
    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            return Reaction(effects=[Effect("call", lambda: 6 * 7)], disposition=RemainActive())
        assert isinstance(event, EffectCompleted)
        return Reaction(updates={"x": event.result})

    g = Graph("g").with_channels(x=LastValue()).add_node("a", react).start_at("a")
    assert make_driver().run_graph(g.compile()).values == {"x": 42}


def test_effect_node_writes_the_result_and_completes_with_it(make_driver: DriverFactory) -> None:
    node = effect_node("double", request=lambda s, p: p, on_result=lambda s, r, p: {"x": (p, r)})
    g = Graph("g").with_channels(x=LastValue()).add_node("d", node).start_at("d").end_at("d")
    ex = make_driver({"double": lambda r, c: r * 2}).run_graph(g.compile(), payload=21)
    assert ex.values == {"x": (21, 42)}
    assert ex.outputs == [("d", 42)]


def test_the_async_host_awaits_coroutine_handlers() -> None:
    import asyncio

    from superstep_core import AsyncHost
    from superstep_core.testing import VirtualClock

    async def work(request: int, ctx: EffectContext) -> int:
        await asyncio.sleep(0)
        return request + 100

    host = AsyncHost({"work": work}, clock=VirtualClock())
    ex = asyncio.run(host.run_graph(_gather(2)))
    assert [r for _, r in ex.values["results"]] == [100, 101]


def test_a_recorded_result_in_the_ledger_is_used_instead_of_performing_again(
    make_driver: DriverFactory,
) -> None:
    class Ledger:
        def __init__(self) -> None:
            self.results: dict[str, EffectCompleted] = {}

        def recorded(self, effect_id: str) -> EffectCompleted | None:
            return self.results.get(effect_id)

        def record(self, completed: EffectCompleted) -> None:
            self.results[completed.effect_id] = completed

    calls: list[int] = []

    def work(request: int, ctx: EffectContext) -> int:
        calls.append(request)
        return request

    ledger = Ledger()
    first = make_driver({"work": work})
    first.host.ledger = ledger
    first.run_graph(_gather(2))
    second = make_driver({"work": work})
    second.host.ledger = ledger
    ex = second.run_graph(_gather(2))
    assert calls == [0, 1]
    assert second.performed == {}
    assert [r for _, r in ex.values["results"]] == [0, 1]
