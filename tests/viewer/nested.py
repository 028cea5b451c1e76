"""A graph with a subgraph for the viewer's browser tests: prepare -> review (a subgraph:
check -> approve) -> done."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from superstep_compat.graph import START, StateGraph


class Log(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


def _step(name: str) -> Any:
    def step(state: Log) -> dict[str, Any]:
        return {"log": [name]}

    return step


inner = StateGraph(Log)
inner.add_node("check", _step("check"))
inner.add_node("approve", _step("approve"))
inner.add_edge(START, "check")
inner.add_edge("check", "approve")

builder = StateGraph(Log)
builder.add_node("prepare", _step("prepare"))
builder.add_node("review", inner.compile())
builder.add_node("done", _step("done"))
builder.add_edge(START, "prepare")
builder.add_edge("prepare", "review")
builder.add_edge("review", "done")
graph = builder.compile()
