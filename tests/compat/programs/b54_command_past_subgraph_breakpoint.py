"""A subgraph stopped at its own breakpoint (``interrupt_before`` inside it): its parent's
task has no result event (it did not end), and a `Command` without ``resume`` (a goto, an
update) runs that task on past the breakpoint in the same step as the goto's node, as
LangGraph resumes every unfinished task of the step it continues."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def build():
    inner = StateGraph(State)
    inner.add_node("i1", lambda s: {"log": ["i1"]})
    inner.add_node("i2", lambda s: {"log": ["i2"]})
    inner.add_edge(START, "i1")
    inner.add_edge("i1", "i2")
    b = StateGraph(State)
    b.add_node("sub", inner.compile(interrupt_before=["i2"]))
    b.add_node("x", lambda s: {"log": ["x"]})
    b.add_edge(START, "sub")
    b.add_edge("sub", "x")
    return b.compile(checkpointer=InMemorySaver())


def _chunk(c) -> tuple:
    ns, mode, data = c
    if mode == "tasks":
        data = (data["name"], "input" in data, data.get("result"))
    return (tuple(p.split(":")[0] for p in ns), mode, data)


def run() -> dict:
    out: dict = {}
    for command in (Command(goto="x"), Command(update={"log": ["u"]}), None):
        g = build()
        cfg = {"configurable": {"thread_id": "t"}}
        first = [
            _chunk(c)
            for c in g.stream({"log": []}, cfg, stream_mode=["tasks", "updates"], subgraphs=True)
        ]
        st = g.get_state(cfg, subgraphs=True)
        then = [
            _chunk(c)
            for c in g.stream(command, cfg, stream_mode=["updates", "values"], subgraphs=True)
        ]
        key = "none" if command is None else ("goto" if command.goto else "update")
        if key == "goto":  # sub and x run in one step: they end in either order
            then = sorted(map(repr, then))
        out[key] = {
            "first": first,
            "paused": (list(st.next), list(st.tasks[0].state.next)),
            "then": then,
            "values": g.get_state(cfg).values,
            "history": [(h.metadata["step"], list(h.next)) for h in g.get_state_history(cfg)],
        }
    return out
