"""CLI test targets: LangGraph-style graphs whose node ``b`` fails until a file ``FIXED``
exists in the working directory; ``graph`` has no checkpointer, ``kept`` its own SqliteSaver
on ``own.db``. And an engine graph with the same flaky step."""

from __future__ import annotations

import operator
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, TypedDict

from superstep_core import Graph, Reducer, compute_node


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def _b(state: Any) -> dict[str, list[str]]:
    if not Path("FIXED").exists():
        raise RuntimeError("b is broken until FIXED exists")
    return {"log": ["b"]}


def _build(checkpointer: Any = None) -> Any:
    from superstep_compat.graph import START, StateGraph

    builder = StateGraph(State)
    builder.add_node("a", lambda s: {"log": ["a"]})
    builder.add_node("b", _b)
    builder.add_node("c", lambda s: {"log": ["c"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", "c")
    return builder.compile(checkpointer=checkpointer)


def _own_saver() -> Any:
    from superstep_compat.checkpoint.sqlite import SqliteSaver

    return SqliteSaver(sqlite3.connect("own.db", check_same_thread=False))


def default_input() -> dict[str, list[str]]:
    return {"log": []}


graph = _build()
kept = _build(_own_saver())


def _flaky(state: Mapping[str, Any], _: Any) -> dict[str, list[str]]:
    return _b(state)


engine = (
    Graph("flaky", version="1")
    .with_channels(log=Reducer(operator.add, list))
    .add_node("a", compute_node(lambda s, _: {"log": ["a"]}))
    .add_node("b", compute_node(_flaky))
    .add_node("c", compute_node(lambda s, _: {"log": ["c"]}))
    .start_at("a")
    .connect("a", "b")
    .connect("b", "c")
)
