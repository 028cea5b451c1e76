"""Channels and their combining strategies, observed through supersteps."""

from __future__ import annotations

import operator
from typing import Any

import pytest

from superstep_core import (
    MISSING,
    Append,
    Barrier,
    ChannelConflictError,
    Ephemeral,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    Reducer,
)
from superstep_core.node import Event
from superstep_core.runtime import Execution

from .support import completes, drain, writes


def _fan(channels: dict[str, Any], **nodes: Any) -> Execution:
    """Start every node of ``nodes`` in superstep 1 and run to quiescence."""
    g = Graph("g").with_channels(channels)
    for key, fn in nodes.items():
        g.add_node(key, fn)
    return drain(Execution.start(g.start_at(*nodes).compile(), "run"))


def test_last_value_keeps_the_single_write() -> None:
    ex = _fan({"x": LastValue()}, a=writes(x=1))
    assert ex.values == {"x": 1}


def test_last_value_written_twice_in_one_superstep_fails_naming_channel_and_both_writers() -> None:
    ex = _fan({"x": LastValue()}, a=writes(x=1), b=writes(x=2))
    assert ex.failure is not None
    assert ex.failure.error_type == "ChannelConflictError"
    assert ex.failure.node == "a"  # a writer node, never the channel's name
    assert "channel 'x' received 2 writes in one superstep (from a:1, b:2)" in ex.failure.message
    assert ex.values == {}


def test_channel_conflict_error_carries_channel_and_writers() -> None:
    with pytest.raises(ChannelConflictError) as info:
        LastValue().combine("x", MISSING, [("a:1", 1), ("b:2", 2)])
    assert info.value.channel == "x"
    assert info.value.writers == ("a:1", "b:2")


def test_last_value_may_be_written_again_in_a_later_superstep() -> None:
    g = (
        Graph("g")
        .with_channels(x=LastValue())
        .add_node("a", writes(x=1))
        .add_node("b", writes(x=2))
        .start_at("a")
        .connect("a", "b")
    )
    assert drain(Execution.start(g.compile(), "run")).values == {"x": 2}


def test_reducer_folds_every_write_of_a_superstep_into_the_value() -> None:
    ex = _fan({"n": Reducer(operator.add, int)}, a=writes(n=1), b=writes(n=10), c=writes(n=100))
    assert ex.values == {"n": 111}


def test_reducer_without_initial_takes_the_first_write_as_is() -> None:
    ex = _fan({"s": Reducer(operator.add)}, a=writes(s="x"), b=writes(s="y"))
    assert ex.values == {"s": "xy"}


def test_reducer_with_initial_factory_has_a_value_before_any_write() -> None:
    g = Graph("g").with_channels(n=Reducer(operator.add, int)).add_node("a", completes())
    ex = Execution.start(g.start_at("a").compile(), "run")
    assert ex.values == {"n": 0}


def test_reducer_that_raises_fails_the_superstep_and_commits_nothing() -> None:
    def bad(current: int, item: int) -> int:
        raise ValueError("cannot add")

    ex = _fan({"n": Reducer(bad, int), "x": LastValue()}, a=writes(n=1, x=1))
    assert ex.failure is not None
    assert "reducer of channel 'n' failed on the write from a:1: ValueError: cannot add" in (
        ex.failure.message
    )
    assert ex.values == {"n": 0}


def test_append_orders_items_by_canonical_writer_order_not_by_node_definition() -> None:
    # defined z, m, a; canonical order is node key: a, m, z
    ex = _fan({"log": Append()}, z=writes(log="z"), m=writes(log="m"), a=writes(log="a"))
    assert ex.values == {"log": ("a", "m", "z")}


