"""interrupt_after="*" stops after each node (never after __start__), with every durability."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    x: str


def run() -> dict:
    out: dict = {}
    for durability in ("sync", "async", "exit"):
        b = StateGraph(State)
        for name in ("one", "two", "three"):
            b.add_node(name, lambda s: None)
        b.add_edge(START, "one")
        b.add_edge("one", "two")
        b.add_edge("two", "three")
        b.add_edge("three", END)
        graph = b.compile(checkpointer=InMemorySaver(), interrupt_after="*")
        cfg = {"configurable": {"thread_id": durability}}
        seen = []
        inp: dict | None = {"x": "hi"}
        for _ in range(4):
            result = graph.invoke(inp, cfg, durability=durability)
            inp = None
            seen.append(
                [result, graph.get_state(cfg).next, len(list(graph.get_state_history(cfg)))]
            )
        out[durability] = seen
    return out
