"""The run's clock and random source are injected (`CLOCK_KEY`, `RANDOM_KEY` in the config):
retry backoff and jitter, node timeouts, @task retries and debug timestamps all read them, so
these tests run on a `VirtualClock` and never wait."""

from __future__ import annotations

import asyncio
import random
from typing import Any, TypedDict

import pytest

from superstep_compat.errors import NodeTimeoutError
from superstep_compat.func import entrypoint, task
from superstep_compat.graph import START, StateGraph
from superstep_compat.pregel._run_options import CLOCK_KEY, RANDOM_KEY
from superstep_compat.types import RetryPolicy
from superstep_core.testing import VirtualClock


class State(TypedDict):
    out: str


def _config(clock: VirtualClock, rng: random.Random | None = None) -> dict[str, Any]:
    configurable: dict[str, Any] = {CLOCK_KEY: clock}
    if rng is not None:
        configurable[RANDOM_KEY] = rng
    return {"configurable": configurable}


def _flaky(fails: int) -> Any:
    calls: list[int] = []

    def node(state: State) -> dict[str, str]:
        calls.append(1)
        if len(calls) <= fails:
            raise ConnectionError(f"attempt {len(calls)}")
        return {"out": f"ok after {len(calls)}"}

    return node


def _one(node: Any, **options: Any) -> Any:
    b = StateGraph(State)
    b.add_node("n", node, **options)
    b.add_edge(START, "n")
    return b.compile()


def test_retry_backoff_waits_on_the_injected_clock() -> None:
    clock = VirtualClock()
    policy = RetryPolicy(initial_interval=30.0, backoff_factor=2.0, jitter=False)
    app = _one(_flaky(2), retry_policy=policy)
    assert app.invoke({"out": ""}, _config(clock)) == {"out": "ok after 3"}
    assert clock.slept == [30.0, 60.0]


def test_retry_jitter_is_drawn_from_the_injected_random_source() -> None:
    clock = VirtualClock()
    app = _one(_flaky(1), retry_policy=RetryPolicy(initial_interval=30.0))
    app.invoke({"out": ""}, _config(clock, random.Random(3)))
    assert clock.slept == [30.0 + random.Random(3).uniform(0, 1)]


def test_a_node_timeout_elapses_on_the_injected_clock() -> None:
    async def hang(state: State) -> dict[str, str]:
        await asyncio.Event().wait()
        return {"out": "never"}

    clock = VirtualClock()
    app = _one(hang, timeout=600.0)
    with pytest.raises(NodeTimeoutError) as caught:
        asyncio.run(app.ainvoke({"out": ""}, _config(clock)))
    assert (caught.value.kind, caught.value.elapsed) == ("run", 600.0)
    assert str(caught.value) == "Node 'n' exceeded its run timeout of 600.000s (elapsed: 600.000s)."


def test_a_timeout_then_a_retry_both_on_the_injected_clock() -> None:
    attempts: list[int] = []

    async def slow_first(state: State) -> dict[str, str]:
        attempts.append(1)
        if len(attempts) == 1:
            await asyncio.Event().wait()
        return {"out": f"attempt {len(attempts)}"}

    clock = VirtualClock()
    policy = RetryPolicy(initial_interval=5.0, jitter=False)
    app = _one(slow_first, timeout=100.0, retry_policy=policy)
    assert asyncio.run(app.ainvoke({"out": ""}, _config(clock))) == {"out": "attempt 2"}
    assert clock.now() >= 105.0


def test_task_retries_wait_on_the_injected_clock() -> None:
    calls: list[int] = []

    @task(retry_policy=RetryPolicy(initial_interval=45.0, jitter=False))
    def flaky(x: int) -> int:
        calls.append(x)
        if len(calls) == 1:
            raise ConnectionError("once")
        return x * 2

    @entrypoint()
    def main(x: int) -> int:
        return int(flaky(x).result())

    clock = VirtualClock()
    assert main.invoke(21, _config(clock)) == 42
    assert clock.slept == [45.0]


def test_debug_timestamps_read_the_injected_clock() -> None:
    clock = VirtualClock(start=86_400.0)
    app = _one(lambda state: {"out": "x"})
    chunks = list(app.stream({"out": ""}, _config(clock), stream_mode="debug"))
    stamps = {chunk["timestamp"] for chunk in chunks if chunk["type"] in ("task", "task_result")}
    assert stamps == {"1970-01-02T00:00:00+00:00"}


def test_an_async_task_timeout_elapses_on_the_injected_clock() -> None:
    @task(timeout=900.0)
    async def hang(x: int) -> int:
        await asyncio.Event().wait()
        return x

    @entrypoint()
    async def main(x: int) -> int:
        return int(await hang(x))

    clock = VirtualClock()
    with pytest.raises(NodeTimeoutError) as caught:
        asyncio.run(main.ainvoke(1, _config(clock)))
    assert (caught.value.node, caught.value.elapsed) == ("hang", 900.0)
