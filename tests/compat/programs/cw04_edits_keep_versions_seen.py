"""The checkpoints LangGraph's edits write (``update_state`` as a node or inferred,
``bulk_update_state``, an edit of an older checkpoint, a ``__copy__`` fork) leave
``versions_seen`` as it was (an edit writes as its node under ``__interrupt__``, which has
no version) and hold no key that was never written (a reducer key's empty default has no
version, so it is not saved). Values, version counters and seen versions of every
checkpoint, from the in-memory and the SQLite saver."""

import operator
import sqlite3
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import StateUpdate
from typing_extensions import TypedDict

_PRIVATE = "__superstep"  # the façade's own engine channel, not LangGraph's


class State(TypedDict, total=False):
    a: int
    b: Annotated[list[int], operator.add]


def _graph(saver: Any) -> Any:
    builder = StateGraph(State)
    builder.add_node("first", lambda s: {"a": s.get("a", 0) + 1, "b": [1]})
    builder.add_node("second", lambda s: {"b": [2]})
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    builder.add_edge("second", END)
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
                {
                    node: {k: _counter(v) for k, v in sorted(seen.items())}
                    for node, seen in sorted(checkpoint["versions_seen"].items())
                },
            ]
        )
    return rows


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    with sqlite3.connect(":memory:", check_same_thread=False) as conn:
        for label, saver in (("memory", InMemorySaver()), ("sqlite", SqliteSaver(conn))):
            graph = _graph(saver)
            config = {"configurable": {"thread_id": "t"}}
            graph.invoke({"a": 1}, config)
            graph.update_state(config, {"a": 5})
            graph.update_state(config, {"a": 6}, as_node="first")
            graph.bulk_update_state(
                config,
                [[StateUpdate({"a": 7}, "first")], [StateUpdate({"b": [3]}, "second")]],
            )
            first_step = list(graph.get_state_history(config))[-2].config
            edited = graph.update_state(first_step, {"a": 100})
            copied = graph.update_state(first_step, None, as_node="__copy__")
            out[label] = [
                graph.get_state(config).values,
                graph.get_state(edited).values,
                graph.get_state(copied).values,
                _held(saver, config),
            ]
    return out
