"""Dataclass state with defaults and a reducer, a node reading attributes, a conditional edge
reading the dataclass, and update_state on it."""

import operator
from dataclasses import dataclass, field
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


@dataclass
class State:
    count: int = 0
    events: Annotated[list[str], operator.add] = field(default_factory=list)
    label: str = "start"


def bump(state: State) -> dict:
    return {"count": state.count + 1, "events": [f"bump {state.count}"]}


def again(state: State) -> str:
    return "bump" if state.count < 3 else END


def run() -> dict:
    b = StateGraph(State)
    b.add_node("bump", bump)
    b.add_edge(START, "bump")
    b.add_conditional_edges("bump", again)
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "d"}}
    final = graph.invoke(State(label="go"), cfg)
    graph.update_state(cfg, {"label": "patched", "events": ["manual"]})
    patched = graph.get_state(cfg)
    from_dict = graph.invoke({"count": 2}, {"configurable": {"thread_id": "e"}})
    return {"final": final, "patched": patched, "from_dict": from_dict}
