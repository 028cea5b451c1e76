"""A subgraph inherits its parent's durability: under "exit" a subgraph run that finishes
saves nothing (only the root's last checkpoint is kept), one that keeps one history per
thread (``checkpointer=True``) saves its last; under "sync" every step of both is saved."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class Inner(TypedDict):
    key: Annotated[str, operator.add]


class Outer(TypedDict):
    key: str


def counts(checkpointer: object, durability: str) -> dict:
    inner = StateGraph(Inner)
    inner.add_node("one", lambda s: {"key": "+1"})
    inner.add_node("two", lambda s: {"key": "+2"})
    inner.add_edge(START, "one")
    inner.add_edge("one", "two")
    saver = InMemorySaver()
    g = StateGraph(Outer)
    g.add_node("inner", inner.compile(checkpointer=checkpointer or saver))
    g.add_edge(START, "inner")
    g.add_conditional_edges("inner", lambda s: "inner" if s["key"].count("+2") < 2 else END)
    app = g.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "1"}}
    result = app.invoke({"key": ""}, cfg, durability=durability)
    by_ns: dict = {}
    for c in saver.list(cfg):
        ns = c.config["configurable"]["checkpoint_ns"].split(":")[0]
        by_ns[ns] = by_ns.get(ns, 0) + 1
    return {"result": result, "saved": by_ns}


def run() -> dict:
    return {
        f"{label} {durability}": counts(checkpointer, durability)
        for label, checkpointer in (("own saver", None), ("checkpointer=True", True))
        for durability in ("sync", "exit")
    }
