"""Graphs for the viewer's browser tests: ``graph``, prepare -> review (a subgraph: check ->
approve) -> done; ``parallel``, two nodes asking a question each in the same superstep (two
interrupts pending at once), then a summary."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from superstep_compat.graph import START, StateGraph
from superstep_compat.types import interrupt


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


class Answers(TypedDict, total=False):
    answers: Annotated[list[str], operator.add]


def _asking(topic: str) -> Any:
    def ask(state: Answers) -> dict[str, Any]:
        return {"answers": [f"{topic}={interrupt({'question': f'{topic}?'})}"]}

    return ask


def _summary(state: Answers) -> dict[str, Any]:
    return {"answers": [f"{len(state.get('answers', []))} answered"]}


both = StateGraph(Answers)
both.add_node("ask_colour", _asking("colour"))
both.add_node("ask_size", _asking("size"))
both.add_node("summary", _summary)
both.add_edge(START, "ask_colour")
both.add_edge(START, "ask_size")
both.add_edge(["ask_colour", "ask_size"], "summary")
parallel = both.compile()
