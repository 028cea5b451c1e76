"""interrupt_before, then update_state(as_node=...) on a node with conditional edges: the
route is taken from the update; also update_state with no as_node on a fresh thread."""

from typing import Literal, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    score: int
    verdict: str


def route(state: State) -> Literal["accept", "reject"]:
    return "accept" if state["score"] >= 5 else "reject"


def run() -> dict:
    b = StateGraph(State)
    b.add_node("grade", lambda s: {"score": 2})
    b.add_node("accept", lambda s: {"verdict": "accepted"})
    b.add_node("reject", lambda s: {"verdict": "rejected"})
    b.add_edge(START, "grade")
    b.add_conditional_edges("grade", route)
    b.add_edge("accept", END)
    b.add_edge("reject", END)
    graph = b.compile(checkpointer=InMemorySaver(), interrupt_before=["grade"])
    cfg = {"configurable": {"thread_id": "a1"}}
    first = graph.invoke({"score": 0, "verdict": ""}, cfg)
    before = graph.get_state(cfg)
    graph.update_state(cfg, {"score": 9}, as_node="grade")
    skipped = graph.get_state(cfg)
    final = graph.invoke(None, cfg)
    cfg2 = {"configurable": {"thread_id": "a2"}}
    graph.update_state(cfg2, {"score": 1, "verdict": "seeded"})
    seeded = graph.get_state(cfg2)
    return {"first": first, "before": before, "skipped": skipped, "final": final, "seeded": seeded}
