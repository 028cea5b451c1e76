"""A parallel step's ``updates`` chunks, in the order its tasks end, beside what the step
then does: a sibling that ends later by failing (the finished task's chunk comes before the
error), by interrupting, by returning a `Command` with ``goto``; with ``values``, ``tasks``,
``checkpoints`` and ``debug`` streamed too; sync and async, with a checkpointer. ``b``
ends before ``a`` (``a`` waits for it)."""

import asyncio
import operator
import threading
import time
from typing import Annotated, Any, TypedDict

from _plain import plain
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class S(TypedDict):
    items: Annotated[list, operator.add]


def graph(how: str, is_async: bool = False) -> Any:
    done = threading.Event()

    def a(state: S) -> Any:
        done.wait(5)
        time.sleep(0.1)
        if how == "fail":
            raise ValueError("a failed")
        if how == "interrupt":
            interrupt("a?")
        if how == "goto":
            return Command(update={"items": ["a"]}, goto="c")
        return {"items": ["a"]}

    def b(state: S) -> Any:
        done.set()
        return {"items": ["b"]}

    async def a_async(state: S) -> Any:
        await asyncio.to_thread(done.wait, 5)
        await asyncio.sleep(0.1)
        if how == "fail":
            raise ValueError("a failed")
        if how == "interrupt":
            interrupt("a?")
        return {"items": ["a"]}

    async def b_async(state: S) -> Any:
        done.set()
        return {"items": ["b"]}

    def c(state: S) -> Any:
        return {"items": ["c"]}

    g = StateGraph(S)
    g.add_node("a", a_async if is_async else a)
    g.add_node("b", b_async if is_async else b)
    g.add_node("c", c)
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    return g.compile(checkpointer=InMemorySaver())


MODES = ["updates", "values", "tasks", "checkpoints"]


def shape(chunk: Any) -> Any:
    mode, data = chunk
    if mode == "tasks":
        return [mode, data["name"], "result" in data, data.get("error") is not None]
    if mode == "checkpoints":
        return [mode, data["metadata"]["step"], data["next"]]
    return [mode, plain(data)]


def sync_case(how: str, modes: Any) -> Any:
    out: list[Any] = []
    try:
        for chunk in graph(how).stream(
            {"items": []}, {"configurable": {"thread_id": "t"}}, stream_mode=modes
        ):
            out.append(shape(chunk) if isinstance(modes, list) else plain(chunk))
    except Exception as e:
        out.append({"raised": type(e).__name__})
    return out


async def async_case(how: str) -> Any:
    out: list[Any] = []
    try:
        async for chunk in graph(how, True).astream(
            {"items": []}, {"configurable": {"thread_id": "t"}}, stream_mode=MODES
        ):
            out.append(shape(chunk))
    except Exception as e:
        out.append({"raised": type(e).__name__})
    return out


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for how in ("plain", "fail", "interrupt", "goto"):
        out[how] = sync_case(how, "updates")
        out[f"{how}_modes"] = sync_case(how, MODES)
    for how in ("plain", "fail", "interrupt"):
        out[f"{how}_async"] = asyncio.run(async_case(how))
    return out
