"""`get_runtime()` inside a node is the node's own runtime: its `execution_info` (attempt
numbers across retries, the node name), its `heartbeat()` (refreshes an idle limit, also one
refreshed only on heartbeats), and `get_stream_writer()`'s chunks count as progress under an
idle limit refreshed "auto"matically (streamed or not) but not under refresh_on="heartbeat"."""

import asyncio
from typing import TypedDict

from langgraph.config import get_stream_writer
from langgraph.errors import NodeTimeoutError
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import get_runtime
from langgraph.types import RetryPolicy, TimeoutPolicy


class State(TypedDict):
    x: int


async def ticking(timeout: TimeoutPolicy, how: str, stream: bool) -> object:
    async def slow(state: State) -> State:
        for _ in range(20):
            await asyncio.sleep(0.02)
            if how == "writer":
                get_stream_writer()("tick")
            elif how == "heartbeat":
                get_runtime().heartbeat()
        return {"x": state["x"] + 1}

    builder = StateGraph(State)
    builder.add_node("slow", slow, timeout=timeout)
    builder.add_edge(START, "slow")
    builder.add_edge("slow", END)
    graph = builder.compile()
    try:
        if stream:
            return [c async for c in graph.astream({"x": 1}, stream_mode=["custom", "values"])]
        return await graph.ainvoke({"x": 1})
    except NodeTimeoutError as e:
        return {"error": type(e).__name__, "kind": e.kind}


def attempts() -> object:
    seen = []

    def flaky(state: State) -> State:
        info = get_runtime().execution_info
        seen.append([info.node_attempt, info.node_first_attempt_time is not None])
        if len(seen) < 3:
            raise ValueError("again")
        return {"x": state["x"] + 1}

    builder = StateGraph(State)
    builder.add_node(
        "flaky",
        flaky,
        retry_policy=RetryPolicy(initial_interval=0.001, jitter=False, retry_on=ValueError),
    )
    builder.add_edge(START, "flaky")
    graph = builder.compile()
    return {"result": graph.invoke({"x": 0}), "seen": seen}


async def run() -> dict:
    auto = TimeoutPolicy(idle_timeout=0.1)
    beats = TimeoutPolicy(idle_timeout=0.1, refresh_on="heartbeat")
    return {
        "auto_writer": await ticking(auto, "writer", stream=False),
        "auto_writer_streamed": await ticking(auto, "writer", stream=True),
        "auto_heartbeat": await ticking(auto, "heartbeat", stream=False),
        "beats_writer": await ticking(beats, "writer", stream=True),
        "beats_heartbeat": await ticking(beats, "heartbeat", stream=False),
        "silent": await ticking(auto, "none", stream=False),
        "attempts": attempts(),
    }
