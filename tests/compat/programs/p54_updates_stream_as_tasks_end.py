"""A task's ``updates`` chunk is streamed when that task ends, not when its whole step does:
a quick task's chunk comes before the chunks of a slow sibling (and of the slow sibling's
subgraph) of the same step, with ``subgraphs=True`` and with a plain ``astream``: the
order of a step's chunks follows its tasks' end times."""

import asyncio
import operator
import time
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph


class Inner(TypedDict):
    key: Annotated[str, operator.add]


class Outer(TypedDict):
    key: Annotated[str, operator.add]


def _graph(pause: Any) -> Any:
    def first(state: Inner) -> dict:
        return {"key": "i1"}

    def second(state: Inner) -> dict:
        pause(0.4)
        return {"key": "i2"}

    inner = StateGraph(Inner)
    inner.add_node("first", first)
    inner.add_node("second", second)
    inner.add_edge(START, "first")
    inner.add_edge("first", "second")

    def quick(state: Outer) -> dict:
        pause(0.1)
        return {"key": "q"}

    def after(state: Outer) -> dict:
        return {"key": "a"}

    outer = StateGraph(Outer)
    outer.add_node("inner", inner.compile())
    outer.add_node("quick", quick)
    outer.add_node("after", after)
    outer.add_edge(START, "inner")
    outer.add_edge(START, "quick")
    outer.add_edge(["inner", "quick"], "after")
    outer.add_edge("after", END)
    return outer.compile()


def _shape(chunk: Any) -> Any:
    ns, data = chunk
    return [[part.split(":")[0] for part in ns], data]


async def _async_parallel() -> list:
    async def slow(state: Outer) -> dict:
        await asyncio.sleep(0.4)
        return {"key": "a"}

    async def quick(state: Outer) -> dict:
        await asyncio.sleep(0.1)
        return {"key": "b"}

    builder = StateGraph(Outer)
    builder.add_node("alpha", slow)
    builder.add_node("beta", quick)
    builder.add_edge(START, "alpha")
    builder.add_edge(START, "beta")
    return [c async for c in builder.compile().astream({"key": ""})]


def run() -> dict:
    graph = _graph(time.sleep)
    return {
        "sync_subgraphs": [_shape(c) for c in graph.stream({"key": ""}, subgraphs=True)],
        "async_parallel": asyncio.run(_async_parallel()),
    }
