"""A subgraph stopped by its own ``interrupt_before`` beside a sibling task that finishes
after it: streamed with ``subgraphs=True``, the subgraph's namespace shows its node's
update but no interrupt chunk of its own (its parent's task reports the stop), and the
parent's ``__interrupt__`` chunk comes once the step's other tasks have reported; the
continued run hands the sibling's saved writes back."""

import operator
import time
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class Inner(TypedDict):
    my_key: Annotated[str, operator.add]


class Outer(TypedDict):
    my_key: Annotated[str, operator.add]


def build():
    inner = StateGraph(Inner)
    inner.add_node("inner_1", lambda s: {"my_key": " got here"})
    inner.add_node("inner_2", lambda s: {"my_key": " and there"})
    inner.add_edge(START, "inner_1")
    inner.add_edge("inner_1", "inner_2")

    def slow_sibling(state: Outer) -> dict:
        time.sleep(0.3)  # finishes well after the subgraph stopped
        return {"my_key": " and parallel"}

    g = StateGraph(Outer)
    g.add_node("inner", inner.compile(interrupt_before=["inner_2"]))
    g.add_node("sibling", slow_sibling)
    g.add_node("last", lambda s: {"my_key": " and back"})
    g.add_edge(START, "inner")
    g.add_edge(START, "sibling")
    g.add_edge(["inner", "sibling"], "last")
    return g.compile(checkpointer=InMemorySaver())


def run() -> dict:
    app = build()
    cfg = {"configurable": {"thread_id": "t"}}
    first = [
        [list(ns and [ns[0].split(":")[0]]), chunk]
        for ns, chunk in app.stream({"my_key": ""}, cfg, subgraphs=True)
    ]
    second = list(app.stream(None, cfg))
    return {"first": first, "second": second, "values": app.get_state(cfg).values}
