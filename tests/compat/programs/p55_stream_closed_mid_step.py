"""A consumer that stops an async stream inside a step (``aclosing`` and ``break`` after
the first chunk): the step's running task is cancelled before the close returns, a task
that ends later in the graph never starts, and the thread keeps what finished: the
finished task's writes as pending writes of the step's checkpoint, so the state shows
them and only the cancelled task is next."""

import asyncio
import operator
from contextlib import aclosing
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class State(TypedDict):
    value: Annotated[int, operator.add]


async def _closed_early() -> dict:
    log: list[str] = []

    async def long(state: State) -> dict:
        log.append("long started")
        try:
            await asyncio.sleep(3)
        except asyncio.CancelledError:
            log.append("long cancelled")
            raise
        return {"value": 100}

    async def short(state: State) -> dict:
        await asyncio.sleep(0.3)
        return {"value": 2}

    async def later(state: State) -> dict:
        log.append("later started")
        return {"value": 10}

    builder = StateGraph(State)
    builder.add_node("long", long)
    builder.add_node("short", short)
    builder.add_node("later", later)
    builder.add_edge(START, "long")
    builder.add_edge(START, "short")
    builder.add_edge("short", "later")
    graph = builder.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    chunks = []
    async with aclosing(graph.astream({"value": 1}, cfg)) as stream:
        async for chunk in stream:
            chunks.append(chunk)
            break
    log.append("stream closed")
    state = await graph.aget_state(cfg)
    return {
        "chunks": chunks,
        "log": log,
        "values": state.values,
        "next": list(state.next),
        "step": state.metadata["step"],
    }


def run() -> dict:
    return asyncio.run(_closed_early())
