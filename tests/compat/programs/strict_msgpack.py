"""Run by test_strict_msgpack.py (not a numbered differential program: it needs
LANGGRAPH_STRICT_MSGPACK=true in the driver's environment). A paused graph and a paused
entrypoint whose state holds a dataclass, a pydantic model and an Enum, continued from the
checkpoint: under strict deserialisation the compiled graph allows its schemas' classes, so
they come back as themselves, not as dicts; a class no schema names comes back as LangGraph's
serializer leaves it."""

import operator
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
from pydantic import BaseModel


class Color(Enum):
    RED = "red"


@dataclass
class Item:
    name: str


class Model(BaseModel):
    n: int


@dataclass
class NotInSchema:
    v: int


class State(TypedDict):
    value: Annotated[list[str], operator.add]
    item: Item
    models: list[Model]
    color: Color
    loose: Any


def _described(values: dict[str, Any]) -> dict[str, Any]:
    return {k: [type(v).__name__, repr(v)] for k, v in sorted(values.items())}


def run() -> dict:
    def first(state: State) -> dict:
        return {
            "value": ["a"],
            "item": Item("x"),
            "models": [Model(n=1)],
            "color": Color.RED,
            "loose": NotInSchema(3),
        }

    def ask(state: State) -> dict:
        return {"value": [f"human:{interrupt('q?')}"]}

    builder = StateGraph(State)
    builder.add_node("first", first)
    builder.add_node("ask", ask)
    builder.add_edge(START, "first")
    builder.add_edge("first", "ask")
    out: dict[str, Any] = {}
    with SqliteSaver.from_conn_string(":memory:") as saver:
        graph = builder.compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": "graph"}}
        graph.invoke({"value": []}, cfg)
        out["graph"] = _described(graph.invoke(Command(resume="r"), cfg))
        out["state"] = _described(graph.get_state(cfg).values)

        @task
        def double(x: Item) -> Item:
            return Item(x.name * 2)

        @entrypoint(checkpointer=saver)
        def main(x: Item) -> Item:
            doubled = double(x).result()
            return Item(doubled.name + interrupt("more?"))

        cfg = {"configurable": {"thread_id": "entrypoint"}}
        main.invoke(Item("z"), cfg)
        out["entrypoint"] = repr(main.invoke(Command(resume="!"), cfg))
    return out
