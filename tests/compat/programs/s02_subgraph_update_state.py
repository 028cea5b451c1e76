"""Case 2: update_state with a subgraph's config (from get_state(subgraphs=True)) edits the
subgraph's own checkpoint, through the subgraph's nodes; resuming sees the edit."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    draft: str


def write(s: State) -> dict:
    return {"draft": "v1"}


def review(s: State) -> dict:
    return {"draft": s["draft"] + " / reviewed:" + interrupt("ok?")}


def run() -> dict:
    child = StateGraph(State)
    child.add_node("write", write)
    child.add_node("review", review)
    child.add_edge(START, "write")
    child.add_edge("write", "review")
    parent = StateGraph(State)
    parent.add_node("sub", child.compile())
    parent.add_edge(START, "sub")
    app = parent.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    app.invoke({"draft": ""}, cfg)
    sub = app.get_state(cfg, subgraphs=True).tasks[0].state
    app.update_state(sub.config, {"draft": "v2 (edited)"})
    edited = app.get_state(cfg, subgraphs=True).tasks[0].state
    try:
        app.update_state(sub.config, {"draft": "x"}, as_node="nope")
        unknown = None
    except Exception as e:
        unknown = [type(e).__name__, str(e)]
    result = app.invoke(Command(resume="yes"), cfg)
    return {"before": sub, "edited": edited, "unknown": unknown, "result": result}
