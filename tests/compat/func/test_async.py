"""Async entrypoints and tasks: awaiting futures, gather, ainvoke / astream."""

import asyncio
from typing import Any

import pytest

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.func import entrypoint, task
from superstep_compat.types import Command, interrupt


@task
async def ainc(x: int) -> int:
    return x + 1


@task
def sinc(x: int) -> int:
    return x + 1


async def test_an_async_entrypoint_awaits_async_tasks() -> None:
    @entrypoint()
    async def wf(x: int) -> list[int]:
        a = await ainc(x)
        b, c = await asyncio.gather(ainc(a), ainc(10))
        return [a, b, c]

    assert await wf.ainvoke(1) == [2, 3, 11]


async def test_astream_yields_the_task_and_node_updates() -> None:
    @entrypoint()
    async def wf(x: int) -> int:
        return await ainc(x)

    assert [c async for c in wf.astream(1)] == [{"ainc": 2}, {"wf": 2}]


async def test_an_async_entrypoint_may_await_a_sync_task() -> None:
    @entrypoint()
    async def wf(x: int) -> int:
        return await sinc(x)

    assert await wf.ainvoke(1) == 2


async def test_a_sync_entrypoint_runs_under_ainvoke() -> None:
    @entrypoint()
    def wf(x: int) -> int:
        return sinc(x).result()

    assert await wf.ainvoke(1) == 2


def test_invoking_an_async_entrypoint_synchronously_raises_langgraphs_type_error() -> None:
    @entrypoint()
    async def wf(x: int) -> int:
        return x

    with pytest.raises(TypeError, match='No synchronous function provided to "wf"'):
        wf.invoke(1)


def test_an_async_task_in_a_sync_entrypoint_raises() -> None:
    @entrypoint()
    def wf(x: int) -> Any:
        return ainc(x).result()

    with pytest.raises(RuntimeError, match="In an sync context async tasks cannot be called"):
        wf.invoke(1)


async def test_an_async_entrypoint_resumes_without_rerunning_finished_tasks() -> None:
    calls: list[int] = []

    @task
    async def record(x: int) -> int:
        calls.append(x)
        return x

    @entrypoint(checkpointer=InMemorySaver())
    async def wf(x: int) -> int:
        y = await record(x)
        return y + int(interrupt("more?"))

    config: Any = {"configurable": {"thread_id": "async"}}
    await wf.ainvoke(1, config)
    assert await wf.ainvoke(Command(resume=10), config) == 11
    assert calls == [1]


async def test_an_async_task_awaited_in_an_async_graph_node_runs_on_the_nodes_loop() -> None:
    from typing import TypedDict

    from superstep_compat.graph import START, StateGraph
    from superstep_compat.types import RetryPolicy

    class State(TypedDict):
        x: int

    attempts: list[int] = []

    @task(retry_policy=RetryPolicy(retry_on=ValueError, initial_interval=0, jitter=False))
    async def double(x: int) -> int:
        attempts.append(x)
        if len(attempts) == 1:
            raise ValueError("once")
        return x * 2

    async def node(state: State) -> dict[str, int]:
        first, second = await asyncio.gather(double(state["x"]), ainc(state["x"]))
        return {"x": first + second}

    graph = StateGraph(State).add_node("n", node).add_edge(START, "n").compile()
    assert await graph.ainvoke({"x": 3}) == {"x": 10}
    assert attempts == [3, 3]


async def test_cancelling_a_task_calls_future_cancels_the_call() -> None:
    cancelled: list[int] = []

    @task
    async def slow(x: int) -> int:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append(x)
            raise
        return x

    @task
    async def quick(x: int) -> int:
        return x

    @entrypoint()
    async def wf(x: int) -> list[int]:
        dropped = slow(x)
        await asyncio.sleep(0.05)
        dropped.cancel()
        return [await quick(x)]

    updates = [c async for c in wf.astream(4, stream_mode="updates")]
    assert updates == [{"quick": 4}, {"wf": [4]}]
    assert cancelled == [4]


def test_a_task_of_a_partial_is_named_after_the_function_it_wraps() -> None:
    import functools

    async def suffix(tail: str, value: str) -> str:
        return value + tail

    assert task(functools.partial(suffix, "!")).name == "suffix"
    assert task(functools.partial(suffix, "!"), name="own").name == "own"
