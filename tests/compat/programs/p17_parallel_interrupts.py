"""Two parallel nodes interrupt in the same superstep; resume both at once with a map of
interrupt ids; a node that interrupts twice in sequence is resumed twice."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    answers: Annotated[list[str], operator.add]


def asker(name: str):
    def node(state: State) -> dict:
        return {"answers": [f"{name}={interrupt(f'{name}?')}"]}

    return node


def twice(state: State) -> dict:
    first = interrupt("first?")
    second = interrupt("second?")
    return {"answers": [f"twice={first},{second}"]}


def run() -> dict:
    b = StateGraph(State)
    b.add_node("left", asker("left"))
    b.add_node("right", asker("right"))
    b.add_node("twice", twice)
    b.add_edge(START, "left")
    b.add_edge(START, "right")
    b.add_edge(["left", "right"], "twice")
    b.add_edge("twice", END)
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "pi"}}
    first = graph.invoke({"answers": []}, cfg)
    paused = graph.get_state(cfg)
    by_value = {i.value: i.id for i in paused.interrupts}
    resumed = graph.invoke(Command(resume={by_value["left?"]: "L", by_value["right?"]: "R"}), cfg)
    after_first = graph.invoke(Command(resume="one"), cfg)
    final = graph.invoke(Command(resume="two"), cfg)
    return {
        "first": first,
        "paused": paused,
        "resumed": resumed,
        "after_first": after_first,
        "final": final,
        "interrupt_values": sorted(by_value),
    }
