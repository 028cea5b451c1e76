"""A nested-subgraph app on the official SqliteSaver, paused two levels down, "restarted"
(a new saver on the same file, a new compiled graph), resumed, then forked from a past
checkpoint with an edit; the parent's and the subgraph's histories read from the file."""

import operator
import os
import sqlite3
import tempfile
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class S(TypedDict):
    log: Annotated[list[str], operator.add]
    level: int


def deep(s: S) -> dict[str, Any]:
    return {"log": [f"deep:{interrupt({'level': s['level']})}"]}


def mid_prep(s: S) -> dict[str, Any]:
    return {"log": ["mid_prep"], "level": s["level"] + 1}


def top_done(s: S) -> dict[str, Any]:
    return {"log": [f"done@{s['level']}"]}


def build(saver: Any) -> Any:
    inner = StateGraph(S)
    inner.add_node("deep", deep)
    inner.add_edge(START, "deep")
    mid = StateGraph(S)
    mid.add_node("mid_prep", mid_prep)
    mid.add_node("inner", inner.compile())
    mid.add_edge(START, "mid_prep")
    mid.add_edge("mid_prep", "inner")
    top = StateGraph(S)
    top.add_node("mid", mid.compile())
    top.add_node("top_done", top_done)
    top.add_edge(START, "mid")
    top.add_edge("mid", "top_done")
    return top.compile(checkpointer=saver)


def hist(app: Any, cfg: dict[str, Any]) -> list[Any]:
    return [
        (h.metadata["step"], h.metadata["source"], list(h.next), h.values.get("log"))
        for h in app.get_state_history(cfg)
    ]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    path = os.path.join(tempfile.mkdtemp(), "app.db")
    cfg = {"configurable": {"thread_id": "t"}}
    conn = sqlite3.connect(path, check_same_thread=False)
    app = build(SqliteSaver(conn))
    out["first"] = app.invoke({"log": [], "level": 0}, cfg)
    conn.close()

    conn = sqlite3.connect(path, check_same_thread=False)
    app = build(SqliteSaver(conn))
    st = app.get_state(cfg, subgraphs=True)
    mid = st.tasks[0].state
    inner = mid.tasks[0].state
    out["after_restart"] = [st.values, mid.values, inner.values, list(inner.next)]
    out["resumed"] = app.invoke(Command(resume="hi"), cfg)
    out["hist"] = hist(app, cfg)
    before_done = next(h for h in app.get_state_history(cfg) if list(h.next) == ["top_done"])
    forked = app.update_state(before_done.config, {"level": 99})
    out["fork"] = app.invoke(None, forked)
    out["hist_after_fork"] = hist(app, cfg)[:3]
    conn.close()
    return out
