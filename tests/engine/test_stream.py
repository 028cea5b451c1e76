"""The stream multiplexer: one totally ordered stream per execution. Committed chunks are never
dropped nor coalesced; transient chunks are coalesced or dropped under a byte cap; readers
reconnect from a seq, subscribe to a projection of modes, and drain a terminated stream."""

from __future__ import annotations

import asyncio
import itertools
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from superstep_core import Graph, LastValue
from superstep_core import host as host_pkg
from superstep_core.host import (
    CHUNK_OVERHEAD,
    AsyncHost,
    Host,
    StreamChunk,
    StreamEvictedError,
    StreamMultiplexer,
    StreamTerminated,
    Subscription,
    estimate_size,
)
from superstep_core.testing import VirtualClock

from .support import writes


def _cost(text: str) -> int:
    """What a str chunk costs in a transient buffer."""
    return len(text) + CHUNK_OVERHEAD


def _data(chunks: list[StreamChunk]) -> list[Any]:
    return [c.data for c in chunks]


def _join(thread: threading.Thread) -> None:
    # a safety net so a broken wake-up fails the test instead of hanging it
    thread.join(timeout=10)
    assert not thread.is_alive(), "the reader never woke up"


# --- ordering -----------------------------------------------------------------------------


def test_every_push_gets_the_next_seq_across_both_kinds() -> None:
    mux = StreamMultiplexer()
    seqs = [
        mux.push_committed("updates", {"a": 1}),
        mux.push_transient("messages", "tok"),
        mux.push_transient("custom", {"x": 1}, ns=("sub:1",)),
        mux.push_committed("values", {"a": 1}),
    ]
    assert seqs == [1, 2, 3, 4]
    assert mux.last_seq == 4
    chunks = mux.read_from(0)
    assert [c.seq for c in chunks] == [1, 2, 3, 4]
    assert [c.committed for c in chunks] == [True, False, False, True]
    assert chunks[2] == StreamChunk(3, ("sub:1",), "custom", {"x": 1}, False)


def test_a_chunk_is_immutable() -> None:
    chunk = StreamChunk(1, (), "updates", {}, True)
    with pytest.raises(AttributeError):
        chunk.seq = 2  # type: ignore[misc]


def test_push_event_takes_facade_tuples_and_routes_by_mode() -> None:
    mux = StreamMultiplexer()
    mux.push_event(((), "updates", {"node": {"a": 1}}))
    mux.push_event((("child:1",), "messages", ("tok", {"id": "m1"})))
    mux.push_event(((), "custom", 7))
    chunks = mux.read_from(0)
    assert [c.committed for c in chunks] == [True, False, False]
    assert [c.event for c in chunks] == [
        ((), "updates", {"node": {"a": 1}}),
        (("child:1",), "messages", ("tok", {"id": "m1"})),
        ((), "custom", 7),
    ]


# --- backpressure ---------------------------------------------------------------------------


def test_committed_chunks_are_never_dropped_under_transient_pressure() -> None:
    mux = StreamMultiplexer(transient_byte_cap=_cost("x") * 2)
    sub = mux.subscribe()
    for i in range(50):
        mux.push_transient("custom", "x")
        mux.push_committed("updates", i)
    committed = [c.data for c in sub.drain() if c.committed]
    assert committed == list(range(50))
    assert sub.dropped_chunks == 48


def test_pressure_drops_the_oldest_transient_chunks_and_counts_them() -> None:
    mux = StreamMultiplexer(transient_byte_cap=_cost("aa") * 2)
    sub = mux.subscribe()
    for text in ["aa", "bb", "cc", "dd", "ee"]:
        mux.push_transient("custom", text)
        assert sub.buffered_bytes <= mux.transient_byte_cap
    assert _data(sub.drain()) == ["dd", "ee"]
    assert (sub.dropped_chunks, sub.dropped_bytes) == (3, 3 * _cost("aa"))


def test_pressure_coalesces_adjacent_token_chunks_of_one_message() -> None:
    mux = StreamMultiplexer(transient_byte_cap=_cost("abc") + 1)
    sub = mux.subscribe()
    seqs = [mux.push_transient("messages", t, coalesce_key="m1") for t in "abc"]
    (chunk,) = sub.drain()
    assert chunk.data == "abc"
    assert chunk.seq == seqs[-1]  # the merged chunk carries the newest seq
    assert (sub.coalesced_chunks, sub.dropped_chunks) == (2, 0)


def test_no_coalescing_without_pressure() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()
    for t in "abc":
        mux.push_transient("messages", t, coalesce_key="m1")
    assert _data(sub.drain()) == ["a", "b", "c"]
    assert sub.coalesced_chunks == 0


