"""bulk_update_state replays a run from its updates: ``as_node="__input__"`` saves an input
checkpoint (source "input", next ``__start__``), ``"__start__"`` then maps it onto the state;
a thread left at an input checkpoint, or a replay from one, runs the graph on that input."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import StateUpdate


class State(TypedDict):
    foo: str
    seen: Annotated[list[str], operator.add]


def history(app, cfg) -> list:
    return list(app.get_state_history(cfg))


def run() -> dict:
    g = StateGraph(State)
    g.add_node("agent", lambda s: {"foo": s["foo"] + "|agent", "seen": ["agent"]})
    g.add_node("tool", lambda s: {"foo": s["foo"] + "|tool", "seen": ["tool"]})
    g.add_edge(START, "agent")
    g.add_edge("agent", "tool")
    app = g.compile(checkpointer=InMemorySaver())
    out: dict = {}
    one = {"configurable": {"thread_id": "1"}}
    app.invoke({"foo": "in"}, one)
    out["replayed_from_input"] = app.invoke(None, history(app, one)[-1].config)
    out["after_replay"] = history(app, one)
    two = {"configurable": {"thread_id": "2"}}
    app.bulk_update_state(
        two,
        [
            [StateUpdate({"foo": "in"}, "__input__")],
            [StateUpdate({"foo": "in"}, "__start__")],
            [StateUpdate({"foo": "in|agent", "seen": ["agent"]}, "agent")],
        ],
    )
    out["bulk"] = history(app, two)
    three = {"configurable": {"thread_id": "3"}}
    app.update_state(three, {"foo": "x"}, as_node="__input__")
    out["input_only"] = history(app, three)
    out["continued"] = app.invoke(None, three)
    for bad in ({}, None):
        try:
            app.update_state(three, bad, as_node="__input__")
            out[f"bad {bad}"] = None
        except Exception as e:
            out[f"bad {bad}"] = [type(e).__name__, str(e)]
    try:
        app.bulk_update_state(three, [[StateUpdate({"foo": "a"}, "__input__")] * 2])
    except Exception as e:
        out["two inputs"] = [type(e).__name__, str(e)]
    return out
