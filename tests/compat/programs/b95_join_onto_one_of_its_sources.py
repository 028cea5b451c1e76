"""A waiting edge whose target is one of its own sources (``add_edge(["c", "a"], "c")``: c
runs again once it and a have both finished), which LangGraph compiles: c reached first by
a plain edge from another node, then by the join; and c reached by no edge at all, run only
when an edit writes as c. The values, each checkpoint's ``next``, the updates stream."""

import operator
from typing import Annotated, Any, TypedDict

from _plain import plain
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class State(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


def _node(name: str) -> Any:
    return lambda state: {"log": [name]}


def _history(graph: Any, config: Any) -> list[Any]:
    return [
        [s.metadata["step"], s.metadata["source"], list(s.next), plain(s.values)]
        for s in graph.get_state_history(config)
    ]


def _reached_by_an_edge() -> dict[str, Any]:
    b = StateGraph(State)
    for name in ("a", "b", "c"):
        b.add_node(name, _node(name))
    b.add_edge(START, "a")
    b.add_edge(START, "b")
    b.add_edge("b", "c")
    b.add_edge(["c", "a"], "c")
    graph = b.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "edge"}}
    updates = [plain(u) for u in graph.stream({"log": []}, config, stream_mode="updates")]
    return {"updates": updates, "history": _history(graph, config)}


def _reached_by_an_edit() -> dict[str, Any]:
    b = StateGraph(State)
    for name in ("a", "c"):
        b.add_node(name, _node(name))
    b.add_edge(START, "a")
    b.add_edge(["c", "a"], "c")
    graph = b.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "edit"}}
    first = plain(graph.invoke({"log": []}, config))
    graph.update_state(config, {"log": ["edit"]}, as_node="c")
    waiting = list(graph.get_state(config).next)
    after = plain(graph.invoke(None, config))
    return {"first": first, "waiting": waiting, "after": after, "history": _history(graph, config)}


def run() -> dict[str, Any]:
    return {
        "reached_by_an_edge": _reached_by_an_edge(),
        "reached_by_an_edit": _reached_by_an_edit(),
    }
