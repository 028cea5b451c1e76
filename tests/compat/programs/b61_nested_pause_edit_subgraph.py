"""Paused two subgraphs deep: get_state(subgraphs=True) at every level, update_state on the
innermost namespace's config with as_node (and on the middle one), then resume; the
subgraphs' own histories and the root's afterwards."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class S(TypedDict):
    log: Annotated[list[str], operator.add]
    note: str


def prep(s):
    return {"log": ["prep"]}


def review(s):
    verdict = interrupt({"review": s["note"], "n": len(s["log"])})
    return {"log": [f"review:{verdict}"], "note": f"reviewed:{verdict}"}


def after(s):
    return {"log": [f"after:{s['note']}"]}


def outer_tail(s):
    return {"log": ["outer_tail"]}


def snap(s):
    if s is None:
        return None
    return {
        "values": s.values,
        "next": list(s.next),
        "step": s.metadata.get("step") if s.metadata else None,
        "source": s.metadata.get("source") if s.metadata else None,
        "ns": [
            p.split(":")[0]
            for p in s.config["configurable"].get("checkpoint_ns", "").split("|")
            if p
        ],
        "tasks": [
            [
                t.name,
                [i.value for i in t.interrupts],
                snap(t.state) if hasattr(t.state, "next") else None,
            ]
            for t in s.tasks
        ],
        "parent_ns": None
        if s.parent_config is None
        else [
            p.split(":")[0]
            for p in s.parent_config["configurable"].get("checkpoint_ns", "").split("|")
            if p
        ],
    }


def run():
    inner = StateGraph(S)
    inner.add_node("prep", prep)
    inner.add_node("review", review)
    inner.add_node("after", after)
    inner.add_edge(START, "prep")
    inner.add_edge("prep", "review")
    inner.add_edge("review", "after")
    middle = StateGraph(S)
    middle.add_node("inner", inner.compile())
    middle.add_node("outer_tail", outer_tail)
    middle.add_edge(START, "inner")
    middle.add_edge("inner", "outer_tail")
    root = StateGraph(S)
    root.add_node("middle", middle.compile())
    root.add_edge(START, "middle")
    app = root.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out = {}
    out["first"] = app.invoke({"log": ["in"], "note": "draft"}, cfg)
    st = app.get_state(cfg, subgraphs=True)
    out["paused"] = snap(st)
    out["paused_plain"] = snap(app.get_state(cfg))
    mid = st.tasks[0].state
    inn = mid.tasks[0].state
    # the inner graph's state read by its own config
    out["inner_by_config"] = snap(app.get_state(inn.config))
    out["inner_history"] = [
        (h.next, h.metadata["step"], h.metadata["source"])
        for h in app.get_state_history(inn.config)
    ]
    # edit the paused inner graph as if review had run
    app.update_state(inn.config, {"note": "edited", "log": ["edit"]}, as_node="review")
    out["after_edit_root"] = snap(app.get_state(cfg, subgraphs=True))
    out["resumed"] = app.invoke(None, cfg)
    out["final"] = snap(app.get_state(cfg, subgraphs=True))
    out["history"] = [
        (h.next, h.metadata["step"], h.metadata["source"]) for h in app.get_state_history(cfg)
    ]

    # a second thread: answer the interrupt, but first edit the middle graph's state
    cfg2 = {"configurable": {"thread_id": "t2"}}
    app.invoke({"log": [], "note": "n2"}, cfg2)
    mid2 = app.get_state(cfg2, subgraphs=True).tasks[0].state
    app.update_state(mid2.config, {"note": "mid-edit"})
    out["mid_edit_view"] = snap(app.get_state(cfg2, subgraphs=True))
    out["t2"] = app.invoke(Command(resume="yes"), cfg2)
    out["t2_final"] = snap(app.get_state(cfg2, subgraphs=True))
    return out
