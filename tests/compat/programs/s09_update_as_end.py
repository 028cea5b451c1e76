"""Case 20: update_state(..., as_node=END) with values is rejected as LangGraph does
(InvalidUpdateError: Node __end__ does not exist); with None it clears the pending tasks."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    x: int


def run() -> dict:
    g = StateGraph(State)
    g.add_node("a", lambda s: {"x": 1})
    g.add_node("b", lambda s: {"x": 2})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    app = g.compile(checkpointer=InMemorySaver(), interrupt_before=["b"])
    cfg = {"configurable": {"thread_id": "1"}}
    app.invoke({"x": 0}, cfg)
    out = {}
    try:
        app.update_state(cfg, {"x": 7}, as_node=END)
        out["with_values"] = None
    except Exception as e:
        out["with_values"] = [type(e).__name__, str(e)]
    out["before_clear"] = app.get_state(cfg)
    app.update_state(cfg, None, as_node=END)
    out["cleared"] = app.get_state(cfg)
    out["after"] = app.invoke(None, cfg)
    return out
