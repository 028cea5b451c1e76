"""In an async run a plain (sync) node runs on a worker thread, not on the event loop: two
sync nodes of one step that block run at the same time (each sees the other started before
it goes on), the consumer of ``astream`` gets a sync node's chunk while that node still
runs, and a sync node, its router, a sync entrypoint and a sync ``@task`` of an async
entrypoint all run off the loop, seeing the caller's context variables. The threads are
paced with events (each wait is bounded so a wrong implementation ends, not hangs); what is
compared is what each saw, never a duration."""

import asyncio
import contextvars
import operator
import threading
from typing import Annotated, Any, TypedDict

from langgraph.config import get_stream_writer
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph

WAIT = 3.0  # seconds a node waits for what a correct run gives it at once
VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="unset")


class State(TypedDict):
    seen: Annotated[list, operator.add]


def _off_loop() -> bool:
    return threading.current_thread() is not threading.main_thread()


def _parallel() -> Any:
    started = {"a": threading.Event(), "b": threading.Event()}

    def node(me: str, other: str) -> Any:
        def run(state: State) -> dict:
            started[me].set()
            saw = started[other].wait(WAIT)
            return {"seen": [[me, "saw the other start", saw, _off_loop(), VAR.get()]]}

        return run

    def route(state: State) -> str:
        return "after" if _off_loop() else "on_loop"

    def after(state: State) -> dict:
        return {"seen": [["router off the loop"]]}

    def on_loop(state: State) -> dict:
        return {"seen": [["router on the loop"]]}

    builder = StateGraph(State)
    builder.add_node("a", node("a", "b"))
    builder.add_node("b", node("b", "a"))
    builder.add_node("after", after)
    builder.add_node("on_loop", on_loop)
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    builder.add_conditional_edges("a", route, ["after", "on_loop"])
    return builder.compile()


def _streaming() -> tuple[Any, threading.Event]:
    received = threading.Event()

    def talk(state: State) -> dict:
        get_stream_writer()({"from": "talk"})
        return {"seen": [["talk: consumer got the chunk first", received.wait(WAIT)]]}

    builder = StateGraph(State)
    builder.add_node("talk", talk)
    builder.add_edge(START, "talk")
    return builder.compile(), received


async def _run() -> dict:
    VAR.set("caller's")
    final = await _parallel().ainvoke({"seen": []})
    graph, received = _streaming()
    chunks = []
    async for mode, chunk in graph.astream({"seen": []}, stream_mode=["custom", "updates"]):
        chunks.append([mode, chunk])
        if mode == "custom":
            received.set()

    @task
    def sync_task(x: int) -> list:
        return [x, _off_loop(), VAR.get()]

    @entrypoint()
    async def async_entry(x: int) -> list:
        return [await sync_task(x), _off_loop()]

    @entrypoint()
    def sync_entry(x: int) -> list:
        return [x, _off_loop(), VAR.get()]

    return {
        "parallel": sorted(final["seen"]),
        "streamed": chunks,
        "async_entrypoint": await async_entry.ainvoke(1),
        "sync_entrypoint": await sync_entry.ainvoke(2),
    }


def run() -> dict:
    return asyncio.run(_run())
