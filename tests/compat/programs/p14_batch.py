"""batch / abatch with several inputs, per-input configs, return_exceptions, and a
checkpointer keeping each thread apart."""

import asyncio
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    x: int
    y: int


def divide(state: State) -> dict:
    return {"y": 100 // state["x"]}


def build(checkpointer=None):
    b = StateGraph(State)
    b.add_node("divide", divide)
    b.add_edge(START, "divide")
    b.add_edge("divide", END)
    return b.compile(checkpointer=checkpointer)


def run() -> dict:
    graph = build()
    plain = graph.batch([{"x": 1}, {"x": 4}, {"x": 7}])
    with_errors = graph.batch([{"x": 5}, {"x": 0}], return_exceptions=True)
    try:
        graph.batch([{"x": 0}, {"x": 2}])
        raised = "nothing"
    except ZeroDivisionError as exc:
        raised = type(exc).__name__
    saved = build(InMemorySaver())
    cfgs = [{"configurable": {"thread_id": f"t{i}"}} for i in range(3)]
    saved.batch([{"x": i + 1} for i in range(3)], cfgs)
    states = [saved.get_state(c).values for c in cfgs]
    async_out = asyncio.run(graph.abatch([{"x": 3}, {"x": 0}], return_exceptions=True))
    empty = graph.batch([])
    return {
        "plain": plain,
        "with_errors": with_errors,
        "raised": raised,
        "states": states,
        "async": async_out,
        "empty": empty,
    }
