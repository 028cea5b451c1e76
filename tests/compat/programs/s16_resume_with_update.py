"""Case 16: `Command(resume=..., update=...)` writes the update onto the checkpoint the thread
is at before the interrupted task runs again: the resumed task reads it, the stream starts
with it, and the checkpoint's history shows it; a task that interrupts twice keeps the first
answer's update for the second resume."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict):
    k: Annotated[str, operator.add]
    seen: list


def once(state: State) -> dict:
    answer = interrupt("q")
    return {"seen": [state["k"], answer]}


def twice(state: State) -> dict:
    first = interrupt("q1")
    second = interrupt("q2")
    return {"k": f"|{first}|{second}", "seen": [state["k"]]}


def build(node):
    b = StateGraph(State)
    b.add_node("node", node)
    b.add_edge(START, "node")
    return b.compile(checkpointer=InMemorySaver())


def plain(chunks: list) -> list:
    out = []
    for mode, data in chunks:
        if isinstance(data, dict) and "__interrupt__" in data:
            data = {**data, "__interrupt__": [i.value for i in data["__interrupt__"]]}
        out.append([mode, data])
    return out


def run() -> dict:
    modes = ["values", "updates"]
    g = build(once)
    cfg = {"configurable": {"thread_id": "once"}}
    g.invoke({"k": "A"}, cfg)
    resumed = plain(list(g.stream(Command(resume="x", update={"k": "B"}), cfg, stream_mode=modes)))
    history = [(h.metadata["step"], h.values, list(h.next)) for h in g.get_state_history(cfg)]

    g2 = build(twice)
    cfg2 = {"configurable": {"thread_id": "twice"}}
    g2.invoke({"k": "A"}, cfg2)
    mid = plain(list(g2.stream(Command(resume="1", update={"k": "B"}), cfg2, stream_mode=modes)))
    end = plain(list(g2.stream(Command(resume="2"), cfg2, stream_mode=modes)))
    history2 = [(h.metadata["step"], h.values, list(h.next)) for h in g2.get_state_history(cfg2)]
    return {"resumed": resumed, "history": history, "mid": mid, "end": end, "history2": history2}
