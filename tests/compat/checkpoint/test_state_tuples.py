"""A tuple in state comes back a list after a checkpoint round trip, as with LangGraph's
savers (its serializer writes tuples as msgpack arrays); inside the run that wrote it, it is
still the tuple. Dict keys and set elements keep their tuples (they must stay hashable)."""

from __future__ import annotations

import sqlite3
from typing import Any, TypedDict

import pytest

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.checkpoint.sqlite import SqliteSaver
from superstep_compat.graph import END, START, StateGraph
from superstep_core.persistence import Codec


class State(TypedDict, total=False):
    t: Any
    seen: str


def node(state: State) -> dict[str, Any]:
    if "t" in state:
        t = state["t"]
        return {"seen": f"{type(t).__name__}/{type(t[2]).__name__}"}
    return {"t": (1, 2, (3, 4))}


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_tuple_in_state_is_a_list_once_read_back_from_a_checkpoint(kind: str) -> None:
    if kind == "memory":
        saver: Any = InMemorySaver()
    else:
        saver = SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))
    builder = StateGraph(State)
    builder.add_node("n", node)
    builder.add_edge(START, "n")
    builder.add_edge("n", END)
    graph = builder.compile(checkpointer=saver)
    config: Any = {"configurable": {"thread_id": "1"}}
    assert graph.invoke({}, config) == {"t": (1, 2, (3, 4))}  # the run's own value
    assert graph.get_state(config).values == {"t": [1, 2, [3, 4]]}
    assert graph.invoke({}, config) == {"t": [1, 2, [3, 4]], "seen": "list/list"}


def test_the_codec_variant_keeps_tuples_where_they_must_stay_hashable() -> None:
    codec = Codec().with_tuples_as_lists()
    value = {"a": (1, (2,)), "k": {(1, 2): (3,)}, "s": {(1, 2)}}
    assert codec.loads(codec.dumps(value)) == {"a": [1, [2]], "k": {(1, 2): [3]}, "s": {(1, 2)}}
    assert Codec().loads(Codec().dumps(value)) == value  # the engine's codec keeps them
