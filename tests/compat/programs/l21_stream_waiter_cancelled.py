"""A consumer of ``astream`` cancelled while a node runs (LangGraph's
test_astream_waiter_cleanup_on_cancel, without its clock): the run waits for what its tasks
emit with a task running ``AsyncQueue.wait``; once the consumer is cancelled, every such
waiter task has finished and the running node was cancelled too."""

import asyncio
from typing import Any

from langgraph._internal._queue import AsyncQueue
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict


class State(TypedDict, total=False):
    count: int


async def run() -> dict[str, Any]:
    started: list[asyncio.Task[None]] = []
    finished: list[asyncio.Task[None]] = []
    original = AsyncQueue.wait

    async def tracked(self: AsyncQueue) -> None:
        task = asyncio.current_task()
        assert task is not None
        started.append(task)
        try:
            await original(self)
        finally:
            finished.append(task)

    AsyncQueue.wait = tracked  # type: ignore[method-assign]
    node_cancelled: list[bool] = []
    first_chunk = asyncio.Event()
    never = asyncio.Event()

    async def slow(state: State) -> State:
        get_stream_writer()({"started": True})
        try:
            await never.wait()
        except asyncio.CancelledError:
            node_cancelled.append(True)
            raise
        return {"count": 1}

    builder = StateGraph(State)
    builder.add_node("slow", slow)
    builder.add_edge(START, "slow")
    builder.add_edge("slow", END)
    graph = builder.compile()
    chunks: list[Any] = []

    async def consumer() -> None:
        async for chunk in graph.astream({}, stream_mode="custom"):
            chunks.append(chunk)
            first_chunk.set()

    try:
        task = asyncio.create_task(consumer())
        await first_chunk.wait()
        for _ in range(5):  # loop turns, not time: the consumer waits for the next chunk
            await asyncio.sleep(0)
        task.cancel()
        try:
            await task
            outcome = "returned"
        except asyncio.CancelledError:
            outcome = "cancelled"
        for _ in range(5):
            await asyncio.sleep(0)
    finally:
        AsyncQueue.wait = original  # type: ignore[method-assign]
    return {
        "chunks": chunks,
        "outcome": outcome,
        "waited": bool(started),
        "all_finished": set(finished) == set(started),
        "all_done": all(t.done() for t in started),
        "node_cancelled": node_cancelled,
    }
