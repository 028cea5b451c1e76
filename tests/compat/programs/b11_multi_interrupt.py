"""Two interrupts in one node answered one at a time, interrupt_before/after breakpoints
resumed with invoke(None), get_state of an unknown thread, Command(resume=...) on a thread
with no checkpoint (the graph starts, the answer is dropped) and without a checkpointer."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class S(TypedDict):
    name: str
    age: str
    done: bool


def form(s):
    name = interrupt("name?")
    age = interrupt(f"age of {name}?")
    return {"name": name, "age": age}


def run():
    g = StateGraph(S)
    g.add_node("form", form)
    g.add_node("check", lambda s: {"done": True})
    g.add_edge(START, "form")
    g.add_edge("form", "check")
    app = g.compile(
        checkpointer=InMemorySaver(), interrupt_after=["form"], interrupt_before=["check"]
    )
    cfg = {"configurable": {"thread_id": "1"}}
    out = {}
    out["1"] = app.invoke({"done": False}, cfg)
    out["2"] = app.invoke(Command(resume="ann"), cfg)
    out["3"] = app.invoke(Command(resume="33"), cfg)
    out["s3"] = app.get_state(cfg)
    out["4"] = app.invoke(None, cfg)
    out["s4"] = app.get_state(cfg)
    out["5"] = app.invoke(None, cfg)
    out["s5"] = app.get_state(cfg)
    out["unknown"] = app.get_state({"configurable": {"thread_id": "nope"}})
    out["unknown_hist"] = list(app.get_state_history({"configurable": {"thread_id": "nope"}}))
    try:
        out["resume_nothing"] = app.invoke(
            Command(resume="x"), {"configurable": {"thread_id": "2"}}
        )
    except Exception as e:
        out["resume_nothing"] = [type(e).__name__, str(e)]
    out["resumed_fresh_thread"] = app.get_state({"configurable": {"thread_id": "2"}})
    try:
        g.compile().invoke(Command(resume="x"))
        out["resume_without_checkpointer"] = None
    except Exception as e:
        out["resume_without_checkpointer"] = [type(e).__name__, str(e)]
    return out
