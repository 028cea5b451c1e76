"""The order writes of one step are reduced in: LangGraph sorts a step's tasks by path, so
the writes of edge (pull) tasks come first, by node name, then those of Send (push) tasks
in the order they were sent, whatever their node names."""

import operator
from typing import Annotated, TypedDict

from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send


class State(TypedDict):
    path: Annotated[list[str], operator.add]


def fan_out() -> list:
    def route(s: State) -> list:
        return [
            Send("b", {"path": ["1"]}),
            "c",
            Send("a", {"path": ["2"]}),
            "a",
            Send("b", {"path": ["3"]}),
        ]

    def worker(name: str):
        def work(s: State) -> dict:
            return {"path": [name + "".join(s["path"][-1:]) if len(s["path"]) == 1 else name]}

        return work

    g = StateGraph(State)
    g.add_conditional_edges(START, route, ["a", "b", "c"])
    for name in "abc":
        g.add_node(name, worker(name))
    return g.compile().invoke({"path": []})["path"]


def from_commands() -> list:
    g = StateGraph(State)
    g.add_node(
        "p", lambda s: Command(goto=[Send("x", {"path": ["p"]}), "z"], update={"path": ["p"]})
    )
    g.add_node("q", lambda s: Command(goto=[Send("y", {"path": ["q"]})], update={"path": ["q"]}))
    g.add_node("x", lambda s: {"path": ["x:" + s["path"][0]]})
    g.add_node("y", lambda s: {"path": ["y:" + s["path"][0]]})
    g.add_node("z", lambda s: {"path": ["z"]})
    g.add_edge(START, "q")
    g.add_edge(START, "p")
    return g.compile().invoke({"path": []})["path"]


def send_before_edge() -> list:
    g = StateGraph(State)
    g.add_conditional_edges(START, lambda s: [Send("a_pushed", {"path": []}), "z_pulled"])
    g.add_node("a_pushed", lambda s: {"path": ["a_pushed"]})
    g.add_node("z_pulled", lambda s: {"path": ["z_pulled"]})
    return g.compile().invoke({"path": []})["path"]


def run() -> dict:
    return {"fan_out": fan_out(), "commands": from_commands(), "send_vs_edge": send_before_edge()}
