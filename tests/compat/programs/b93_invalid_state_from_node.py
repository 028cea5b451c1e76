"""A node of a pydantic state writes a value the model refuses (node outputs are not
validated): the next step's tasks fail while LangGraph prepares them, a ValidationError
noted "Before task with name ... and path ..." (where it failed), before any of them runs;
a sibling of the bad writer has run, its writes kept. Sync, streamed and async; a field
validator that raises; a Send whose argument goes to the node as it is."""

import asyncio
import operator
from typing import Annotated, Any

from _plain import plain
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send
from pydantic import BaseModel, field_validator

calls: list[str] = []


class State(BaseModel):
    count: int = 0
    name: str = "n"
    log: Annotated[list[str], operator.add] = []

    @field_validator("name")
    @classmethod
    def _short(cls, value: str) -> str:
        if len(value) > 5:
            raise ValueError(f"name {value!r} is too long")
        return value


def _node(label: str, update: dict[str, Any] | None = None) -> Any:
    def act(state: State) -> dict[str, Any]:
        calls.append(label)
        return {"log": [label], **(update or {})}

    return act


def _graph(bad: dict[str, Any]) -> Any:
    b = StateGraph(State)
    b.add_node("writer", _node("writer", bad))
    b.add_node("sibling", _node("sibling"))
    b.add_node("reader", _node("reader"))
    b.add_node("other_reader", _node("other_reader"))
    b.add_edge(START, "writer")
    b.add_edge(START, "sibling")
    b.add_edge("writer", "reader")
    b.add_edge("writer", "other_reader")
    return b.compile(checkpointer=InMemorySaver())


def _failure(exc: Exception) -> dict[str, Any]:
    return {
        "type": type(exc).__name__,
        "first_line": str(exc).splitlines()[0],
        "notes": getattr(exc, "__notes__", []),
    }


def _sync(bad: dict[str, Any], thread: str) -> dict[str, Any]:
    calls.clear()
    graph = _graph(bad)
    config = {"configurable": {"thread_id": thread}}
    chunks: list[Any] = []
    try:
        for chunk in graph.stream({"count": 1}, config, stream_mode="updates"):
            chunks.append(plain(chunk))
        failure = None
    except Exception as exc:
        failure = _failure(exc)
    # the two parallel tasks' update chunks come in the order they finish (threads)
    chunks.sort(key=lambda chunk: sorted(chunk) if isinstance(chunk, dict) else [])
    return {"failure": failure, "chunks": chunks, "calls": sorted(calls)}


async def _async(bad: dict[str, Any]) -> dict[str, Any]:
    calls.clear()
    graph = _graph(bad)
    try:
        await graph.ainvoke({"count": 1}, {"configurable": {"thread_id": "async"}})
        failure = None
    except Exception as exc:
        failure = _failure(exc)
    return {"failure": failure, "calls": sorted(calls)}


def _send_argument() -> Any:
    seen: list[str] = []
    b = StateGraph(State)
    b.add_node("fan", _node("fan"))
    b.add_node("worker", lambda s: seen.append(type(s).__name__) or {"log": ["worker"]})
    b.add_edge(START, "fan")
    b.add_conditional_edges("fan", lambda s: [Send("worker", {"count": "x"})], ["worker"])
    result = b.compile().invoke({"count": 1})
    return {"result": plain(result), "worker_got": seen}


def run() -> dict[str, Any]:
    return {
        "wrong_type": _sync({"count": "many"}, "wrong_type"),
        "validator": _sync({"name": "far too long"}, "validator"),
        "async": asyncio.run(_async({"count": "many"})),
        "send": _send_argument(),
    }
