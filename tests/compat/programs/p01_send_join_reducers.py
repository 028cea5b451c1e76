"""Send fan-out into a reducer, mixed with a static edge and a list-source join, then a
deferred node that waits for every branch of different lengths."""

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send


class State(TypedDict):
    items: list[int]
    squares: Annotated[list[int], operator.add]
    log: Annotated[list[str], operator.add]


def plan(state: State) -> dict:
    return {"log": ["plan"]}


def fan_out(state: State) -> list:
    return [Send("square", {"n": n}) for n in state["items"]] + ["audit"]


def square(arg: dict) -> dict:
    return {"squares": [arg["n"] * arg["n"]], "log": [f"square {arg['n']}"]}


def run() -> dict:
    builder = StateGraph(State)
    builder.add_node("plan", plan)
    builder.add_node("square", square)
    builder.add_node("audit", lambda s: {"log": ["audit"]})
    builder.add_node("audit2", lambda s: {"log": ["audit2"]})
    builder.add_node("join", lambda s: {"log": [f"join {sorted(s['squares'])}"]})
    builder.add_node("total", lambda s: {"log": [f"total {sum(s['squares'])}"]}, defer=True)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", fan_out, ["square", "audit"])
    builder.add_edge("audit", "audit2")
    builder.add_edge(["square", "audit"], "join")
    builder.add_edge("join", "total")
    builder.add_edge("audit2", "total")
    builder.add_edge("total", END)
    graph = builder.compile()
    final = graph.invoke({"items": [3, 1, 2], "squares": [], "log": []})
    # one values chunk per superstep (updates chunks arrive in finishing order)
    steps = list(graph.stream({"items": [4], "squares": [], "log": []}, stream_mode="values"))
    empty = graph.invoke({"items": [], "squares": [], "log": []})
    return {"final": final, "steps": steps, "empty": empty}