def test_chunks_of_different_messages_are_not_coalesced() -> None:
    mux = StreamMultiplexer(transient_byte_cap=_cost("a") * 2)
    sub = mux.subscribe()
    for key, t in [("m1", "a"), ("m2", "b"), ("m1", "c")]:
        mux.push_transient("messages", t, coalesce_key=key)
    assert _data(sub.drain()) == ["b", "c"]
    assert (sub.coalesced_chunks, sub.dropped_chunks) == (0, 1)


def test_coalescing_never_moves_a_token_past_a_committed_chunk() -> None:
    mux = StreamMultiplexer(transient_byte_cap=_cost("a") + 1)
    sub = mux.subscribe()
    mux.push_transient("messages", "a", coalesce_key="m1")
    mux.push_committed("updates", "step")
    mux.push_transient("messages", "b", coalesce_key="m1")
    # "a" is dropped (oldest) rather than merged into "b", after the committed chunk
    assert _data(sub.drain()) == ["step", "b"]
    assert (sub.coalesced_chunks, sub.dropped_chunks) == (0, 1)


def test_an_injected_merge_and_size_coalesce_facade_message_tuples() -> None:
    def merge(old: tuple[str, dict[str, str]], new: tuple[str, dict[str, str]]) -> Any:
        return (old[0] + new[0], old[1])

    mux = StreamMultiplexer(transient_byte_cap=100, size_of=lambda d: len(d[0]), merge=merge)
    sub = mux.subscribe()
    for t in ["Hel", "lo"]:
        mux.push_transient("messages", (t, {"id": "m1"}), coalesce_key="m1")
    assert _data(sub.drain()) == [("Hello", {"id": "m1"})]


def test_a_transient_chunk_costing_more_than_the_cap_is_dropped_itself() -> None:
    mux = StreamMultiplexer(transient_byte_cap=_cost("ab"))
    sub = mux.subscribe()
    mux.push_transient("custom", "ab")
    seq = mux.push_transient("custom", "abc")
    assert seq == 2  # it still took its place in the stream
    assert sub.drain() == []
    assert (sub.dropped_chunks, sub.dropped_bytes) == (2, _cost("ab") + _cost("abc"))


def test_size_estimate_is_length_for_text_and_fixed_for_objects() -> None:
    assert estimate_size("héllo") == 5
    assert estimate_size(b"abc") == 3
    assert estimate_size(("ab", object())) == 2 + 64
    assert estimate_size({"k": "v" * 1000}) == 64


# --- reconnecting and retention ---------------------------------------------------------------


def test_a_reconnecting_reader_rereads_every_chunk_after_its_last_seq() -> None:
    mux = StreamMultiplexer()
    first = mux.subscribe()
    mux.push_committed("updates", 1)
    mux.push_transient("custom", "a")
    assert _data([next(first)]) == [1]
    first.close()  # the consumer disconnects after seq 1
    mux.push_committed("updates", 2)
    again = mux.subscribe(after_seq=first.last_seq)
    mux.push_committed("updates", 3)
    assert _data(again.drain()) == ["a", 2, 3]
    assert _data(mux.read_from(first.last_seq)) == ["a", 2, 3]


def test_reading_an_evicted_range_raises_naming_the_seqs() -> None:
    mux = StreamMultiplexer(name="run-1", max_retained_committed=2)
    for i in range(5):
        mux.push_committed("updates", i)
    assert _data(mux.read_from(3)) == [3, 4]
    with pytest.raises(StreamEvictedError) as info:
        mux.read_from(1)
    assert (info.value.requested, info.value.oldest_retained) == (1, 4)
    assert "run-1" in str(info.value)
    assert "after seq 1" in str(info.value)
    assert "before seq 4" in str(info.value)
    with pytest.raises(StreamEvictedError):
        mux.subscribe(after_seq=0)


def test_eviction_also_forgets_transient_chunks_older_than_the_evicted_commit() -> None:
    mux = StreamMultiplexer(max_retained_committed=1)
    mux.push_transient("custom", "old")
    mux.push_committed("updates", 1)
    mux.push_transient("custom", "mid")
    mux.push_committed("updates", 2)  # evicts seq 2
    assert _data(mux.read_from(2)) == ["mid", 2]


def test_the_replay_log_keeps_transient_chunks_under_the_cap() -> None:
    mux = StreamMultiplexer(transient_byte_cap=_cost("a") * 2)
    for t in "abcd":
        mux.push_transient("messages", t, coalesce_key="m1")
    # dropped, never coalesced: a reconnecting reader must not see a token twice
    assert _data(mux.read_from(0)) == ["c", "d"]


