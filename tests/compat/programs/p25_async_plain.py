"""Async nodes without context helpers: a parallel superstep and a join under ainvoke,
astream in values and updates modes, abatch, and aget_state_history."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    got: Annotated[list[str], operator.add]
    total: int


def make(name: str, delay: float, clash: bool):
    async def node(state: State) -> dict:
        await asyncio.sleep(delay)
        if clash:  # both parallel nodes write the last-value key: InvalidUpdateError
            return {"got": [name], "total": len(state["got"])}
        return {"got": [name]}

    return node


async def merge(state: State) -> dict:
    return {"got": ["merge"], "total": sum(len(g) for g in state["got"])}


def build(clash: bool = False):
    b = StateGraph(State)
    b.add_node("a_slow", make("a_slow", 0.02, clash))
    b.add_node("b_fast", make("b_fast", 0.0, clash))
    b.add_node("merge", merge)
    b.add_edge(START, "a_slow")
    b.add_edge(START, "b_fast")
    b.add_edge(["a_slow", "b_fast"], "merge")
    b.add_edge("merge", END)
    return b.compile(checkpointer=InMemorySaver())


async def run() -> dict:
    graph = build(clash=True)
    cfg = {"configurable": {"thread_id": "a"}}
    try:
        await graph.ainvoke({"got": [], "total": 0}, cfg)
        clash = "no error"
    except Exception as exc:
        clash = type(exc).__name__
    graph = build()
    cfg = {"configurable": {"thread_id": "b"}}
    values = [c async for c in graph.astream({"got": ["x"], "total": 0}, cfg, stream_mode="values")]
    names = sorted(
        [
            next(iter(c))
            async for c in graph.astream(
                {"got": [], "total": 0},
                {"configurable": {"thread_id": "c"}},
                stream_mode="updates",
            )
        ]
    )
    history = [[s.metadata["step"], list(s.next)] async for s in graph.aget_state_history(cfg)]
    batch = await build().abatch(
        [{"got": ["p"], "total": 1}, {"got": ["q"], "total": 2}],
        [{"configurable": {"thread_id": "d1"}}, {"configurable": {"thread_id": "d2"}}],
        return_exceptions=True,
    )
    return {"clash": clash, "values": values, "names": names, "history": history, "batch": batch}
