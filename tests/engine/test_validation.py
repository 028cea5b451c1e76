"""The definition DSL and `compile()` validation: every refusal names its culprit."""

from __future__ import annotations

import pytest

from superstep_core import (
    Activated,
    CompiledGraph,
    CompleteActivation,
    Event,
    Graph,
    GraphValidationError,
    LastValue,
    NodeContext,
    Reaction,
    RouteFailuresTo,
    UndeclaredChannelError,
)
from superstep_core.runtime import Execution

from .support import completes, drain, writes


def test_builder_methods_chain_and_compile_to_an_immutable_graph() -> None:
    g = (
        Graph("chain", version="7")
        .with_channels(x=LastValue())
        .add_node("a", writes(x=1))
        .add_node("b", completes())
        .start_at("a")
        .connect("a", "b")
        .end_at("b")
    )
    compiled = g.compile()
    assert isinstance(compiled, CompiledGraph)
    assert compiled.identity == "chain@7"
    assert compiled.successors == {"a": ("b",)}
    with pytest.raises(TypeError):
        compiled.nodes["c"] = compiled.nodes["a"]  # type: ignore[index]
    with pytest.raises(TypeError):
        compiled.channels["y"] = LastValue()  # type: ignore[index]


def test_compiled_graph_does_not_change_when_its_builder_does() -> None:
    g = Graph("g").add_node("a", completes()).start_at("a")
    compiled = g.compile()
    g.add_node("b", completes()).connect("a", "b")
    assert set(compiled.nodes) == {"a"}
    assert compiled.connects == ()


def test_edge_to_unknown_node_is_refused_naming_the_edge_and_the_node() -> None:
    g = Graph("g").add_node("parse", completes()).start_at("parse").connect("parse", "stor")
    with pytest.raises(GraphValidationError, match=r"edge 'parse' -> 'stor'.*unknown node 'stor'"):
        g.compile()


def test_unknown_node_error_suggests_close_names() -> None:
    g = Graph("g").add_node("store", completes()).add_node("parse", completes())
    g.start_at("parse").connect("parse", "stor")
    with pytest.raises(GraphValidationError, match=r"did you mean 'store'"):
        g.compile()


def test_branch_target_unknown_is_refused() -> None:
    g = Graph("g").add_node("a", completes()).start_at("a").branch("a", lambda s, o: "z", ["z"])
    with pytest.raises(GraphValidationError, match=r"branch 'a' -> 'z'.*unknown node 'z'"):
        g.compile()


def test_duplicate_node_is_refused_naming_it() -> None:
    g = Graph("g").add_node("parse", completes())
    with pytest.raises(GraphValidationError, match=r"node 'parse' is already defined"):
        g.add_node("parse", completes())


def test_duplicate_channel_is_refused_naming_it() -> None:
    g = Graph("g").with_channels(docs=LastValue())
    with pytest.raises(GraphValidationError, match=r"channel 'docs' is declared twice"):
        g.with_channels(docs=LastValue())


def test_channel_without_a_strategy_is_refused() -> None:
    with pytest.raises(GraphValidationError, match=r"channel 'docs': expected a Channel"):
        Graph("g").with_channels(docs=list)  # type: ignore[arg-type]


def test_graph_without_a_start_is_refused() -> None:
    g = Graph("nostart").add_node("a", completes())
    with pytest.raises(GraphValidationError, match=r"graph 'nostart' has no start"):
        g.compile()


def test_route_counts_as_a_start() -> None:
    g = Graph("g").add_node("watch", completes()).route("ping", None, "watch")
    assert g.compile().starts == ()


def test_unknown_start_is_refused_naming_it() -> None:
    g = Graph("g").add_node("a", completes()).start_at("b")
    with pytest.raises(GraphValidationError, match=r"start_at refers to unknown node 'b'"):
        g.compile()


def test_node_unreachable_from_every_start_and_route_is_refused_naming_it() -> None:
    g = Graph("g").add_node("a", completes()).add_node("orphan", completes()).start_at("a")
    with pytest.raises(GraphValidationError, match=r"'orphan' can never run: not reachable"):
        g.compile()


def test_node_reachable_through_may_activate_is_reachable() -> None:
    g = Graph("g").add_node("a", completes(), may_activate=["b"]).add_node("b", completes())
    g.start_at("a").compile()


def test_may_activate_naming_an_unknown_node_is_refused() -> None:
    g = Graph("g").add_node("a", completes(), may_activate=["ghost"]).start_at("a")
    with pytest.raises(
        GraphValidationError, match=r"node 'a' may_activate refers to unknown node 'ghost'"
    ):
        g.compile()


def test_join_whose_source_is_only_reachable_through_its_target_is_refused() -> None:
    # a -> j(a, b) -> t -> b: b can only run after the join fired, so All can never fill.
    g = (
        Graph("g")
        .add_node("a", completes())
        .add_node("b", completes())
        .add_node("t", completes())
        .start_at("a")
        .join_all("both", ["a", "b"], "t")
        .connect("t", "b")
    )
    with pytest.raises(
        GraphValidationError,
        match=r"join 'both' can never fire: source 'b' is only reachable through the join's "
        r"own target \(t -> b\)",
    ):
        g.compile()


