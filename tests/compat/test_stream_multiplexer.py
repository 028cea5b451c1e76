"""A façade stream through the engine's `StreamMultiplexer`: the same chunks, sequence
numbers for a second watcher, a reconnect that re-reads, termination with the run's error."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from superstep_compat.graph import END, START, StateGraph
from superstep_core.host import StreamMultiplexer, StreamTerminated


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def _graph(fail: bool = False):  # type: ignore[no-untyped-def]
    def a(state: State) -> State:
        return {"log": ["a"]}

    def b(state: State) -> State:
        if fail:
            raise ValueError("b broke")
        return {"log": ["b"]}

    g = StateGraph(State)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    return g.compile()


def test_chunks_are_the_same_with_a_multiplexer_and_it_holds_them_in_order() -> None:
    graph = _graph()
    plain = list(graph.stream({"log": []}, stream_mode=["updates", "values"]))
    mux = StreamMultiplexer()
    watcher = mux.subscribe(modes={"updates"})
    got = list(graph.stream({"log": []}, stream_mode=["updates", "values"], multiplexer=mux))
    assert got == plain
    assert mux.terminated
    seen = [(c.mode, c.data) for c in watcher]  # ends: the run terminated the stream
    assert seen == [("updates", {"a": {"log": ["a"]}}), ("updates", {"b": {"log": ["b"]}})]
    everything = mux.read_from(0)
    assert [c.seq for c in everything] == sorted(c.seq for c in everything)
    assert [(c.mode, c.data) for c in everything] == [tuple(chunk) for chunk in plain]
    # a consumer that saw the first two chunks reconnects and gets exactly the rest
    assert [c.seq for c in mux.read_from(everything[1].seq)] == [c.seq for c in everything[2:]]


def test_the_run_error_reaches_other_subscribers_and_pushes_stop() -> None:
    mux = StreamMultiplexer()
    watcher = mux.subscribe()
    with pytest.raises(ValueError, match="b broke"):
        list(_graph(fail=True).stream({"log": []}, stream_mode="updates", multiplexer=mux))
    with pytest.raises(ValueError, match="b broke"):
        list(watcher)
    with pytest.raises(StreamTerminated):
        mux.push_committed("updates", {})


def test_astream_feeds_the_multiplexer_too() -> None:
    async def main() -> list[object]:
        mux = StreamMultiplexer()
        out = [c async for c in _graph().astream({"log": []}, multiplexer=mux)]
        assert [c.data for c in mux.read_from(0)] == out
        return out

    assert asyncio.run(main()) == [{"a": {"log": ["a"]}}, {"b": {"log": ["b"]}}]


def test_a_stream_its_caller_abandons_ends_as_abandoned_not_as_finished() -> None:
    from superstep_core.host import StreamAbandoned

    mux = StreamMultiplexer()
    watcher = mux.subscribe()
    chunks = _graph().stream({"log": []}, stream_mode="updates", multiplexer=mux)
    assert next(chunks) == {"a": {"log": ["a"]}}
    chunks.close()  # the caller stops reading after the first chunk
    assert mux.terminated
    seen = []
    with pytest.raises(StreamAbandoned):
        for chunk in watcher:
            seen.append(chunk.data)
    assert seen == [{"a": {"log": ["a"]}}]


def test_read_from_a_negative_seq_is_a_usage_error() -> None:
    mux = StreamMultiplexer()
    assert mux.read_from(0) == []
    with pytest.raises(ValueError, match="after_seq must be >= 0"):
        mux.read_from(-1)