def test_reading_after_a_seq_not_yet_pushed_is_an_error() -> None:
    mux = StreamMultiplexer()
    mux.push_committed("updates", 1)
    with pytest.raises(ValueError, match="after_seq 5 is past the last seq 1"):
        mux.read_from(5)


# --- subscribers and projections ------------------------------------------------------------


def test_drain_takes_at_most_the_chunks_asked_for() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()
    for i in range(3):
        mux.push_committed("updates", i)
    assert _data(sub.drain(2)) == [0, 1]
    assert sub.last_seq == 2
    assert _data(sub.drain()) == [2]


def test_each_subscriber_has_its_own_cursor() -> None:
    mux = StreamMultiplexer()
    fast, slow = mux.subscribe(), mux.subscribe()
    mux.push_committed("updates", 1)
    assert _data(fast.drain()) == [1]
    mux.push_committed("updates", 2)
    assert _data(fast.drain()) == [2]
    assert _data(slow.drain()) == [1, 2]
    assert (fast.last_seq, slow.last_seq) == (2, 2)


def test_a_subscriber_sees_only_the_modes_it_asked_for() -> None:
    mux = StreamMultiplexer()
    updates = mux.subscribe({"updates"})
    tokens = mux.subscribe(["messages", "custom"])
    mux.push_committed("updates", "u")
    mux.push_transient("messages", "m")
    mux.push_committed("values", "v")
    mux.push_transient("custom", "c")
    assert _data(updates.drain()) == ["u"]
    assert _data(tokens.drain()) == ["m", "c"]
    assert _data(mux.read_from(0, modes={"values", "custom"})) == ["v", "c"]


def test_a_closed_subscription_stops_iterating_and_buffers_nothing() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()
    mux.push_committed("updates", 1)
    sub.close()
    mux.push_committed("updates", 2)
    assert list(sub) == []
    assert sub.drain() == []


# --- termination -------------------------------------------------------------------------------


def test_pushing_after_terminate_raises() -> None:
    mux = StreamMultiplexer(name="run-1")
    mux.push_committed("updates", 1)
    mux.terminate()
    with pytest.raises(StreamTerminated, match="'run-1' was terminated after seq 1"):
        mux.push_committed("updates", 2)
    with pytest.raises(StreamTerminated):
        mux.push_transient("messages", "tok")
    assert mux.last_seq == 1


def test_readers_drain_a_terminated_stream_then_stop() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()
    mux.push_committed("updates", 1)
    mux.push_transient("custom", "c")
    mux.terminate()
    assert _data(list(sub)) == [1, "c"]
    assert list(sub) == []


def test_a_termination_error_is_raised_once_after_draining() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()
    mux.push_committed("updates", 1)
    mux.terminate(KeyError("boom"))
    mux.terminate()  # only the first call counts
    assert next(sub).data == 1
    with pytest.raises(KeyError, match="boom"):
        next(sub)
    assert list(sub) == []


def test_terminate_wakes_a_blocked_reader() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()
    seen: list[StreamChunk] = []
    reader = threading.Thread(target=lambda: seen.extend(sub), daemon=True)
    reader.start()
    mux.push_committed("updates", 1)
    mux.terminate()
    _join(reader)
    assert _data(seen) == [1]


def test_close_wakes_a_blocked_reader() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()
    reader = threading.Thread(target=lambda: list(sub), daemon=True)
    reader.start()
    sub.close()
    _join(reader)


# --- threads and asyncio ----------------------------------------------------------------------


def test_worker_threads_push_while_a_consumer_reads() -> None:
    mux = StreamMultiplexer(transient_byte_cap=_cost("t") * 3)
    sub = mux.subscribe()
    per_thread = 200

    def produce(worker: int) -> None:
        for i in range(per_thread):
            mux.push_committed("updates", (worker, i))
            mux.push_transient("messages", "t", coalesce_key=worker)

    workers = [threading.Thread(target=produce, args=(w,)) for w in range(4)]
    for w in workers:
        w.start()
    seen: list[StreamChunk] = []
    reader = threading.Thread(target=lambda: seen.extend(sub), daemon=True)
    reader.start()
    for w in workers:
        w.join()
    mux.terminate()
    _join(reader)
    seqs = [c.seq for c in seen]
    assert seqs == sorted(set(seqs))
    committed = [c.data for c in seen if c.committed]
    assert len(committed) == 4 * per_thread
    for worker in range(4):
        assert [i for w, i in committed if w == worker] == list(range(per_thread))


