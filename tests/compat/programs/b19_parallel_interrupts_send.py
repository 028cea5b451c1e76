"""Send fan-out where every worker interrupts: the interrupts listed in get_state, answered
all at once by id, then a thread copied by forking from history with update_state(None)."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


class S(TypedDict):
    items: list[str]
    out: Annotated[list[str], operator.add]


class W(TypedDict):
    item: str


def worker(s: W):
    return {"out": [s["item"] + "=" + interrupt(f"value for {s['item']}?")]}


def run():
    g = StateGraph(S)
    g.add_node("worker", worker)
    g.add_conditional_edges(
        START, lambda s: [Send("worker", {"item": i}) for i in s["items"]], ["worker"]
    )
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    out = {}
    first = app.invoke({"items": ["a", "b", "c"], "out": []}, cfg)
    out["asked"] = sorted(i.value for i in first["__interrupt__"])
    st = app.get_state(cfg)
    out["next"] = st.next
    out["n_interrupts"] = len(st.interrupts)
    answers = {i.id: i.value.split()[2].upper() for i in st.interrupts}
    done = app.invoke(Command(resume=answers), cfg)
    out["done"] = sorted(done["out"])
    hist = list(app.get_state_history(cfg))
    out["hist"] = [(h.next, h.metadata["step"], h.metadata["source"]) for h in hist]
    fork = app.update_state(hist[-2].config, None)
    out["fork_state"] = app.get_state(fork).next
    return out
