"""Nodes run in parallel by a sync ``invoke`` see the context variables the caller set (the
tasks of a step run in worker threads with a copy of the caller's context), as a lone node
does; a variable a node sets does not leak into its siblings or the caller."""

import contextvars
import operator
from collections.abc import Callable
from typing import Annotated

from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict

var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="default")


class Seen(TypedDict):
    seen: Annotated[list, operator.add]


def _node(name: str) -> Callable[[Seen], dict]:
    def node(state: Seen) -> dict:
        value = var.get()
        var.set(f"set by {name}")
        return {"seen": [f"{name}:{value}"]}

    return node


def run() -> dict:
    builder = StateGraph(Seen)
    for name in ("a", "b", "c", "d"):
        builder.add_node(name, _node(name))
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    builder.add_edge(START, "c")
    builder.add_edge("a", "d")
    graph = builder.compile()
    var.set("caller")
    out = {"seen": sorted(graph.invoke({"seen": []})["seen"]), "after": var.get()}
    out["streamed"] = sorted(
        seen
        for chunk in graph.stream({"seen": []}, stream_mode="updates")
        for update in chunk.values()
        for seen in update["seen"]
    )
    return out
