"""The hosts' ``step_timeout``: the effects one superstep requested may take that long
together, on the host's clock. Past it the asyncio host cancels those still running (their
cleanup runs) and the run raises `StepTimeoutError`; the thread host, which cannot cancel a
thread, raises it once they returned, without delivering their results. Virtual clock."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from superstep_core import (
    Activated,
    CompleteActivation,
    Effect,
    EffectCompleted,
    Event,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    RemainActive,
    Status,
)
from superstep_core.graph import CompiledGraph
from superstep_core.host import AsyncHost, Host, StepTimeoutError
from superstep_core.testing import VirtualClock


def _two_effects(first: Callable[[], Any], second: Callable[[], Any]) -> CompiledGraph:
    """A node requesting two effects in one superstep; it completes once both returned."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            effects = [Effect("call", first), Effect("call", second)]
            return Reaction(effects=effects, disposition=RemainActive())
        assert isinstance(event, EffectCompleted)
        return Reaction(updates={"out": event.result}, disposition=CompleteActivation())

    g = Graph("g").with_channels(out=LastValue()).add_node("n", react)
    return g.start_at("n").compile()


def test_the_async_host_cancels_a_step_past_its_timeout() -> None:
    clock = VirtualClock()
    seen: list[str] = []

    async def hangs() -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        return "never"

    async def quick() -> str:
        await clock.asleep(1)
        seen.append("quick")
        return "quick"

    host = AsyncHost(clock=clock, step_timeout=3)
    with pytest.raises(StepTimeoutError, match=r"step timeout of 3\.000s") as raised:
        asyncio.run(host.run_graph(_two_effects(hangs, quick)))
    assert isinstance(raised.value, TimeoutError)
    assert seen == ["quick", "cancelled"]
    assert clock.now() == 3.0


def test_a_step_within_its_timeout_is_not_affected() -> None:
    async def quick() -> str:
        await asyncio.sleep(0)
        return "quick"

    host = AsyncHost(clock=VirtualClock(), step_timeout=3)
    ex = asyncio.run(host.run_graph(_two_effects(quick, quick)))
    assert ex.status is Status.COMPLETED


def test_the_thread_host_raises_once_an_overrunning_step_returned() -> None:
    clock = VirtualClock()
    done: list[str] = []

    def slow() -> str:
        clock.advance(5)
        done.append("slow")
        return "slow"

    def quick() -> str:
        return "quick"

    host = Host(clock=clock, step_timeout=3)
    with pytest.raises(StepTimeoutError):
        host.run_graph(_two_effects(slow, quick))
    assert done == ["slow"]  # it ran to its end: a thread is not cancelled
    ok = Host(clock=VirtualClock(), step_timeout=3).run_graph(_two_effects(quick, quick))
    assert ok.status is Status.COMPLETED
