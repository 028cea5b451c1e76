"""One of two parallel nodes fails: the error propagates, the successful sibling's write is
kept as a pending write, and a retry of the thread after fixing the cause completes."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

calls: list[str] = []
broken = {"on": True}


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def good(state: State) -> dict:
    calls.append("good")
    return {"log": ["good"]}


def bad(state: State) -> dict:
    calls.append("bad")
    if broken["on"]:
        raise RuntimeError("boom")
    return {"log": ["bad fixed"]}


def run() -> dict:
    b = StateGraph(State)
    b.add_node("good", good)
    b.add_node("bad", bad)
    b.add_node("after", lambda s: {"log": ["after"]})
    b.add_edge(START, "good")
    b.add_edge(START, "bad")
    b.add_edge(["good", "bad"], "after")
    b.add_edge("after", END)
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "f"}}
    try:
        graph.invoke({"log": []}, cfg)
        error = None
    except RuntimeError as exc:
        error = str(exc)
    failed = graph.get_state(cfg)
    broken["on"] = False
    resumed = graph.invoke(None, cfg)
    return {
        "error": error,
        "failed": failed,
        "resumed": resumed,
        "calls": sorted(calls[:2]) + calls[2:],
    }
