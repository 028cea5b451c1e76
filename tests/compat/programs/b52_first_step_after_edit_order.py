"""The order a step's tasks start (and are reported) in when a thread goes on after an
``update_state``: LangGraph prepares that first step without knowing which channels were
updated, so its edge-triggered tasks start in the order the nodes were added (not by name,
as after any other checkpoint); `Send` tasks still first. One task at a time, so the order
they end in is the order they started in. The run's checkpoint events (``checkpoints``,
``debug``) list a step's tasks in that order too, while a saved checkpoint's view
(``get_state``) lists them in the order the nodes were added."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send

ONE_AT_A_TIME = {"max_concurrency": 1}


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def build():
    b = StateGraph(State)
    b.add_node("first", lambda s: {"log": ["first"]})
    b.add_node("zeta", lambda s: {"log": ["zeta"]})
    b.add_node("alpha", lambda s: {"log": ["alpha"]})
    b.add_node("work", lambda x: {"log": [f"work-{x}"]})
    b.add_edge(START, "first")
    b.add_edge("first", "zeta")
    b.add_edge("first", "alpha")
    return b.compile(checkpointer=InMemorySaver(), interrupt_after=["first"])


def _names(chunks) -> list:
    return [next(iter(c)) for c in chunks]


def run() -> dict:
    out: dict = {}
    for how in ("breakpoint", "update", "update_as_node", "goto_with_send"):
        g = build()
        cfg = {"configurable": {"thread_id": "t"}, **ONE_AT_A_TIME}
        g.invoke({"log": []}, cfg)
        if how == "update":
            g.update_state(cfg, {"log": ["u"]})
        elif how == "update_as_node":
            g.update_state(cfg, {"log": ["u"]}, as_node="first")
        elif how == "goto_with_send":
            g.update_state(cfg, Command(goto=[Send("work", "w"), "alpha"]), as_node="zeta")
        out[how] = {
            "next": list(g.get_state(cfg).next),
            "updates": _names(g.stream(None, cfg, stream_mode="updates")),
            "values": g.get_state(cfg).values,
        }
        # a second edit, then a command input: the same rule
        g.update_state(cfg, {"log": ["again"]}, as_node="first")
        out[how]["command"] = _names(
            g.stream(Command(update={"log": ["cmd"]}), cfg, stream_mode="updates")
        )
    out["events"] = run_events()
    return out


def _events(how: str) -> dict:
    b = StateGraph(State)
    b.add_node("first", lambda s: {"log": ["first"]})
    b.add_node("zeta", lambda s: {"log": ["zeta"]})
    b.add_node("alpha", lambda s: {"log": ["alpha"]})
    b.add_node("mid", lambda s: {"log": ["mid"]})
    b.add_edge(START, "first")
    b.add_edge("first", "zeta")
    b.add_edge("first", "alpha")
    b.add_edge("zeta", "mid")
    b.add_edge("alpha", "mid")
    g = b.compile(checkpointer=InMemorySaver(), interrupt_after=["first"])
    # one task at a time: otherwise the order of the task_result events is thread timing
    cfg = {"configurable": {"thread_id": "t"}, **ONE_AT_A_TIME}
    first = [
        (c["metadata"]["step"], c["next"])
        for c in g.stream({"log": []}, cfg, stream_mode="checkpoints")
    ]
    if how == "update":
        g.update_state(cfg, {"log": ["u"]})
    inp = Command(update={"log": ["c"]}) if how == "command" else None
    then = [
        (
            c["type"],
            c["step"],
            c["payload"]["next"] if c["type"] == "checkpoint" else c["payload"]["name"],
        )
        for c in g.stream(inp, cfg, stream_mode="debug")
    ]
    return {"first": first, "then": then, "saved": list(g.get_state_history(cfg))[-3].next}


def run_events() -> dict:
    return {how: _events(how) for how in ("breakpoint", "update", "command")}
