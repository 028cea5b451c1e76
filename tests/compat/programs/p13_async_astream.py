"""Async nodes running in parallel, astream in updates/values/custom, ainvoke, and
aget_state / aupdate_state with a checkpointer."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    got: Annotated[list[str], operator.add]


def make(name: str, delay: float):
    async def node(state: State) -> dict:
        await asyncio.sleep(delay)
        get_stream_writer()(f"{name} done")
        return {"got": [name]}

    return node


def build():
    b = StateGraph(State)
    b.add_node("slow", make("slow", 0.03))
    b.add_node("fast", make("fast", 0.0))
    b.add_node("merge", make("merge", 0.0))
    b.add_edge(START, "slow")
    b.add_edge(START, "fast")
    b.add_edge(["slow", "fast"], "merge")
    b.add_edge("merge", END)
    return b.compile(checkpointer=InMemorySaver())


async def run() -> dict:
    graph = build()
    cfg = {"configurable": {"thread_id": "as"}}
    final = await graph.ainvoke({"got": []}, cfg)
    updates = []
    async for mode, chunk in graph.astream(
        {"got": []}, {"configurable": {"thread_id": "as2"}}, stream_mode=["updates", "custom"]
    ):
        updates.append([mode, chunk])
    # parallel nodes finish in any order: keep the order across steps, sort within the step
    first_step = sorted(str(u) for u in updates[:4])
    values = [
        c
        async for c in graph.astream(
            {"got": []}, {"configurable": {"thread_id": "as3"}}, stream_mode="values"
        )
    ]
    await graph.aupdate_state(cfg, {"got": ["patched"]})
    state = await graph.aget_state(cfg)
    return {
        "final": final,
        "first_step": first_step,
        "rest": updates[4:],
        "values": values,
        "state": state,
    }
