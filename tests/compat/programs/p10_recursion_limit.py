"""Recursion limits at the edge: exactly enough steps, one too few, a limit of 1, a
fan-out that counts as one step, and the error seen through stream."""

import operator
from typing import Annotated, TypedDict

from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send


class State(TypedDict):
    n: int
    seen: Annotated[list[int], operator.add]


def loop_graph():
    b = StateGraph(State)
    b.add_node("step", lambda s: {"n": s["n"] + 1, "seen": [s["n"]]})
    b.add_edge(START, "step")
    b.add_conditional_edges("step", lambda s: "step" if s["n"] < 5 else END)
    return b.compile()


def fan_graph():
    b = StateGraph(State)
    b.add_node("go", lambda s: {})
    b.add_node("w", lambda x: {"seen": [x]})
    b.add_node("end", lambda s: {"n": len(s["seen"])})
    b.add_edge(START, "go")
    b.add_conditional_edges("go", lambda s: [Send("w", i) for i in range(4)])
    b.add_edge("w", "end")
    return b.compile()


def attempt(graph, limit: int) -> object:
    try:
        return graph.invoke({"n": 0, "seen": []}, {"recursion_limit": limit})
    except GraphRecursionError as exc:
        return {"error": type(exc).__name__}


def run() -> dict:
    loop = loop_graph()
    fan = fan_graph()
    streamed: list = []
    try:
        for chunk in loop.stream({"n": 0, "seen": []}, {"recursion_limit": 3}):
            streamed.append(chunk)
    except GraphRecursionError:
        streamed.append("GraphRecursionError")
    return {
        "loop": {limit: attempt(loop, limit) for limit in (1, 4, 5, 6)},
        "fan": {limit: attempt(fan, limit) for limit in (2, 3)},
        "streamed": streamed,
    }
