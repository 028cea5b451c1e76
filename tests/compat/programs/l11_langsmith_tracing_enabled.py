"""LangSmith tracing switched on without callbacks in the config (``tracing_context``, as
``LANGSMITH_TRACING=true`` does) traces a graph run: inside a node ``get_current_run_tree()``
is the node's run, its parent the graph's, sync and async; with tracing off there is none.
The LangSmith client is a mock (nothing is sent)."""

import asyncio
from typing import TypedDict
from unittest.mock import patch

import langsmith
from langgraph.graph import END, START, StateGraph
from langsmith import get_current_run_tree


class State(TypedDict, total=False):
    foo: int
    seen: object


def _seen() -> object:
    tree = get_current_run_tree()
    if tree is None:
        return None
    parent = getattr(tree, "parent_run", None)
    return [tree.name, None if parent is None else parent.name]


def node(state: State) -> State:
    return {"seen": _seen()}


async def anode(state: State) -> State:
    await asyncio.sleep(0)
    return {"seen": _seen()}


def _graph(action: object) -> object:
    builder = StateGraph(State)
    builder.add_node("node", action)  # type: ignore[call-overload]
    builder.add_edge(START, "node")
    builder.add_edge("node", END)
    return builder.compile()


async def run() -> dict:
    sync_graph, async_graph = _graph(node), _graph(anode)
    out: dict = {"off": sync_graph.invoke({"foo": 1})["seen"]}  # type: ignore[attr-defined]
    with (
        patch("langsmith.client.Client", spec=langsmith.Client) as client,
        patch("langchain_core.tracers.langchain.get_client") as get_client,
    ):
        get_client.return_value = client
        with langsmith.tracing_context(enabled=True):
            out["invoke"] = sync_graph.invoke({"foo": 1})["seen"]  # type: ignore[attr-defined]
            out["stream"] = [c for c in sync_graph.stream({"foo": 1})]  # type: ignore[attr-defined]
            result = await async_graph.ainvoke({"foo": 1})  # type: ignore[attr-defined]
            out["ainvoke"] = result["seen"]
    return out
