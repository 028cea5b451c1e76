"""A host's result observer (`HostCore.on_result`) sees each effect's result as that effect
ends, before the superstep's results are delivered together, and may stop the superstep's
other effects: the asyncio host cancels those still running (their own cleanup runs), the
threaded host skips those not started; either way they come back failed with
`EffectCancelledError`. Cancelling an asyncio host's caller cancels and awaits every effect
still running before the cancellation goes on."""

from __future__ import annotations

import asyncio
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
    NodeContext,
    Reaction,
    RemainActive,
)
from superstep_core.host import AsyncHost, EffectCancelledError, Host
from superstep_core.runtime import EffectRequest


def _gather(n: int) -> Graph:
    """One node asking for ``n`` effects at once; it appends (tag, result or error type)."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            effects = [Effect("work", i, tag=f"item{i}") for i in range(n)]
            return Reaction(effects=effects, disposition=RemainActive())
        assert isinstance(event, EffectCompleted)
        ctx.memory["left"] = ctx.memory.get("left", n) - 1
        seen = event.result if event.error is None else event.error.type
        done = ctx.memory["left"] == 0
        return Reaction(
            updates={"results": (event.tag, seen)},
            disposition=CompleteActivation() if done else RemainActive(),
        )

    return Graph("g").with_channels(results=Append()).add_node("fan", react).start_at("fan")


def test_async_observer_sees_results_as_they_end_and_stops_the_rest() -> None:
    seen: list[tuple[str, Any]] = []
    cleaned: list[int] = []

    async def work(request: int, ctx: EffectContext) -> Any:
        if request == 1:
            return "fast"
        try:
            await asyncio.sleep(30)
        finally:
            cleaned.append(request)
        return "slow"

    def observe(request: EffectRequest, result: EffectCompleted) -> bool:
        seen.append((request.effect.tag or "", result.result))
        return result.result == "fast"

    host = AsyncHost({"work": work})
    host.on_result = observe
    ex = asyncio.run(asyncio.wait_for(host.run_graph(_gather(3).compile()), 5))
    assert seen == [("item1", "fast")]
    assert sorted(cleaned) == [0, 2]
    assert ex.values["results"] == (
        ("item0", EffectCancelledError.__name__),
        ("item1", "fast"),
        ("item2", EffectCancelledError.__name__),
    )


def test_async_observer_returning_false_changes_nothing() -> None:
    order: list[int] = []

    # each effect ends only once the one after it was observed: completion order 2, 1, 0
    # whatever the machine's load (sleeps of different lengths reorder on a busy machine)
    observed: dict[int, asyncio.Event] = {}

    async def work(request: int, ctx: EffectContext) -> int:
        if request < 2:
            await observed.setdefault(request + 1, asyncio.Event()).wait()
        return request

    def observe(request: EffectRequest, result: EffectCompleted) -> bool:
        order.append(result.result)
        observed.setdefault(result.result, asyncio.Event()).set()
        return False

    host = AsyncHost({"work": work})
    host.on_result = observe
    # (an observer called only after every effect ended would leave them waiting: time out)
    ex = asyncio.run(asyncio.wait_for(host.run_graph(_gather(3).compile()), 5))
    assert order == [2, 1, 0]  # completion order
    assert [r for _, r in ex.values["results"]] == [0, 1, 2]  # still request order


def test_cancelling_the_caller_awaits_every_running_effect_first() -> None:
    log: list[str] = []

    async def work(request: int, ctx: EffectContext) -> None:
        try:
            await asyncio.sleep(30)
        finally:
            await asyncio.sleep(0.01)  # cleanup that itself awaits
            log.append(f"cleaned {request}")

    async def main() -> None:
        host = AsyncHost({"work": work})
        host.on_result = lambda request, result: False
        run = asyncio.ensure_future(host.run_graph(_gather(2).compile()))
        await asyncio.sleep(0.05)
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        log.append("caller saw the cancellation")

    asyncio.run(main())
    assert log[-1] == "caller saw the cancellation"
    assert sorted(log[:2]) == ["cleaned 0", "cleaned 1"]


def test_threaded_observer_skips_effects_not_started() -> None:
    started: list[int] = []
    lock = threading.Lock()

    def work(request: int, ctx: EffectContext) -> int:
        with lock:
            started.append(request)
        return request

    host = Host({"work": work}, max_workers=1)  # one worker: effects run one after another
    host.on_result = lambda request, result: result.result == 1
    try:
        ex = host.run_graph(_gather(4).compile())
    finally:
        host.close()
    assert started == [0, 1]
    assert ex.values["results"] == (
        ("item0", 0),
        ("item1", 1),
        ("item2", EffectCancelledError.__name__),
        ("item3", EffectCancelledError.__name__),
    )
