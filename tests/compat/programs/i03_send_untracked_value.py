"""A `Send` whose state carries an untracked value (`UntrackedValue`, here an object no
serializer can write): the task it starts gets the value, the checkpoint (its pending
writes, its pending Sends, its state) never holds it; stopped before that task, the thread
continues from the checkpoint without it."""

import operator
import threading
from typing import Annotated, TypedDict

from langgraph.channels.untracked_value import UntrackedValue
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send


class Resource:
    def __init__(self, name: str) -> None:
        self.name = name
        self.lock = threading.Lock()  # no serializer writes this


class State(TypedDict):
    log: Annotated[list, operator.add]
    resource: Annotated[Resource, UntrackedValue]


def setup(state: State) -> dict:
    return {"log": ["setup"], "resource": Resource("first")}


def tool(state: dict) -> dict:
    got = state.get("resource")
    return {"log": [f"tool saw {got.name if got else None}"], "resource": Resource("second")}


def build(stop: bool):
    g = StateGraph(State)
    g.add_node("setup", setup)
    g.add_node("tool", tool)
    g.add_edge(START, "setup")
    g.add_conditional_edges("setup", lambda s: [Send("tool", s)])
    return g.compile(checkpointer=InMemorySaver(), interrupt_before=["tool"] if stop else None)


def run() -> dict:
    out: dict = {}
    for stop in (False, True):
        app = build(stop)
        cfg = {"configurable": {"thread_id": "t"}}
        result = app.invoke({"log": []}, cfg)
        if stop:
            result = app.invoke(None, cfg)
        history = [
            [h.metadata["step"], sorted(h.values), list(h.next)] for h in app.get_state_history(cfg)
        ]
        out[str(stop)] = {
            "result": [result["log"], result["resource"].name],
            "state": sorted(app.get_state(cfg).values),
            "history": history,
        }
    return out
