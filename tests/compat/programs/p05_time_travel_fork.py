"""Fork from a past checkpoint with update_state, replay from it, and compare histories."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    n: int
    trail: Annotated[list[str], operator.add]


def run() -> dict:
    b = StateGraph(State)
    b.add_node("a", lambda s: {"n": s["n"] + 1, "trail": ["a"]})
    b.add_node("b", lambda s: {"n": s["n"] * 10, "trail": ["b"]})
    b.add_node("c", lambda s: {"n": s["n"] - 3, "trail": ["c"]})
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "c")
    b.add_edge("c", END)
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "tt"}}
    final = graph.invoke({"n": 1, "trail": []}, cfg)
    history = list(graph.get_state_history(cfg))
    before_b = next(s for s in history if s.next == ("b",))
    replay = graph.invoke(None, before_b.config)
    forked_cfg = graph.update_state(before_b.config, {"n": 100, "trail": ["fork"]})
    forked_state = graph.get_state(forked_cfg)
    forked = graph.invoke(None, forked_cfg)
    after = list(graph.get_state_history(cfg))
    return {
        "final": final,
        "replay": replay,
        "forked_state": forked_state,
        "forked": forked,
        "history_len": [len(history), len(after)],
        "sources": [[s.metadata.get("source"), s.metadata.get("step")] for s in after],
        "latest": graph.get_state(cfg),
    }
