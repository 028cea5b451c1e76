"""A graph run that has ended is freed as soon as nothing refers to it: its collaborators'
links back into it are cut when it ends, so it leaves no reference cycle for the garbage
collector (about a hundred objects a run before, kept until a collection found them). (A run
that raises is kept by its error's traceback, which holds its frames, as any raising code's.)"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Iterator
from typing import Any, TypedDict

import pytest

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.graph import START, StateGraph
from superstep_compat.types import interrupt


class State(TypedDict):
    x: int


def _graph(last: Callable[[State], dict[str, int]]) -> Any:
    def step(state: State) -> dict[str, int]:
        return {"x": state["x"] + 1}

    builder = StateGraph(State)
    builder.add_node("a", step)
    builder.add_node("b", last)
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    return builder.compile(checkpointer=InMemorySaver())


def _asks(state: State) -> dict[str, int]:
    return {"x": interrupt("more?")}


def _runs_alive() -> int:
    return sum(1 for o in gc.get_objects() if type(o).__name__ == "GraphRun")


@pytest.fixture
def no_collector() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _sync_cases() -> list[tuple[str, Callable[[], Any]]]:
    plain = _graph(lambda s: {"x": s["x"] * 10})

    def completes() -> Any:
        return plain.invoke({"x": 1}, {"configurable": {"thread_id": "done"}})

    def interrupted() -> Any:
        return _graph(_asks).invoke({"x": 1}, {"configurable": {"thread_id": "paused"}})

    def stream_closed() -> None:
        stream = plain.stream({"x": 1}, {"configurable": {"thread_id": "closed"}})
        next(stream)
        stream.close()

    return [
        ("completes", completes),
        ("interrupted", interrupted),
        ("stream_closed", stream_closed),
    ]


@pytest.mark.parametrize("case", [name for name, _ in _sync_cases()])
def test_a_sync_run_is_freed_when_it_ends(no_collector: None, case: str) -> None:
    before = _runs_alive()
    dict(_sync_cases())[case]()
    assert _runs_alive() == before


def test_an_async_run_is_freed_when_it_ends(no_collector: None) -> None:
    graph = _graph(lambda s: {"x": s["x"] * 10})

    async def main() -> Any:
        return await graph.ainvoke({"x": 1}, {"configurable": {"thread_id": "async"}})

    before = _runs_alive()
    assert asyncio.run(main()) == {"x": 20}
    assert _runs_alive() == before
