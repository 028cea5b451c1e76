"""Case 18: durability="exit" saves only the run's last checkpoint (completed, interrupted
or failed), its parent the last one saved before; "async" and "sync" save every step."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    x: int


def boom(s: State) -> dict:
    raise ValueError("boom")


def history(app, cfg) -> list:
    return [
        [h.metadata["step"], h.metadata["source"], list(h.next), h.parent_config is not None]
        for h in app.get_state_history(cfg)
    ]


def run() -> dict:
    g = StateGraph(State)
    g.add_node("a", lambda s: {"x": 1})
    g.add_node("b", lambda s: {"x": 2})
    g.add_node("c", lambda s: {"x": interrupt("q")})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    out = {}
    for durability in ("exit", "async", "sync"):
        app = g.compile(checkpointer=InMemorySaver())
        cfg = {"configurable": {"thread_id": "1"}}
        parents = [
            [c["metadata"]["step"], c["parent_config"] is not None]
            for c in app.stream({"x": 0}, cfg, durability=durability, stream_mode="checkpoints")
        ]
        paused = history(app, cfg)
        result = app.invoke(Command(resume=5), cfg, durability=durability)
        out[durability] = [parents, paused, result, history(app, cfg)]
    f = StateGraph(State)
    f.add_node("a", lambda s: {"x": 1})
    f.add_node("boom", boom)
    f.add_edge(START, "a")
    f.add_edge("a", "boom")
    app = f.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "f"}}
    try:
        app.invoke({"x": 0}, cfg, durability="exit")
    except ValueError as e:
        out["failed"] = [str(e), history(app, cfg), [t.error for t in app.get_state(cfg).tasks]]
    return out
