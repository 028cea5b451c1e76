"""update_state on a step stopped on an interrupt starts a new checkpoint: the step's tasks
run afresh (a finished sibling's writes are not kept, the interrupt fires again), and a
resume given then answers the first interrupt the step raises."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    value: Annotated[list[str], operator.add]


def run() -> dict:
    return {
        f"{parallel}-{mode}": _case(parallel, mode)
        for parallel in (False, True)
        for mode in ("resume", "none")
    }


def _case(parallel: bool, mode: str) -> list:
    called: list[str] = []

    def a(state: State) -> dict:
        called.append("a")
        return {"value": ["a"]}

    def ask(state: State) -> dict:
        called.append("ask")
        return {"value": [f"human:{interrupt('q?')}"]}

    def side(state: State) -> dict:
        called.append("side")
        return {"value": ["side"]}

    b = StateGraph(State)
    b.add_node("a", a)
    b.add_node("ask", ask)
    b.add_node("side", side)
    b.add_edge(START, "a")
    b.add_edge("a", "ask")
    if parallel:
        b.add_edge("a", "side")
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    seen = [graph.invoke({"value": []}, cfg)]
    graph.update_state(cfg, {"value": ["x"]})
    snap = graph.get_state(cfg)
    seen.append([snap.next, snap.values, [t.interrupts for t in snap.tasks]])
    seen.append(graph.invoke(Command(resume="r") if mode == "resume" else None, cfg))
    # ask and side run in parallel on both implementations' pools, so the order in which they
    # log their calls is the pools' start order: compare how often each ran, not the order
    seen.append(sorted(called))
    return seen
