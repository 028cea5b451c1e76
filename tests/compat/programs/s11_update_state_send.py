"""update_state with a Command whose goto holds Sends: the Sends become the thread's next
tasks (after the edge-triggered ones), and continuing runs them with their args."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def run() -> dict:
    b = StateGraph(State)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("w", lambda arg: {"log": [f"w:{arg}"]})
    b.add_node("z", lambda s: {"log": ["z"]})
    b.add_edge(START, "a")
    b.add_edge("a", END)
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "s11"}}
    graph.invoke({"log": []}, cfg)
    graph.update_state(cfg, Command(update={"log": ["u"]}, goto=[Send("w", 2), "z", Send("w", 1)]))
    state = graph.get_state(cfg)
    return {
        "next": list(state.next),
        "tasks": [t.name for t in state.tasks],
        "values": state.values,
        "final": graph.invoke(None, cfg),
    }
