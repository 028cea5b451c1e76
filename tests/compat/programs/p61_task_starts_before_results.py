"""A step announces all its tasks (``tasks``/``debug`` start events) before any of them
reports a result, also when a quick task ends before a sibling could start (one task at
a time: ``max_concurrency=1``): streamed live, a finished task's result still waits for
its siblings' starts, then results follow in the order the tasks ended. Sync and async,
with ``debug``, ``tasks``, and ``tasks`` beside ``updates``."""

import asyncio
import operator
import time
from typing import Annotated, Any, TypedDict

from langgraph.graph import START, StateGraph


class State(TypedDict):
    docs: Annotated[list[str], operator.add]


def _graph(is_async: bool) -> Any:
    def fan(state: State) -> dict:
        return {"docs": ["fan"]}

    def quick(state: State) -> dict:
        return {"docs": ["quick"]}

    def slow(state: State) -> dict:
        time.sleep(0.1)
        return {"docs": ["slow"]}

    async def aslow(state: State) -> dict:
        await asyncio.sleep(0.1)
        return {"docs": ["slow"]}

    builder = StateGraph(State)
    builder.add_node("fan", fan)
    builder.add_node("quick", quick)
    builder.add_node("slow", aslow if is_async else slow)
    builder.add_edge(START, "fan")
    builder.add_edge("fan", "quick")
    builder.add_edge("fan", "slow")
    return builder.compile()


def _shape(mode: str, chunk: Any) -> list:
    if mode == "debug":
        return [chunk["step"], chunk["type"], chunk["payload"]["name"]]
    if mode == "tasks":
        return ["result" if "result" in chunk else "start", chunk["name"]]
    return [mode, sorted(chunk)]


def _sync(config: dict) -> dict:
    graph = _graph(False)
    return {
        "debug": [
            _shape("debug", c) for c in graph.stream({"docs": []}, config, stream_mode="debug")
        ],
        "tasks_updates": [
            _shape(mode, c)
            for mode, c in graph.stream({"docs": []}, config, stream_mode=["tasks", "updates"])
        ],
    }


async def _async(config: dict) -> dict:
    graph = _graph(True)
    return {
        "debug": [
            _shape("debug", c)
            async for c in graph.astream({"docs": []}, config, stream_mode="debug")
        ],
        "tasks": [
            _shape("tasks", c)
            async for c in graph.astream({"docs": []}, config, stream_mode="tasks")
        ],
    }


def run() -> dict:
    return {
        "sync": _sync({}),
        "sync_one_at_a_time": _sync({"max_concurrency": 1}),
        "async": asyncio.run(_async({})),
        "async_one_at_a_time": asyncio.run(_async({"max_concurrency": 1})),
    }