async def test_an_async_consumer_awaits_chunks_pushed_from_a_thread() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()

    def produce() -> None:
        for i in range(20):
            mux.push_committed("updates", i)
        mux.terminate()

    producer = threading.Thread(target=produce)
    producer.start()
    seen = [chunk.data async for chunk in sub]
    producer.join()
    assert seen == list(range(20))


async def test_a_waiting_async_consumer_is_woken_by_a_push_from_a_thread() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()
    waiting = asyncio.ensure_future(sub.__anext__())
    await asyncio.sleep(0)  # one loop turn: the consumer runs until it waits for a chunk
    assert not waiting.done()
    producer = threading.Thread(target=mux.push_committed, args=("updates", 1))
    producer.start()
    producer.join()
    # the timeout is a safety net: a lost wake-up fails instead of hanging
    assert (await asyncio.wait_for(waiting, timeout=10)).data == 1


async def test_an_async_consumer_gets_the_termination_error() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()
    mux.push_committed("updates", 1)
    terminator = threading.Thread(target=mux.terminate, args=(ValueError("model down"),))
    terminator.start()
    seen: list[Any] = []
    with pytest.raises(ValueError, match="model down"):
        async for chunk in sub:
            seen.append(chunk.data)
    terminator.join()
    assert seen == [1]


async def test_a_cancelled_async_wait_leaves_the_subscription_usable() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()
    waiting = asyncio.ensure_future(sub.__anext__())
    await asyncio.sleep(0)  # let it register its waiter
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    mux.push_committed("updates", 1)
    assert (await sub.__anext__()).data == 1


# --- property: committed chunks are exactly what was pushed ------------------------------------

_ops = st.lists(
    st.one_of(
        st.tuples(st.just("commit"), st.integers()),
        st.tuples(st.just("token"), st.text(max_size=12), st.sampled_from([None, "m1", "m2"])),
        st.tuples(st.just("read"), st.integers(min_value=0, max_value=3)),
    ),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(ops=_ops, cap=st.integers(min_value=0, max_value=300))
def test_a_slow_consumer_sees_exactly_the_committed_chunks_in_order(
    ops: list[tuple[Any, ...]], cap: int
) -> None:
    mux = StreamMultiplexer(transient_byte_cap=cap)
    sub = mux.subscribe()
    pushed: list[int] = []
    seen: list[StreamChunk] = []
    for op in ops:
        if op[0] == "commit":
            mux.push_committed("updates", op[1])
            pushed.append(op[1])
        elif op[0] == "token":
            mux.push_transient("messages", op[1], coalesce_key=op[2])
        else:
            seen.extend(sub.drain(op[1]))  # a slow consumer: a few chunks at a time
        assert sub.buffered_bytes <= cap
    mux.terminate()
    seen.extend(sub)
    assert [c.data for c in seen if c.committed] == pushed
    seqs = [c.seq for c in seen]
    assert all(a < b for a, b in itertools.pairwise(seqs))


# --- hosts ---------------------------------------------------------------------------------------


def _two_steps() -> Any:
    g = (
        Graph("g")
        .with_channels(a=LastValue(), b=LastValue())
        .add_node("one", writes(a=1))
        .add_node("two", writes(b=2))
        .start_at("one")
        .connect("one", "two")
    )
    return g.compile()


_EXPECTED_UPDATES = [{"step": 1, "written": {"a": 1}}, {"step": 2, "written": {"b": 2}}]


def test_a_host_pushes_one_committed_update_per_committed_superstep() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()
    with Host(clock=VirtualClock()) as h:
        ex = h.run_graph(_two_steps(), stream=mux)
    chunks = sub.drain()
    assert [(c.mode, c.ns, c.committed) for c in chunks] == [("updates", (), True)] * ex.step
    assert _data(chunks) == _EXPECTED_UPDATES
    assert not mux.terminated  # the execution may be driven again


def test_an_async_host_pushes_the_same_chunks() -> None:
    mux = StreamMultiplexer()
    sub = mux.subscribe()
    asyncio.run(AsyncHost(clock=VirtualClock()).run_graph(_two_steps(), stream=mux))
    assert _data(sub.drain()) == _EXPECTED_UPDATES


def test_the_stream_names_are_exported_from_the_host_package() -> None:
    for name in [
        "StreamChunk",
        "StreamEvictedError",
        "StreamMultiplexer",
        "StreamTerminated",
        "Subscription",
        "estimate_size",
    ]:
        assert name in host_pkg.__all__
        assert getattr(host_pkg, name).__module__ == "superstep_core.host.stream"
    assert isinstance(StreamMultiplexer().subscribe(), Subscription)
