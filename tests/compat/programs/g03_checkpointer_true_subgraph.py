"""A subgraph compiled with ``checkpointer=True`` keeps one history per thread under its
namespace without task ids: its state carries over between the parent's calls, its stream
namespace is the node name alone, and an interrupt inside it shows its state in the parent's
``get_state(subgraphs=True)``."""

import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt


class Inner(TypedDict):
    key: Annotated[str, operator.add]
    other: str


class Outer(TypedDict):
    key: str


def looped() -> dict:
    inner = StateGraph(Inner)
    inner.add_node("one", lambda s: {"key": "+1", "other": s["key"]})
    inner.add_node("two", lambda s: {"key": "+2"})
    inner.add_edge(START, "one")
    inner.add_edge("one", "two")
    g = StateGraph(Outer)
    g.add_node("inner", inner.compile(checkpointer=True))
    g.add_edge(START, "inner")
    g.add_conditional_edges("inner", lambda s: "inner" if s["key"].count("+2") < 2 else END)
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    chunks = [list(c) for c in app.stream({"key": ""}, cfg, subgraphs=True)]
    return {"chunks": chunks, "history": len(list(app.get_state_history(cfg)))}


def interrupted() -> dict:
    class Sub(TypedDict):
        bar: str
        baz: str

    sub = StateGraph(Sub)
    sub.add_node("ask", lambda s: {"baz": interrupt("baz?")})
    sub.add_node("join", lambda s: {"bar": s["bar"] + s["baz"]})
    sub.add_edge(START, "ask")
    sub.add_edge("ask", "join")
    subgraph = sub.compile(checkpointer=True)

    def call(s: Outer) -> dict:
        return {"key": subgraph.invoke({"bar": s["key"]})["bar"]}

    g = StateGraph(Outer)
    g.add_node("call", call)
    g.add_edge(START, "call")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    first = app.invoke({"key": "k"}, cfg)
    state = app.get_state(cfg, subgraphs=True)
    return {
        "first": first,
        "task_state": state.tasks[0].state,
        "resumed": app.invoke(Command(resume="!"), cfg),
    }


def run() -> dict:
    return {"looped": looped(), "interrupted": interrupted()}
