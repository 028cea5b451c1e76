"""Map-reduce with Send, subgraph streaming with subgraphs=True, debug mode, custom writer."""

import operator
from typing import Annotated, TypedDict

from _plain import namespace
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send


class Sub(TypedDict):
    item: str
    res: Annotated[list[str], operator.add]


def s1(s):
    get_stream_writer()({"sub": s["item"]})
    return {"res": [s["item"].upper()]}


sub = StateGraph(Sub)
sub.add_node("s1", s1)
sub.add_edge(START, "s1")
subg = sub.compile()


class State(TypedDict):
    items: list[str]
    res: Annotated[list[str], operator.add]


def fan(s):
    return [Send("worker", {"item": i, "res": []}) for i in s["items"]]


def run():
    g = StateGraph(State)
    g.add_node("prep", lambda s: {"items": s["items"] + ["z"]})
    g.add_node("worker", subg)
    g.add_node("final", lambda s: {"res": ["done"]})
    g.add_edge(START, "prep")
    g.add_conditional_edges("prep", fan, ["worker"])
    g.add_edge("worker", "final")
    g.add_edge("final", END)
    app = g.compile()
    out = {}
    out["invoke"] = app.invoke({"items": ["a", "b"], "res": []})
    # the two workers run in parallel: their chunks interleave as they happen to run
    out["sub"] = sorted(
        str((namespace(ns), mode, c))
        for ns, mode, c in app.stream(
            {"items": ["a"], "res": []}, stream_mode=["updates", "custom", "values"], subgraphs=True
        )
    )
    dbg = list(app.stream({"items": ["a"], "res": []}, stream_mode="debug"))
    out["debug"] = [(d["type"], d["step"], d["payload"].get("name")) for d in dbg]
    return out
