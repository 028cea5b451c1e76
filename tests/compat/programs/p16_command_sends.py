"""Command(goto=[Send, Send], update=...) from a node, Command(goto=END), and a conditional
edge returning node names mixed with Sends."""

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send


class State(TypedDict):
    log: Annotated[list[str], operator.add]
    stop: bool


def dispatch(state: State) -> Command:
    return Command(
        goto=[Send("worker", {"job": j}) for j in ("x", "y")] + ["tally"],
        update={"log": ["dispatch"]},
    )


def worker(arg: dict) -> Command:
    if arg["job"] == "y":
        return Command(goto=END, update={"log": ["worker y ends"]})
    return Command(update={"log": [f"worker {arg['job']}"]})


def tally(state: State) -> dict:
    return {"log": [f"tally saw {len(state['log'])}"]}


def mixed_route(state: State) -> list:
    return ["after", Send("worker", {"job": "z"})]


def run() -> dict:
    b = StateGraph(State)
    b.add_node("dispatch", dispatch)
    b.add_node("worker", worker)
    b.add_node("tally", tally)
    b.add_node("after", lambda s: {"log": ["after"]})
    b.add_edge(START, "dispatch")
    b.add_conditional_edges("tally", mixed_route, ["after", "worker"])
    graph = b.compile()
    final = graph.invoke({"log": [], "stop": False})
    steps = list(graph.stream({"log": [], "stop": False}, stream_mode="values"))
    return {"final": final, "steps": steps}
