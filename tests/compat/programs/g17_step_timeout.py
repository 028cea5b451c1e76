"""``graph.step_timeout``: a step whose tasks run past it ends the run with `TimeoutError`.
On an async run the step's clock keeps going while the stream's consumer holds a chunk, and
the task still running is cancelled (its cleanup runs); a sync run raises it once its
threads returned. A step that ends in time is not affected."""

import asyncio
import time
from typing import TypedDict

from langgraph.graph import StateGraph


class State(TypedDict):
    hello: str


def _graph(slow, quick, timeout: float):
    builder = StateGraph(State)
    builder.add_node("slow", slow)
    builder.add_node("quick", quick)
    builder.set_conditional_entry_point(lambda _: ["slow", "quick"])
    graph = builder.compile()
    graph.step_timeout = timeout
    return graph


async def _async_case(hang: float) -> dict:
    seen: dict = {"cancelled": False, "chunks": []}

    async def slow(state: State) -> dict:
        try:
            await asyncio.sleep(2)
        except asyncio.CancelledError:
            seen["cancelled"] = True
            raise
        return {"hello": "slow"}

    async def quick(state: State) -> dict:
        await asyncio.sleep(0.1)
        return {"hello": "quick"}

    graph = _graph(slow, quick, 0.5)
    try:
        async for chunk in graph.astream({"hello": "world"}, stream_mode="updates"):
            seen["chunks"].append(chunk)
            await asyncio.sleep(hang)
    except Exception as e:
        seen["raised"] = [type(e).__name__, str(e)]
    return seen


async def _in_time() -> dict:
    async def slow(state: State) -> dict:
        await asyncio.sleep(0.2)
        return {}

    async def quick(state: State) -> dict:
        return {"hello": "quick"}

    return await _graph(slow, quick, 5).ainvoke({"hello": "world"})


def _sync_case() -> dict:
    def slow(state: State) -> dict:
        time.sleep(0.8)
        return {}

    def quick(state: State) -> dict:
        return {"hello": "quick"}

    try:
        _graph(slow, quick, 0.4).invoke({"hello": "world"})
    except Exception as e:
        return {"raised": [type(e).__name__, str(e)]}
    return {"raised": None}


async def run() -> dict:
    return {
        "hang-short": await _async_case(0.1),
        "hang-past-deadline": await _async_case(0.7),
        "in-time": await _in_time(),
        "sync": await asyncio.to_thread(_sync_case),
    }