def test_append_takes_several_items_from_one_reaction_in_order() -> None:
    def many(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(updates=[("log", 1), ("log", 2), ("log", 3)])

    ex = _fan({"log": Append()}, a=many)
    assert ex.values == {"log": (1, 2, 3)}


def test_append_grows_across_supersteps() -> None:
    g = (
        Graph("g")
        .with_channels(log=Append())
        .add_node("a", writes(log="first"))
        .add_node("b", writes(log="second"))
        .start_at("a")
        .connect("a", "b")
    )
    assert drain(Execution.start(g.compile(), "run")).values == {"log": ("first", "second")}


def test_ephemeral_is_visible_in_the_next_superstep_then_cleared() -> None:
    seen: list[object] = []

    def read(ctx: NodeContext, event: Event) -> Reaction:
        seen.append(ctx.state.get("flash", MISSING))
        return Reaction()

    g = (
        Graph("g")
        .with_channels(flash=Ephemeral())
        .add_node("a", writes(flash="hi"))
        .add_node("b", read)
        .add_node("c", read)
        .start_at("a")
        .connect("a", "b")
        .connect("b", "c")
    )
    ex = Execution.start(g.compile(), "run")
    ex.run_superstep()
    assert ex.values == {"flash": "hi"}
    ex.run_superstep()  # b reads it; nobody writes it
    assert "flash" not in ex.values
    drain(ex)
    assert seen == ["hi", MISSING]


def test_expire_ephemeral_clears_a_restored_value_at_the_next_superstep() -> None:
    """A host that put back an ephemeral value its snapshot did not record as written (an
    interrupted step's checkpoint) has the next superstep clear it, as one written last."""
    seen: list[object] = []

    def read(ctx: NodeContext, event: Event) -> Reaction:
        seen.append(ctx.state.get("flash", MISSING))
        return Reaction()

    g = (
        Graph("g")
        .with_channels(flash=Ephemeral(), kept=LastValue())
        .add_node("b", read)
        .add_node("c", read)
        .start_at("b")
        .connect("b", "c")
    )
    compiled = g.compile()
    snap = Execution.start(compiled, "run").snapshot()
    kept = Execution.restore(compiled, snap)
    kept.values = {**kept.values, "flash": "hi", "kept": 1}
    drain(kept)
    assert seen == ["hi", "hi"]  # never recorded as written: never cleared
    expired = Execution.restore(compiled, snap)
    expired.values = {**expired.values, "flash": "hi", "kept": 1}
    expired.expire_ephemeral()
    seen.clear()
    drain(expired)
    assert seen == ["hi", MISSING]
    assert expired.values == {"kept": 1}


class _Untracked(LastValue):
    untracked = True


def test_untracked_channel_is_kept_while_running_and_left_out_of_snapshots() -> None:
    seen: list[Any] = []

    def read(ctx: NodeContext, event: Event) -> Reaction:
        seen.append(ctx.state.get("count", MISSING))
        return Reaction()

    g = (
        Graph("g")
        .with_channels(count=_Untracked(), kept=LastValue())
        .add_node("a", writes(count=1, kept=2))
        .add_node("b", read)
        .start_at("a")
        .connect("a", "b")
    )
    compiled = g.compile()
    ex = drain(Execution.start(compiled, "run"))
    assert seen == [1]
    assert ex.values == {"count": 1, "kept": 2}
    snap = ex.snapshot()
    assert snap.values == {"kept": 2}
    assert Execution.restore(compiled, snap).values == {"kept": 2}


def test_ephemeral_with_several_writers_keeps_the_last_in_canonical_order() -> None:
    ex = _fan({"flash": Ephemeral()}, b=writes(flash="b"), a=writes(flash="a"))
    # canonical writer order is a, b: the last write is b's
    assert ex.values == {"flash": "b"}


def test_single_writer_ephemeral_refuses_two_writers() -> None:
    ex = _fan({"flash": Ephemeral(single_writer=True)}, a=writes(flash=1), b=writes(flash=2))
    assert ex.failure is not None
    assert "channel 'flash'" in ex.failure.message


def test_barrier_collects_names_and_is_complete_when_all_arrived() -> None:
    strategy = Barrier(frozenset({"x", "y"}))
    ex = _fan({"seen": strategy}, a=writes(seen="x"))
    assert ex.values == {"seen": frozenset({"x"})}
    assert not strategy.complete(ex.values["seen"])
    ex = _fan({"seen": strategy}, a=writes(seen="x"), b=writes(seen="y"))
    assert strategy.complete(ex.values["seen"])


def test_barrier_refuses_a_name_it_does_not_expect() -> None:
    ex = _fan({"seen": Barrier(frozenset({"x"}))}, a=writes(seen="q"))
    assert ex.failure is not None
    assert "channel 'seen': a:1 wrote 'q'" in ex.failure.message


def test_execution_updates_are_committed_through_the_strategies_as_superstep_zero() -> None:
    g = Graph("g").with_channels(n=Reducer(operator.add, int), log=Append())
    g.add_node("a", completes()).start_at("a")
    ex = Execution.start(g.compile(), "run", updates={"n": 5, "log": "seed"})
    assert ex.values == {"n": 5, "log": ("seed",)}
    assert ex.step == 0
