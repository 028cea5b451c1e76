"""A CLI test target: a LangGraph-style graph without a checkpointer whose node asks for an
approval with ``interrupt()``."""

from __future__ import annotations

from typing import Any, TypedDict


class State(TypedDict):
    amount: int
    approved: bool


def _ask(state: State) -> dict[str, Any]:
    from superstep_compat.types import interrupt

    return {"approved": interrupt({"question": "charge?", "amount": state["amount"]})}


def _build() -> Any:
    from superstep_compat.graph import START, StateGraph

    builder = StateGraph(State)
    builder.add_node("ask", _ask)
    builder.add_edge(START, "ask")
    return builder.compile()


graph = _build()


def default_input() -> dict[str, Any]:
    return {"amount": 10, "approved": False}
