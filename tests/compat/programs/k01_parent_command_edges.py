"""Command(graph=Command.PARENT, goto=...) from inside a subgraph: the parent node that ran
the subgraph finishes as if it had returned the command, so besides the goto its static
edge, its join and its conditional edge fire too (LangGraph hands the command to every
writer of the node)."""

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def jump(s: State) -> Command:
    return Command(graph=Command.PARENT, goto="other", update={"log": ["jump"]})


def build():
    child = StateGraph(State)
    child.add_node("jump", jump)
    child.add_edge(START, "jump")

    parent = StateGraph(State)
    parent.add_node("sub", child.compile())
    parent.add_node("x", lambda s: {"log": ["x"]})
    parent.add_node("other", lambda s: {"log": ["other"]})
    parent.add_node("after", lambda s: {"log": ["after"]})
    parent.add_node("joined", lambda s: {"log": ["joined"]})
    parent.add_node("cond", lambda s: {"log": ["cond"]})
    parent.add_edge(START, "sub")
    parent.add_edge(START, "x")
    parent.add_edge("sub", "after")
    parent.add_edge(["sub", "x"], "joined")
    parent.add_conditional_edges("sub", lambda s: "cond" if "jump" in s["log"] else END)
    return parent.compile()


def run() -> dict:
    graph = build()
    return {
        "result": graph.invoke({"log": []}),
        "updates": list(graph.stream({"log": []}, stream_mode="updates")),
    }
