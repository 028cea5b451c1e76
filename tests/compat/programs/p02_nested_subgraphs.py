"""Three levels of shared-key subgraphs, streamed with subgraphs=True in two modes."""

import operator
from typing import Annotated, TypedDict

from _plain import namespace
from langgraph.graph import START, StateGraph


class State(TypedDict):
    path: Annotated[list[str], operator.add]
    depth: int


def leaf(name: str):
    def node(state: State) -> dict:
        return {"path": [name], "depth": state["depth"] + 1}

    return node


def build_grandchild():
    b = StateGraph(State)
    b.add_node("g1", leaf("g1"))
    b.add_node("g2", leaf("g2"))
    b.add_edge(START, "g1")
    b.add_edge("g1", "g2")
    return b.compile()


def build_child():
    b = StateGraph(State)
    b.add_node("c1", leaf("c1"))
    b.add_node("grand", build_grandchild())
    b.add_node("c2", leaf("c2"))
    b.add_edge(START, "c1")
    b.add_edge("c1", "grand")
    b.add_edge("grand", "c2")
    return b.compile()


def run() -> dict:
    b = StateGraph(State)
    b.add_node("p1", leaf("p1"))
    b.add_node("child", build_child())
    b.add_edge(START, "p1")
    b.add_edge("p1", "child")
    graph = b.compile()
    final = graph.invoke({"path": [], "depth": 0})
    chunks = [
        [namespace(ns), mode, chunk]
        for ns, mode, chunk in graph.stream(
            {"path": [], "depth": 0}, stream_mode=["updates", "values"], subgraphs=True
        )
    ]
    plain_updates = list(graph.stream({"path": [], "depth": 0}, stream_mode="updates"))
    return {"final": final, "chunks": chunks, "updates": plain_updates}
