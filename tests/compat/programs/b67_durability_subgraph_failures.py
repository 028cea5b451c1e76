"""Durability modes ("exit", "async", "sync") on the same graph with a subgraph that interrupts
and a node that fails once (then a node after it): the history each mode leaves, get_state
after the failure, resuming after the failure is fixed, and the subgraph's own checkpoints."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt

BROKEN = {"on": True}


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def a(s):
    return {"log": ["a"]}


def ask(s):
    return {"log": [f"ask:{interrupt('ok?')}"]}


def fragile(s):
    if BROKEN["on"]:
        raise ValueError("broken")
    return {"log": ["fragile"]}


def side(s):
    return {"log": ["side"]}


def hist(app, cfg):
    return [
        (h.metadata["source"], h.metadata["step"], list(h.next), len(h.values.get("log", [])))
        for h in app.get_state_history(cfg)
    ]


def run():
    sub = StateGraph(S)
    sub.add_node("ask", ask)
    sub.add_node("a", a)
    sub.add_edge(START, "a")
    sub.add_edge("a", "ask")
    g = StateGraph(S)
    g.add_node("a", a)
    g.add_node("sub", sub.compile())
    g.add_node("fragile", fragile)
    g.add_node("side", side)
    g.add_edge(START, "a")
    g.add_edge("a", "sub")
    g.add_edge("sub", "fragile")
    g.add_edge("fragile", "side")  # not beside it: whether a sibling's write is saved races
    out = {}
    for mode in ("exit", "async", "sync"):
        BROKEN["on"] = True
        saver = InMemorySaver()
        app = g.compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": mode}}
        r = {}
        r["first"] = app.invoke({"log": []}, cfg, durability=mode)
        r["h1"] = hist(app, cfg)
        sub_st = app.get_state(cfg, subgraphs=True).tasks[0].state
        r["sub_h1"] = hist(app, sub_st.config)
        try:
            app.invoke(Command(resume="yes"), cfg, durability=mode)
            r["second"] = "no error"
        except ValueError as e:
            r["second"] = str(e)
        st = app.get_state(cfg)
        r["failed_state"] = [
            st.values,
            list(st.next),
            [(t.name, repr(t.error)) for t in st.tasks],
            st.metadata["step"],
        ]
        r["h2"] = hist(app, cfg)
        BROKEN["on"] = False
        r["third"] = app.invoke(None, cfg, durability=mode)
        r["h3"] = hist(app, cfg)
        r["namespaces"] = sorted(len(ns.split("|")) for ns in saver.storage[mode] if ns)
        out[mode] = r
    return out
