"""Subgraph with interrupt: get_state(subgraphs=True), update_state of the subgraph, resume."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class S(TypedDict):
    x: str


def ask(s):
    return {"x": s["x"] + "|" + interrupt("name?")}


def run():
    sub = StateGraph(S)
    sub.add_node("pre", lambda s: {"x": s["x"] + "|pre"})
    sub.add_node("ask", ask)
    sub.add_edge(START, "pre")
    sub.add_edge("pre", "ask")
    g = StateGraph(S)
    g.add_node("child", sub.compile())
    g.add_node("end", lambda s: {"x": s["x"] + "|end"})
    g.add_edge(START, "child")
    g.add_edge("child", "end")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    out = {}
    out["first"] = app.invoke({"x": "a"}, cfg)
    st = app.get_state(cfg, subgraphs=True)
    out["state"] = st
    subcfg = st.tasks[0].state.config
    out["sub_hist"] = [(h.next, h.values) for h in app.get_state_history(subcfg)]
    app.update_state(subcfg, {"x": "edited"})
    out["after_edit"] = app.get_state(cfg, subgraphs=True)
    out["resume"] = app.invoke(Command(resume="bob"), cfg)
    out["final"] = app.get_state(cfg, subgraphs=True)
    return out
