"""Bounded work: a host stops a cycle without an exit after its default superstep limit, naming
the cycle as a path; duplicate edges are merged at compile, and an edge and a branch (or two
branches) to the same target from one node are refused, so activations never multiply."""

from __future__ import annotations

from typing import Any

import pytest

from superstep_core import Graph, Host, LastValue, Reducer, compute_node
from superstep_core.errors import GraphValidationError, SuperstepLimitError
from superstep_core.host.sync import DEFAULT_MAX_SUPERSTEPS


def _count(state: Any, _: Any) -> dict[str, int]:
    return {"n": 1}


def _loop() -> Graph:
    return (
        Graph("loop", version="1")
        .with_channels(n=Reducer(lambda a, b: a + b, int))
        .add_node("a", compute_node(_count))
        .add_node("b", compute_node(_count))
        .start_at("a")
        .connect("a", "b")
        .connect("b", "a")
    )


def test_a_cycle_without_exit_stops_at_the_default_limit_naming_the_cycle() -> None:
    assert DEFAULT_MAX_SUPERSTEPS == 100_000
    with pytest.raises(
        SuperstepLimitError, match=r"going round the cycle (a -> b -> a|b -> a -> b)"
    ):
        Host(max_supersteps=50).run_graph(_loop().compile())


def test_a_host_is_bounded_unless_told_otherwise() -> None:
    assert Host().max_supersteps == DEFAULT_MAX_SUPERSTEPS
    assert Host(max_supersteps=None).max_supersteps is None


def test_the_execution_stays_consistent_at_its_last_superstep_after_the_limit() -> None:
    host = Host(max_supersteps=10)
    ex = host.start(_loop().compile())
    with pytest.raises(SuperstepLimitError):
        host.run(ex)
    assert ex.step == 10 and ex.values["n"] == 10


def test_duplicate_edges_are_merged_so_the_target_runs_once_per_completion() -> None:
    g = (
        Graph("dup", version="1")
        .with_channels(n=Reducer(lambda a, b: a + b, int))
        .add_node("a", compute_node(_count))
        .add_node("b", compute_node(_count))
        .start_at("a")
        .connect("a", "b")
        .connect("a", "b")
        .fork("a", ["b"])
        .end_at("b")
    )
    ex = Host().run_graph(g.compile())
    assert ex.values["n"] == 2


def test_an_edge_and_a_branch_to_the_same_target_are_refused() -> None:
    g = (
        Graph("both", version="1")
        .with_channels(x=LastValue())
        .add_node("a", compute_node(_count))
        .add_node("b", compute_node(_count))
        .start_at("a")
        .connect("a", "b")
        .branch("a", lambda s, o: "b", ["b"])
    )
    with pytest.raises(
        GraphValidationError, match="'a' reaches 'b' both by an edge and by a branch"
    ):
        g.compile()


def test_two_branches_of_one_node_to_the_same_target_are_refused() -> None:
    g = (
        Graph("two", version="1")
        .with_channels(x=LastValue())
        .add_node("a", compute_node(_count))
        .add_node("b", compute_node(_count))
        .start_at("a")
        .branch("a", lambda s, o: "b", ["b"])
        .branch("a", lambda s, o: "b", ["b"])
    )
    with pytest.raises(GraphValidationError, match="'a' reaches 'b' by two branches"):
        g.compile()
