"""Resuming a parallel step that paused on an interrupt: the tasks that finished before it
paused are reported again first, as cached ``updates`` chunks, in the order LangGraph
prepares the step's tasks (`Send` tasks first, as sent; then nodes by name), not in the
order the nodes were added; then the answered task's update. Nodes added in reverse name
order; also with `Send` tasks beside them."""

import operator
import time
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, Send, interrupt


class S(TypedDict):
    items: Annotated[list, operator.add]


def _graph(sends: bool) -> Any:
    def slow(s: S) -> dict:
        time.sleep(0.2)
        return {"items": ["slow"]}

    def asks(s: S) -> dict:
        time.sleep(0.1)
        return {"items": [interrupt("q")]}

    def quick(s: S) -> dict:
        return {"items": ["quick"]}

    def pushed(s: Any) -> dict:
        return {"items": [s["tag"]]}

    g = StateGraph(S)
    for name, action in (("zeta", quick), ("asks", asks), ("alpha", slow)):
        g.add_node(name, action)
        g.add_edge(START, name)
    if sends:
        g.add_node("pushed", pushed)
        g.add_conditional_edges(
            START, lambda s: [Send("pushed", {"tag": "t2"}), Send("pushed", {"tag": "t1"})]
        )
    return g.compile(checkpointer=InMemorySaver())


def run() -> dict:
    out: dict[str, Any] = {}
    for label, sends in (("nodes", False), ("sends", True)):
        app = _graph(sends)
        cfg = {"configurable": {"thread_id": label}}
        app.invoke({"items": []}, cfg)
        out[label] = list(app.stream(Command(resume="answer"), cfg))
        out[label + "_values"] = app.get_state(cfg).values
    return out
