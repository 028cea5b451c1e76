"""A cached node still announces its start: LangGraph announces a step's tasks (``tasks``
and ``debug`` modes) before it matches their cached writes, so a cache hit shows a start
and its update marked cached, but no result event; an @task of the functional API the
same."""

import operator
from typing import Annotated, TypedDict

from langgraph.cache.memory import InMemoryCache
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.types import CachePolicy


class S(TypedDict):
    x: int
    out: Annotated[list, operator.add]


def slow(s):
    return {"out": [s["x"] * 10]}


def after(s):
    return {"out": ["after"]}


@task(cache_policy=CachePolicy())
def square(n):
    return n * n


@entrypoint(cache=InMemoryCache())
def squares(n):
    return [square(i).result() for i in range(n)]


def shape(mode, chunk):
    if mode == "debug":
        return [mode, chunk["type"], chunk["payload"].get("name")]
    if mode == "tasks":
        return [mode, chunk["name"], sorted(chunk)]
    return [mode, chunk]


def run():
    g = StateGraph(S)
    g.add_node("slow", slow, cache_policy=CachePolicy())
    g.add_node("after", after)
    g.add_edge(START, "slow")
    g.add_edge("slow", "after")
    app = g.compile(cache=InMemoryCache())
    out = {"first": app.invoke({"x": 1})}
    modes = ["tasks", "updates", "debug"]
    out["cached"] = [shape(m, c) for m, c in app.stream({"x": 1}, stream_mode=modes)]
    saved = g.compile(cache=InMemoryCache(), checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    saved.invoke({"x": 2}, cfg)
    out["saved"] = [shape(m, c) for m, c in saved.stream({"x": 2}, cfg, stream_mode=["tasks"])]
    squares.invoke(2)
    chunks = squares.stream(3, stream_mode=["tasks", "updates"])
    out["functional"] = [shape(m, c) for m, c in chunks]
    return out
