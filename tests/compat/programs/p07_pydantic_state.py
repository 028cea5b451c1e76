"""Pydantic state: defaults, a validator, a nested model, a reducer field; values from
invoke, stream and get_state, and a validation error on bad input."""

import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, Field, field_validator


class Address(BaseModel):
    city: str = "nowhere"
    zip: str = "00000"


class State(BaseModel):
    name: str
    age: int = 0
    address: Address = Field(default_factory=Address)
    tags: Annotated[list[str], operator.add] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("blank name")
        return v


def greet(state: State) -> dict:
    return {"tags": [f"hi {state.name}"], "age": state.age + 1}


def move(state: State) -> dict:
    return {"address": Address(city="Lyon"), "tags": [type(state.address).__name__]}


def run() -> dict:
    b = StateGraph(State)
    b.add_node("greet", greet)
    b.add_node("move", move)
    b.add_edge(START, "greet")
    b.add_edge("greet", "move")
    b.add_edge("move", END)
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "p"}}
    final = graph.invoke({"name": "Ada"}, cfg)
    snapshot = graph.get_state(cfg)
    streamed = list(
        graph.stream(
            State(name="Bob", age=40), {"configurable": {"thread_id": "q"}}, stream_mode="values"
        )
    )
    try:
        graph.invoke({"age": 3}, {"configurable": {"thread_id": "r"}})
        missing = "no error"
    except Exception as exc:
        missing = type(exc).__name__
    try:
        graph.invoke({"name": "  "}, {"configurable": {"thread_id": "s"}})
        blank = "no error"
    except Exception as exc:
        blank = type(exc).__name__
    return {
        "blank": blank,
        "final": final,
        "snapshot": snapshot,
        "streamed": streamed,
        "missing": missing,
        "final_type": type(final).__name__,
    }