def test_join_whose_target_is_one_of_its_sources_compiles_when_another_route_reaches_it() -> None:
    # b -> t and j(t, a) -> t: t's first run comes from b, then the join runs it again
    g = (
        Graph("g")
        .add_node("a", completes())
        .add_node("b", completes())
        .add_node("t", completes())
        .start_at("a")
        .start_at("b")
        .connect("b", "t")
        .join_all("again", ["t", "a"], "t")
    )
    g.compile()


def test_join_whose_target_is_one_of_its_sources_and_reached_by_it_alone_is_refused() -> None:
    g = (
        Graph("g")
        .add_node("a", completes())
        .add_node("t", completes())
        .start_at("a")
        .join_all("again", ["t", "a"], "t")
    )
    with pytest.raises(
        GraphValidationError,
        match=r"join 'again' can never fire: source 't' is only reachable through the join's "
        r"own target \(t -> t\)",
    ):
        g.compile()


def test_join_any_may_have_a_source_reachable_through_its_target() -> None:
    g = (
        Graph("g")
        .add_node("a", completes())
        .add_node("b", completes())
        .add_node("t", completes())
        .start_at("a")
        .join_any("first", ["a", "b"], "t")
        .connect("t", "b")
    )
    g.compile()


def test_join_at_least_more_than_its_sources_is_refused() -> None:
    g = (
        Graph("g")
        .add_node("a", completes())
        .add_node("b", completes())
        .add_node("t", completes())
        .start_at("a", "b")
        .join_at_least(3, "two_of", ["a", "b"], "t")
    )
    with pytest.raises(GraphValidationError, match=r"join 'two_of' waits for 3 of 2 sources"):
        g.compile()


def test_join_with_an_unknown_source_is_refused() -> None:
    g = Graph("g").add_node("a", completes()).add_node("t", completes()).start_at("a")
    g.join_all("j", ["a", "nope"], "t")
    with pytest.raises(
        GraphValidationError, match=r"join 'j' source refers to unknown node 'nope'"
    ):
        g.compile()


def test_join_failure_route_to_an_unknown_node_is_refused() -> None:
    g = Graph("g").add_node("a", completes()).add_node("t", completes()).start_at("a")
    g.join_all("j", ["a"], "t", on_failure=RouteFailuresTo("handler"))
    with pytest.raises(
        GraphValidationError, match=r"join 'j' failure route refers to unknown node 'handler'"
    ):
        g.compile()


def test_join_declared_twice_is_refused() -> None:
    g = Graph("g").add_node("a", completes()).add_node("t", completes())
    g.join_all("j", ["a"], "t")
    with pytest.raises(GraphValidationError, match=r"join 'j' is already defined"):
        g.join_any("j", ["a"], "t")


def test_channel_written_by_a_node_but_not_declared_is_refused_naming_both() -> None:
    g = Graph("g").with_channels(x=LastValue()).add_node("a", completes(), writes=["x", "y"])
    g.start_at("a")
    with pytest.raises(
        GraphValidationError, match=r"node 'a' writes channel 'y', which is not declared"
    ):
        g.compile()


def test_write_to_an_undeclared_channel_at_run_time_fails_naming_node_and_channel() -> None:
    g = Graph("g").with_channels(x=LastValue()).add_node("a", writes(y=1)).start_at("a")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.failure is not None
    assert ex.failure.error_type == UndeclaredChannelError.__name__
    assert "node 'a' wrote channel 'y', which is not declared" in ex.failure.message
    assert ex.values == {}


def test_write_outside_the_nodes_declared_writes_fails_the_activation() -> None:
    g = (
        Graph("g")
        .with_channels(x=LastValue(), y=LastValue())
        .add_node("a", writes(y=1), writes=["x"])
        .start_at("a")
    )
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.failure is not None
    assert "node 'a' wrote channel 'y'" in ex.failure.message


def test_end_node_with_outgoing_edges_is_refused() -> None:
    g = Graph("g").add_node("a", completes()).add_node("b", completes()).start_at("a")
    g.connect("a", "b").end_at("a")
    with pytest.raises(GraphValidationError, match=r"end node 'a' has outgoing edges to \['b'\]"):
        g.compile()


def test_non_callable_reducer_is_refused() -> None:
    with pytest.raises(GraphValidationError, match=r"node 'a': reducer 3 is not callable"):
        Graph("g").add_node("a", 3)  # type: ignore[arg-type]


def test_start_node_receives_the_execution_input_as_its_payload() -> None:
    seen: list[object] = []

    def start(ctx: NodeContext, event: Event) -> Reaction:
        assert isinstance(event, Activated)
        seen.append(event.payload)
        return Reaction(disposition=CompleteActivation())

    g = Graph("g").add_node("a", start).start_at("a").compile()
    drain(Execution.start(g, "run", payload={"n": 1}))
    assert seen == [{"n": 1}]
