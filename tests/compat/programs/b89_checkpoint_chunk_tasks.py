"""The tasks of a ``checkpoints`` / ``debug`` checkpoint chunk as LangGraph shapes them when a
thread is continued: a task paused on an interrupt lists it as a plain dict (value, id,
response_schema), a finished sibling of that step also shows its result, a failed task
shows its error instead; then the chunks of the rest of the run."""

import contextlib
import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class S(TypedDict):
    items: Annotated[list[str], operator.add]


def _shape(value: Any) -> Any:
    """A chunk's tasks by their keys and value types (ids vary between runs)."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items() if k != "id"}
    if isinstance(value, list | tuple):
        return [_shape(v) for v in value]
    if isinstance(value, Exception):
        return {"exception": type(value).__name__, "args": list(value.args)}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return {"object": type(value).__name__}


def _checkpoint_tasks(graph: Any, inp: Any, config: Any) -> list[Any]:
    out = []
    for mode, chunk in graph.stream(inp, config, stream_mode=["checkpoints", "debug"]):
        if mode == "debug":
            if chunk["type"] != "checkpoint":
                continue
            chunk = chunk["payload"]
        out.append([mode, chunk["metadata"]["step"], _shape(chunk["tasks"])])
    return out


def run() -> dict[str, Any]:
    result: dict[str, Any] = {}

    def ask(s: S) -> dict[str, Any]:
        return {"items": [interrupt({"question": "ok?"})]}

    b = StateGraph(S)
    b.add_node("ask", ask)
    b.add_node("sibling", lambda s: {"items": ["sibling"]})
    b.add_edge(START, "ask")
    b.add_edge(START, "sibling")
    graph = b.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "paused"}}
    result["first"] = _checkpoint_tasks(graph, {"items": []}, config)
    result["resumed"] = _checkpoint_tasks(graph, Command(resume="yes"), config)

    fixed: list[bool] = []

    def flaky(s: S) -> dict[str, Any]:
        if not fixed:
            raise ValueError("down")
        return {"items": ["flaky"]}

    b = StateGraph(S)
    b.add_node("flaky", flaky)
    b.add_edge(START, "flaky")
    graph = b.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "failed"}}
    with contextlib.suppress(ValueError):
        _checkpoint_tasks(graph, {"items": []}, config)
    fixed.append(True)
    result["after_failure"] = _checkpoint_tasks(graph, None, config)
    return result
