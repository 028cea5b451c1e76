"""LangGraph's ``__pregel_tasks`` channel (the step's `Send`s) stays in every checkpoint once
it was written: consumed, its value is an empty list under the version it got then (not an
updated channel), and it keeps that version until Sends are written again. What the saver
holds of each checkpoint (values of the graph's channels, versions' order, updated
channels), with the in-memory and the SQLite saver, across two runs on one thread."""

import operator
import sqlite3
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send
from typing_extensions import TypedDict

_PRIVATE = "__superstep"  # the façade's own engine channel, not LangGraph's


class State(TypedDict, total=False):
    x: Annotated[list[int], operator.add]


def _graph(saver: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("w", lambda s: {"x": s["x"]})
    builder.add_node("after", lambda s: {"x": [9]})
    builder.add_conditional_edges(
        START, lambda s: [Send("w", {"x": [len(s["x"]) + 1]}), Send("w", {"x": [0]})]
    )
    builder.add_edge("w", "after")
    builder.add_edge("after", END)
    return builder.compile(checkpointer=saver)


def _held(saver: Any, config: Any) -> list[Any]:
    rows = []
    for t in reversed(list(saver.list(config))):
        checkpoint = t.checkpoint
        values = checkpoint["channel_values"]
        versions = checkpoint["channel_versions"]
        ordered = sorted((v, k) for k, v in versions.items() if not k.startswith(_PRIVATE))
        rank = {k: i for i, (_, k) in enumerate(ordered)}
        rows.append(
            [
                t.metadata["step"],
                {k: repr(v) for k, v in sorted(values.items()) if not k.startswith(_PRIVATE)},
                {k: rank[k] for k in sorted(rank)},
                sorted(checkpoint.get("updated_channels") or []),
            ]
        )
    return rows


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    with sqlite3.connect(":memory:", check_same_thread=False) as conn:
        for label, saver in (("memory", InMemorySaver()), ("sqlite", SqliteSaver(conn))):
            graph = _graph(saver)
            config = {"configurable": {"thread_id": "t"}}
            graph.invoke({"x": []}, config)
            result = graph.invoke({"x": [5]}, config)
            out[label] = [result, _held(saver, config)]
    return out
