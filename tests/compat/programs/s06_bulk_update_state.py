"""Case 16: bulk_update_state applies supersteps in turn, each one checkpoint; the updates
of one superstep are written together; LangGraph's errors for empty or ambiguous input."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import StateUpdate


class State(TypedDict):
    x: int
    log: Annotated[list[str], operator.add]


def run() -> dict:
    g = StateGraph(State)
    g.add_node("a", lambda s: {"x": s["x"] + 1, "log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    app.invoke({"x": 1, "log": []}, cfg)
    out = {}
    app.bulk_update_state(cfg, [[StateUpdate({"x": 10}, "a")], [StateUpdate({"x": 20}, "b")]])
    out["sequential"] = app.get_state(cfg)
    app.bulk_update_state(cfg, [[StateUpdate({"log": ["u1"]}, "a"), ({"log": ["u2"]}, "b", None)]])
    out["together"] = app.get_state(cfg)
    out["history"] = [
        [h.metadata["step"], h.metadata["source"], list(h.next)] for h in app.get_state_history(cfg)
    ]
    out["continued"] = app.invoke(None, cfg)
    errors = {}
    for name, steps in {
        "none": [],
        "empty": [[]],
        "no_as_node": [[StateUpdate({"x": 1}), StateUpdate({"x": 2}, "a")]],
        "pair": [[({"x": 1}, "a"), ({"x": 2}, "b")]],
        "unknown": [[StateUpdate({"x": 1}, "zz"), StateUpdate({"x": 2}, "a")]],
    }.items():
        try:
            app.bulk_update_state(cfg, steps)
            errors[name] = None
        except Exception as e:
            errors[name] = [type(e).__name__, str(e)]
    out["errors"] = errors
    return out
