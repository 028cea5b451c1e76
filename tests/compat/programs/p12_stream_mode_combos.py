"""Several stream modes at once (custom + updates + values, with and without subgraphs),
a stream writer in a subgraph node, and a single mode given as a one-item list."""

import operator
from typing import Annotated, TypedDict

from _plain import namespace
from langgraph.config import get_stream_writer
from langgraph.graph import START, StateGraph


class State(TypedDict):
    items: Annotated[list[str], operator.add]


def emit(name: str):
    def node(state: State) -> dict:
        writer = get_stream_writer()
        writer({"from": name, "seen": len(state["items"])})
        return {"items": [name]}

    return node


def build():
    child = StateGraph(State)
    child.add_node("inner", emit("inner"))
    child.add_edge(START, "inner")
    b = StateGraph(State)
    b.add_node("first", emit("first"))
    b.add_node("sub", child.compile())
    b.add_node("last", emit("last"))
    b.add_edge(START, "first")
    b.add_edge("first", "sub")
    b.add_edge("sub", "last")
    return b.compile()


def run() -> dict:
    graph = build()
    modes = ["custom", "updates", "values"]
    flat = list(graph.stream({"items": []}, stream_mode=modes))
    nested = [
        [namespace(ns), mode, chunk]
        for ns, mode, chunk in graph.stream({"items": []}, stream_mode=modes, subgraphs=True)
    ]
    one_list = list(graph.stream({"items": []}, stream_mode=["custom"]))
    custom_only = list(graph.stream({"items": []}, stream_mode="custom", subgraphs=True))
    return {
        "flat": flat,
        "nested": nested,
        "one_list": one_list,
        "custom_only": [[namespace(ns), c] for ns, c in custom_only],
    }
