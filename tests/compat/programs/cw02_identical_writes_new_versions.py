"""A channel written again with the value it holds (the same object, or an equal one) is
updated all the same in LangGraph (its channel's ``update`` returns True for any write):
it gets the step's new version and is among the step's ``updated_channels``; so is a
trigger an edit writes again. A `Topic` is updated when it gains values, or (not
accumulating) is written while it holds some: an accumulating one written only empty
lists keeps its version. Channel values, versions (their counters) and updated channels
of every checkpoint, from the in-memory and the SQLite saver."""

import operator
import sqlite3
from typing import Annotated, Any

from langgraph.channels import Topic
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import StateUpdate
from typing_extensions import TypedDict

_PRIVATE = "__superstep"  # the façade's own engine channel, not LangGraph's


class Kept(TypedDict, total=False):
    count: int
    items: list[int]
    total: Annotated[list[int], operator.add]
    seen: Annotated[list[str], Topic(str, accumulate=True)]


class State(Kept, total=False):
    log: Annotated[list[str], Topic(str)]


def _graph(saver: Any, log: bool) -> Any:
    # ``log`` (a topic that is not accumulating) is cleared by LangGraph in each step that
    # does not write it, edits too: every node writes it, the graph that is edited has none
    builder = StateGraph(State if log else Kept)
    lines = (lambda line: {"log": line}) if log else (lambda line: {})
    # the same objects back: an int, the list it was given, a log line again
    builder.add_node(
        "same",
        lambda s: {"count": s["count"], "items": s["items"], "seen": ["a"], **lines("x")},
    )
    # equal values, new objects; the log written the line it holds; nothing new seen
    builder.add_node(
        "equal",
        lambda s: {"count": int(s["count"]), "items": list(s["items"]), "seen": [], **lines("x")},
    )
    builder.add_node("more", lambda s: {"total": [], "seen": [], **lines("y")})
    builder.add_edge(START, "same")
    builder.add_edge("same", "equal")
    builder.add_edge("equal", "more")
    builder.add_edge("more", END)
    return builder.compile(checkpointer=saver)


def _counter(version: Any) -> int:
    # LangGraph's savers' versions: "<counter>.<random>" (its int counter for custom ones)
    return version if isinstance(version, int) else int(str(version).split(".")[0])


def _held(saver: Any, config: Any) -> list[Any]:
    rows = []
    for t in reversed(list(saver.list(config))):
        checkpoint = t.checkpoint
        rows.append(
            [
                t.metadata["source"],
                t.metadata["step"],
                {
                    k: repr(v)
                    for k, v in sorted(checkpoint["channel_values"].items())
                    if not k.startswith(_PRIVATE)
                },
                {
                    k: _counter(v)
                    for k, v in sorted(checkpoint["channel_versions"].items())
                    if not k.startswith(_PRIVATE)
                },
                checkpoint.get("updated_channels"),
            ]
        )
    return rows


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    with sqlite3.connect(":memory:", check_same_thread=False) as conn:
        for label, saver in (("memory", InMemorySaver()), ("sqlite", SqliteSaver(conn))):
            config = {"configurable": {"thread_id": "t"}}
            graph = _graph(saver, log=True)
            graph.invoke({"count": 1, "items": [1], "total": [2]}, config)
            out[f"{label} run"] = [graph.get_state(config).values, _held(saver, config)]
            config = {"configurable": {"thread_id": "edited"}}
            graph = _graph(saver, log=False)
            graph.invoke({"count": 1, "items": [1], "total": [2]}, config)
            values = graph.get_state(config).values
            # an edit writing the values held, then each node again (its edges' triggers)
            graph.update_state(config, {"count": values["count"], "items": values["items"]})
            graph.bulk_update_state(
                config,
                [
                    [StateUpdate({"count": 1}, "same")],
                    [StateUpdate({"items": values["items"]}, "same")],
                ],
            )
            graph.update_state(config, {"seen": []}, as_node="equal")
            graph.update_state(config, {"seen": ["b"], "total": []}, as_node="more")
            out[f"{label} edited"] = [graph.get_state(config).values, _held(saver, config)]
    return out
