"""A conditional-edge router annotated with a schema of its own reads only that schema's
keys (its own input schema, as a node's), sync and async, and the graph's output is not
widened by the router's keys."""

import asyncio
import operator
from typing import Annotated

from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict


class Overall(TypedDict):
    foo: Annotated[int, operator.add]
    bar: str


class RouterView(TypedDict):
    baz: str


class SecondView(TypedDict):
    foo: Annotated[int, operator.add]
    baz: str


def run() -> dict:
    seen: list = []

    def first(state: Overall) -> dict:
        return {"foo": 1, "baz": "meow"}

    def second(state: SecondView) -> dict:
        return {"foo": 1, "bar": state["baz"]}

    def router(state: RouterView) -> str:
        seen.append(dict(state))
        return "second" if state["baz"] == "meow" else "__end__"

    builder = StateGraph(Overall)
    builder.add_node("first", first)
    builder.add_node("second", second)
    builder.add_conditional_edges("first", router)
    builder.add_edge(START, "first")
    graph = builder.compile()
    out = {"invoke": graph.invoke({"foo": 0})}
    out["ainvoke"] = asyncio.run(graph.ainvoke({"foo": 10}))
    out["router_saw"] = seen
    out["channels"] = sorted(k for k in graph.channels if not k.startswith(("__", "branch:")))
    return out
