"""The order of a snapshot's `next` and `tasks`: LangGraph lists pending nodes in the order
they were added to the builder (not by name, not by edge order), here for a three-way fan-out
paused by interrupt_before and for a checkpoint written by update_state."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class State(TypedDict):
    x: int


def run() -> dict:
    b = StateGraph(State)
    for name in ("zeta", "alpha", "mid"):
        b.add_node(name, lambda s: {})
    b.add_node("first", lambda s: {"x": 1})
    b.add_edge(START, "first")
    for name in ("mid", "zeta", "alpha"):
        b.add_edge("first", name)
    graph = b.compile(checkpointer=InMemorySaver(), interrupt_before=["alpha"])
    cfg = {"configurable": {"thread_id": "o"}}
    graph.invoke({"x": 0}, cfg)
    paused = graph.get_state(cfg)
    graph.update_state(cfg, {"x": 5}, as_node="first")
    updated = graph.get_state(cfg)
    return {
        "paused": [list(paused.next), [t.name for t in paused.tasks]],
        "updated": [list(updated.next), [t.name for t in updated.tasks]],
    }
