"""``updated_channels`` of the checkpoints LangGraph writes outside its loop's steps: an
``update_state`` (as a node, inferred, as ``__input__``), each superstep of a
``bulk_update_state``, a ``__copy__`` fork and the fork a run from a past checkpoint
saves hold None; the loop's own checkpoints list the channels their step updated. Read
back from the in-memory and the SQLite saver."""

import operator
import sqlite3
from typing import Annotated, Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import StateUpdate
from typing_extensions import TypedDict


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


def _held(saver: Any, config: Any) -> list[Any]:
    return [
        [t.metadata["source"], t.metadata["step"], t.checkpoint.get("updated_channels")]
        for t in reversed(list(saver.list(config)))
    ]


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
            history = list(graph.get_state_history(config))
            graph.update_state(history[-2].config, {"a": 100})
            graph.update_state(history[-2].config, None, as_node="__copy__")
            graph.invoke(None, history[-3].config)  # from a past checkpoint: a fork first
            graph.update_state(config, {"a": 9}, as_node="__input__")
            out[label] = [graph.get_state(config).values, _held(saver, config)]
    return out
