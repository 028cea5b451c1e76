"""CLI test targets: an engine graph that asks a question (an interrupt) before finishing,
and a LangGraph-style façade graph."""

from __future__ import annotations

from typing import Any, TypedDict

from superstep_core import (
    Activated,
    CompleteActivation,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    Resumed,
    SuspendActivation,
)
from superstep_core.node import Event


def ask(ctx: NodeContext, event: Event) -> Reaction:
    if isinstance(event, Activated):
        return Reaction(updates={"question": event.payload}, disposition=SuspendActivation("ok?"))
    assert isinstance(event, Resumed)
    return Reaction(updates={"answer": event.value}, disposition=CompleteActivation(event.value))


graph = (
    Graph("asking", version="1")
    .with_channels(question=LastValue(), answer=LastValue())
    .add_node("ask", ask)
    .start_at("ask")
    .end_at("ask")
    .compile()
)


class State(TypedDict):
    n: int


def _build() -> Any:
    from superstep_compat.checkpoint.memory import InMemorySaver
    from superstep_compat.graph import END, START, StateGraph

    builder = StateGraph(State)
    builder.add_node("inc", lambda s: {"n": s["n"] + 1})
    builder.add_node("double", lambda s: {"n": s["n"] * 2})
    builder.add_edge(START, "inc")
    builder.add_edge("inc", "double")
    builder.add_edge("double", END)
    return builder.compile(checkpointer=InMemorySaver())


facade = _build()
