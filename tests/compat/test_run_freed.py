"""A graph run that has ended is freed as soon as nothing refers to it: its collaborators'
links back into it are cut when it ends, so it leaves no reference cycle for the garbage
collector (about a hundred objects a run before, kept until a collection found them). (A run
that raises is kept by its error's traceback, which holds its frames, as any raising code's.)

The same holds for an `@entrypoint` run and its `@task` calls (the `EntrypointRun` and its
`GraphRun`, the call scopes, every call's future: about 11 objects a call before), and for
`@task` calls made from a graph node."""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable, Iterator
from typing import Any, TypedDict

import pytest

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.func import entrypoint, task
from superstep_compat.graph import START, StateGraph
from superstep_compat.types import Command, interrupt


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


# --- the functional API ------------------------------------------------------------------

_KEPT = ("GraphRun", "EntrypointRun", "RootScope", "CallScope", "SyncAsyncFuture")


def _alive() -> dict[str, int]:
    """How many objects of each of a run's kinds are alive."""
    counts = dict.fromkeys(_KEPT, 0)
    for o in gc.get_objects():
        name = type(o).__name__
        if name in counts:
            counts[name] += 1
    return counts


@task
def _inc(x: int) -> int:
    return x + 1


@task
async def _ainc(x: int) -> int:
    return x + 1


def _functional_cases() -> list[tuple[str, Callable[[], Any]]]:
    @entrypoint()
    def chain(n: int) -> int:
        x = 0
        for _ in range(n):
            x = _inc(x).result()
        return x

    @entrypoint()
    def parallel(n: int) -> list[int]:
        return [f.result() for f in [_inc(i) for i in range(n)]]

    @entrypoint(checkpointer=InMemorySaver())
    def asks(n: int) -> int:
        return int(interrupt("more?")) + _inc(n).result()

    @entrypoint()
    async def achain(n: int) -> int:
        x = 0
        for _ in range(n):
            x = await _ainc(x)
        return x

    def node(state: State) -> dict[str, int]:
        return {"x": _inc(state["x"]).result()}

    builder = StateGraph(State)
    builder.add_node("n", node)
    builder.add_edge(START, "n")
    graph = builder.compile()

    def interrupted_and_resumed() -> None:
        config = {"configurable": {"thread_id": "asks"}}
        asks.invoke(1, config)
        assert asks.invoke(Command(resume=5), config) == 7

    return [
        ("chain", lambda: chain.invoke(5)),
        ("parallel", lambda: parallel.invoke(5)),
        ("interrupted_and_resumed", interrupted_and_resumed),
        ("async_chain", lambda: asyncio.run(achain.ainvoke(5))),
        ("graph_node_calls", lambda: graph.invoke({"x": 1})),
    ]


@pytest.mark.parametrize("case", [name for name, _ in _functional_cases()])
def test_a_functional_run_and_its_calls_are_freed_when_it_ends(
    no_collector: None, case: str
) -> None:
    run = dict(_functional_cases())[case]
    run()  # first call: what a first call caches is not the run's
    before = _alive()
    run()
    assert _settled_alive(before) == before


def _settled_alive(expected: dict[str, int]) -> dict[str, int]:
    """`_alive`, once it is ``expected`` or after two seconds: a sync call's worker thread
    lets go of its job just after settling the call's future, which the run may outpace."""
    deadline = time.monotonic() + 2.0
    alive = _alive()
    while alive != expected and time.monotonic() < deadline:
        time.sleep(0.01)
        alive = _alive()
    return alive


def test_finished_calls_are_freed_while_the_function_runs(no_collector: None) -> None:
    """A long run keeps only its unfinished calls' futures (for its end, which waits for
    them): the finished ones are freed with their results as the function goes on, not all
    kept until it ends (young collections of the collector within one run)."""
    seen: list[int] = []

    @entrypoint()
    def chain(n: int) -> int:
        x = 0
        for _ in range(n):
            x = _inc(x).result()
        seen.append(sum(1 for o in gc.get_objects() if type(o).__name__ == "SyncAsyncFuture"))
        return x

    assert chain.invoke(200) == 200
    assert seen[0] < 100, f"{seen[0]} futures alive after 200 awaited calls"
