"""A graph for the viewer's size measurement: ``tick`` runs once a superstep until ``steps``
reaches ``until``, each time adding one message, so ``{"until": 1000}`` leaves a thread of a
thousand supersteps whose state holds a thousand messages."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from superstep_compat.graph import END, START, StateGraph
from superstep_compat.graph.message import add_messages


class Long(TypedDict, total=False):
    messages: Annotated[list[Any], add_messages]
    steps: int
    until: int


def tick(state: Long) -> dict[str, Any]:
    steps = state.get("steps", 0) + 1
    return {"steps": steps, "messages": [{"role": "ai", "content": f"tick {steps}"}]}


def again(state: Long) -> str:
    return "tick" if state.get("steps", 0) < state.get("until", 0) else END


builder = StateGraph(Long)
builder.add_node("tick", tick)
builder.add_edge(START, "tick")
builder.add_conditional_edges("tick", again, ["tick", END])
graph = builder.compile()
