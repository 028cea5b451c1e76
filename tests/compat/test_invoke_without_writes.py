"""What ``invoke`` returns when the run shows no state (LangGraph 1.2.24, probed): the last
``values`` chunk, or None when there was none, as when no channel was ever written."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.graph import END, START, StateGraph
from superstep_compat.types import Command, GraphOutput, interrupt


class State(TypedDict, total=False):
    b: int


def writes_nothing(state: State) -> None:
    return None


def writes_b(state: State) -> dict[str, int]:
    return {"b": 5}


def asks(state: State) -> None:
    interrupt("q?")


def _chain(*fns: Any, checkpointer: Any = None) -> Any:
    builder = StateGraph(State)
    previous = START
    for i, fn in enumerate(fns):
        builder.add_node(f"n{i}", fn)
        builder.add_edge(previous, f"n{i}")
        previous = f"n{i}"
    builder.add_edge(previous, END)
    return builder.compile(checkpointer=checkpointer)


def _thread(name: str) -> Any:
    return {"configurable": {"thread_id": name}}


def test_a_run_that_writes_no_channel_returns_none() -> None:
    graph = _chain(writes_nothing)
    assert graph.invoke({}) is None
    assert asyncio.run(graph.ainvoke({})) is None
    assert graph.invoke({}, version="v2") == GraphOutput(None, ())
    assert list(graph.stream({}, stream_mode="values")) == []
    assert graph.invoke({"b": 0}) == {"b": 0}  # the input wrote b


def test_on_a_thread_too_and_once_anything_is_written_the_state_is_returned() -> None:
    saver = InMemorySaver()
    graph = _chain(writes_nothing, checkpointer=saver)
    assert graph.invoke({}, _thread("t")) is None
    assert graph.invoke({}, _thread("t")) is None
    assert _chain(writes_nothing, writes_b).invoke({}) == {"b": 5}
    assert _chain(writes_b, writes_nothing).invoke({}) == {"b": 5}


def test_interrupts_without_values_and_the_resumed_run() -> None:
    graph = _chain(asks, writes_nothing, checkpointer=InMemorySaver())
    first = graph.invoke({}, _thread("a"))
    assert list(first) == ["__interrupt__"]
    assert graph.invoke(Command(resume="x"), _thread("a")) == {}  # shows the checkpoint's
    second = graph.invoke({}, _thread("v2"), version="v2")
    assert second.value == {} and len(second.interrupts) == 1
    assert graph.invoke({"b": 1}, _thread("b"))["b"] == 1
    assert graph.invoke(Command(resume="x"), _thread("b")) == {"b": 1}
    assert graph.invoke(None, _thread("b")) == {"b": 1}
