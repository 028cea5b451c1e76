"""Case 6: update_state(config, Command(update=..., goto=...)) writes the update and
schedules the goto target, which the next invoke(None) runs."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command


class State(TypedDict):
    x: int
    log: Annotated[list[str], operator.add]


def run() -> dict:
    g = StateGraph(State)
    g.add_node("a", lambda s: {"x": s["x"] + 1})
    g.add_node("fix", lambda s: {"x": s["x"] * 100})
    g.add_node("other", lambda s: {"log": ["other"]})
    g.add_edge(START, "a")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    first = app.invoke({"x": 1, "log": []}, cfg)
    app.update_state(cfg, Command(update={"x": 5}, goto="fix"))
    scheduled = app.get_state(cfg)
    second = app.invoke(None, cfg)
    app.update_state(cfg, Command(goto=["fix", "other"]), as_node="a")
    both = app.get_state(cfg)
    return {
        "first": first,
        "scheduled": scheduled,
        "second": second,
        "both": both,
        "third": app.invoke(None, cfg),
    }
