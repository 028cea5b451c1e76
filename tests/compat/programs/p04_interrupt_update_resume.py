"""update_state while an interrupt is pending, then resume: the node re-runs on the updated
state; the snapshot's next/tasks/interrupts along the way."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    draft: str
    notes: Annotated[list[str], operator.add]


def review(state: State) -> dict:
    verdict = interrupt({"draft": state["draft"]})
    return {"notes": [f"{state['draft']}: {verdict}"]}


def run() -> dict:
    b = StateGraph(State)
    b.add_node("write", lambda s: {"draft": "v1", "notes": ["written"]})
    b.add_node("review", review)
    b.add_edge(START, "write")
    b.add_edge("write", "review")
    b.add_edge("review", END)
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "u1"}}
    first = graph.invoke({"draft": "", "notes": []}, cfg)
    graph.update_state(cfg, {"draft": "v2", "notes": ["edited"]})
    edited = graph.get_state(cfg)
    final = graph.invoke(Command(resume="fine"), cfg)
    history = [
        [s.metadata.get("source"), s.metadata.get("step"), list(s.next)]
        for s in graph.get_state_history(cfg)
    ]
    return {"first": first, "edited": edited, "final": final, "history": history}
