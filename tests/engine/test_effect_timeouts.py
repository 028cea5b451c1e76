"""Effect timeouts: the host stops an effect past its ``timeout`` (or ``idle_timeout`` without
a `heartbeat`) on its clock and delivers a retryable ``EffectTimeoutError`` failure, which the
node's retry policy retries like any other. Virtual clock: no test waits for real time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from superstep_core import (
    Activated,
    CompleteActivation,
    Effect,
    EffectCompleted,
    Event,
    FailActivation,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    RemainActive,
    RetryPolicy,
    Status,
)
from superstep_core.graph import CompiledGraph
from superstep_core.host import AsyncHost, Host, heartbeat
from superstep_core.testing import VirtualClock

Work = Callable[[int], Awaitable[str]]


def _timed(
    work: Work,
    *,
    timeout: float | None = None,
    idle: float | None = None,
    retry: RetryPolicy | None = None,
) -> tuple[CompiledGraph, list[Any]]:
    """A node asking for one effect, ``work(attempt)``, under the given limits; it writes
    the result, or fails retryably with the failure (recorded in the returned list)."""
    failures: list[Any] = []

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            call = partial(work, ctx.attempt)
            effect = Effect("call", call, timeout=timeout, idle_timeout=idle)
            return Reaction(effects=[effect], disposition=RemainActive())
        assert isinstance(event, EffectCompleted)
        if event.error is not None:
            failures.append(event.error)
            return Reaction(disposition=FailActivation.retryable(event.error.message))
        return Reaction(updates={"out": event.result}, disposition=CompleteActivation())

    g = Graph("g").with_channels(out=LastValue()).add_node("n", react, retry=retry)
    return g.start_at("n").compile(), failures


def _run_async(graph: CompiledGraph, clock: VirtualClock) -> Any:
    return asyncio.run(AsyncHost(clock=clock).run_graph(graph))


async def _hangs_on_first_attempt(attempt: int) -> str:
    if attempt == 1:
        await asyncio.Event().wait()
    return f"done on attempt {attempt}"


def test_an_effect_past_its_timeout_is_cancelled_and_fails_retryably_on_the_clock() -> None:
    graph, failures = _timed(_hangs_on_first_attempt, timeout=2.0)
    clock = VirtualClock()
    ex = _run_async(graph, clock)
    assert ex.status is Status.FAILED
    [failure] = failures
    assert (failure.type, failure.retryable, failure.timeout) == ("EffectTimeoutError", True, "run")
    assert failure.elapsed == 2.0
    assert "exceeded its timeout of 2.000s" in failure.message
    assert clock.now() == 2.0


def test_a_timed_out_effect_is_retried_by_the_node_policy() -> None:
    retry = RetryPolicy(max_attempts=2, initial_interval=1)
    graph, failures = _timed(_hangs_on_first_attempt, timeout=2.0, retry=retry)
    clock = VirtualClock()
    ex = _run_async(graph, clock)
    assert ex.values == {"out": "done on attempt 2"}
    assert len(failures) == 1
    assert clock.now() == 3.0  # the 2 s timeout, then the 1 s backoff


def test_an_effect_within_its_timeout_returns_its_result() -> None:
    async def quick(attempt: int) -> str:
        await asyncio.sleep(0)
        return "quick"

    graph, failures = _timed(quick, timeout=5.0)
    ex = _run_async(graph, VirtualClock())
    assert ex.values == {"out": "quick"}
    assert failures == []


def test_heartbeats_keep_an_effect_under_its_idle_timeout_alive() -> None:
    clock = VirtualClock()

    async def beating(attempt: int) -> str:
        for _ in range(5):
            await clock.asleep(0.5)
            heartbeat()
        return "beat"

    graph, failures = _timed(beating, idle=1.0)
    ex = _run_async(graph, clock)
    assert ex.values == {"out": "beat"}
    assert failures == []


def test_an_effect_silent_past_its_idle_timeout_fails_as_idle() -> None:
    clock = VirtualClock()

    async def silent(attempt: int) -> str:
        heartbeat()
        await asyncio.Event().wait()
        return "never"

    graph, failures = _timed(silent, idle=1.0, timeout=10.0)
    _run_async(graph, clock)
    [failure] = failures
    assert (failure.timeout, failure.elapsed) == ("idle", 1.0)
    assert "idle timeout of 1.000s" in failure.message


def test_the_thread_host_reports_an_overrun_once_the_call_returns() -> None:
    clock = VirtualClock()

    def slow(attempt: int) -> str:
        clock.advance(3.0)  # the call took 3 s of the host's clock
        return "late"

    graph, failures = _timed(slow, timeout=2.0)  # type: ignore[arg-type]
    with Host(clock=clock) as host:
        ex = host.run_graph(graph)
    assert ex.status is Status.FAILED
    [failure] = failures
    assert (failure.type, failure.elapsed, failure.timeout) == ("EffectTimeoutError", 3.0, "run")


def test_heartbeat_outside_a_watched_effect_does_nothing() -> None:
    heartbeat()
