"""Custom stream chunks written inside a @task that a graph node calls: with subgraphs=True
they carry the calling node's namespace (under its subgraph's), without it they are shown
as they are; the node's own chunks stay at its graph's namespace."""

from typing import TypedDict

from _plain import namespace
from langgraph.config import get_stream_writer
from langgraph.func import task
from langgraph.graph import START, StateGraph


class S(TypedDict):
    n: int


@task
def square(x: int) -> int:
    get_stream_writer()({"square": x})
    return x * x


def compute(s):
    get_stream_writer()({"node": s["n"]})
    return {"n": square(s["n"]).result()}


def run():
    g = StateGraph(S)
    g.add_node("compute", compute)
    g.add_edge(START, "compute")
    inner = g.compile()
    outer = StateGraph(S)
    outer.add_node("inner", inner)
    outer.add_edge(START, "inner")
    app = outer.compile()
    out = {}
    for name, graph in (("root", inner), ("nested", app)):
        out[name] = [
            (namespace(ns), mode, chunk)
            for ns, mode, chunk in graph.stream(
                {"n": 2}, stream_mode=["custom", "updates"], subgraphs=True
            )
        ]
        out[name + " flat"] = list(graph.stream({"n": 3}, stream_mode="custom"))
    return out
