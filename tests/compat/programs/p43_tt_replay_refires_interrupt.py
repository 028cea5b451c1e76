"""Replaying a thread from the checkpoint before an interrupt that was answered runs the
interrupted step afresh (the interrupt fires again, a parallel sibling runs again), and a
new answer makes a new branch of the history."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    value: Annotated[list[str], operator.add]
    side: Annotated[list[str], operator.add]


def run() -> dict:
    called: list[str] = []

    def node(name: str):
        def act(state: State) -> dict:
            called.append(name)
            return {"value": [name]}

        return act

    def ask(state: State) -> dict:
        called.append("ask")
        return {"value": [f"human:{interrupt('input?')}"]}

    b = StateGraph(State)
    b.add_node("a", node("a"))
    b.add_node("ask", ask)
    b.add_node("side", lambda s: called.append("side") or {"side": ["side"]})
    b.add_node("b", node("b"))
    b.add_edge(START, "a")
    b.add_edge("a", "ask")
    b.add_edge("a", "side")
    b.add_edge("ask", "b")
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out: dict = {"first": graph.invoke({"value": [], "side": []}, cfg)}
    out["resumed"] = graph.invoke(Command(resume="old"), cfg)
    before = next(s for s in graph.get_state_history(cfg) if s.next == ("ask", "side"))
    called.clear()
    out["replay"] = graph.invoke(None, before.config)
    out["replay_called"] = sorted(called)
    out["again"] = graph.invoke(Command(resume="new"), cfg)
    out["history"] = [
        [s.metadata["source"], s.next, s.values] for s in graph.get_state_history(cfg)
    ]
    return out
