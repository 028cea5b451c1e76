"""SqliteSaver thread persistence, a Store through a node and through Runtime,
durability modes."""

import sqlite3
from typing import TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore


class State(TypedDict):
    n: int
    notes: list


def remember(s, *, store: BaseStore):
    store.put(("u", "1"), f"k{s['n']}", {"n": s["n"]})
    return {"n": s["n"] + 1}


def recall(s, runtime: Runtime):
    items = runtime.store.search(("u", "1"))
    return {"notes": sorted(i.key for i in items)}


def run():
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    saver = SqliteSaver(conn)
    g = StateGraph(State)
    g.add_node("remember", remember)
    g.add_node("recall", recall)
    g.add_edge(START, "remember")
    g.add_edge("remember", "recall")
    store = InMemoryStore()
    app = g.compile(checkpointer=saver, store=store)
    out = {}
    for mode in ("exit", "async", "sync"):
        cfg = {"configurable": {"thread_id": mode}}
        out[mode] = app.invoke({"n": 1, "notes": []}, cfg, durability=mode)
        out[mode + "_hist"] = [(h.next, h.metadata["step"]) for h in app.get_state_history(cfg)]
    cfg = {"configurable": {"thread_id": "sync"}}
    out["cont"] = app.invoke({"n": 10}, cfg)
    out["list"] = len(list(saver.list(cfg)))
    out["store"] = sorted(i.key for i in store.search(("u",)))
    return out
