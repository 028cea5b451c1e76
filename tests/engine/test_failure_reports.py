"""Bad routers and bad reducers: each fails the execution (resumably, nothing escapes the
host) or the graph definition with an error naming the node, the branch or channel, the
writers, and the bad value."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import pytest

from superstep_core import (
    Channel,
    Graph,
    GraphValidationError,
    Host,
    LastValue,
    Reducer,
    Status,
    compute_node,
)
from superstep_core.channel import Write
from superstep_core.runtime import Execution

from .support import completes, drain, writes

# --- branch routers ---------------------------------------------------------------------------


def _routed(router: Any) -> Graph:
    return (
        Graph("g")
        .with_channels(x=LastValue())
        .add_node("a", compute_node(lambda state, _: {"x": 1}))
        .add_node("b", compute_node(lambda state, _: None))
        .start_at("a")
        .branch("a", router, ["b"])
    )


def test_a_router_returning_a_non_key_fails_the_execution_naming_node_branch_and_value() -> None:
    def pick(state: Any, output: Any) -> Any:
        return 42

    with Host() as host:
        ex = host.run_graph(_routed(pick).compile())
    assert ex.status is Status.FAILED
    assert ex.failure is not None
    assert (ex.failure.node, ex.failure.activation_id) == ("a", "a:1")
    assert ex.failure.error_type == "BranchError"
    assert "branch from 'a' (router pick) returned 42 (int)" in ex.failure.message
    assert "declared targets ['b']" in ex.failure.message
    assert ex.values == {"x": 1}  # the source's own superstep stands


@pytest.mark.parametrize("chosen", [{"b"}, 0, False, b"b"])
def test_a_router_must_return_a_key_a_list_of_keys_or_none(chosen: Any) -> None:
    ex = drain(Execution.start(_routed(lambda state, output: chosen).compile(), "run"))
    assert ex.failure is not None
    assert ex.failure.error_type == "BranchError"
    assert f"returned {chosen!r} ({type(chosen).__name__})" in ex.failure.message


# --- reducers ------------------------------------------------------------------------------


def test_a_reducer_that_is_not_callable_is_refused_when_declared_naming_the_channel() -> None:
    with pytest.raises(GraphValidationError, match=r"channel 'total': Reducer needs a function"):
        Graph("g").with_channels(total=Reducer(5))  # type: ignore[arg-type]


def test_a_reducer_whose_initial_value_is_not_a_factory_is_refused_naming_the_channel() -> None:
    with pytest.raises(GraphValidationError, match=r"channel 'log': the Reducer's initial"):
        Graph("g").with_channels(log=Reducer(operator.add, []))  # type: ignore[arg-type]


def test_a_reducer_that_raises_names_the_channel_the_failing_write_and_every_writer() -> None:
    g = (
        Graph("g")
        .with_channels(total=Reducer(operator.add, int))
        .add_node("adds_one", writes(total=1))
        .add_node("adds_text", writes(total="ten"))
        .start_at("adds_one", "adds_text")
    )
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.failure is not None
    assert (ex.failure.node, ex.failure.activation_id) == ("adds_text", "adds_text:2")
    assert ex.failure.error_type == "ReducerError"
    assert ex.failure.message.startswith(
        "reducer of channel 'total' failed on the write from adds_text:2: TypeError: "
    )
    assert "(writers this superstep: adds_one:1, adds_text:2)" in ex.failure.message
    assert isinstance(ex.last_error, TypeError)  # the reducer's own exception
    assert ex.values == {"total": 0} and ex.step == 0  # nothing committed


class _Picky(Channel):
    """A custom strategy that refuses odd values."""

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        if any(v % 2 for _, v in writes):
            raise ValueError("odd value")
        return writes[-1][1]


def test_any_strategy_that_raises_is_reported_naming_its_channel_and_writers() -> None:
    g = Graph("g").with_channels(even=_Picky()).add_node("w", writes(even=3)).start_at("w")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.failure is not None
    assert (ex.failure.node, ex.failure.error_type) == ("w", "ReducerError")
    assert "reducer of channel 'even' failed: ValueError: odd value" in ex.failure.message
    assert "(writers this superstep: w:1)" in ex.failure.message


def test_an_edit_whose_reducer_raises_raises_its_own_error_noting_the_channel() -> None:
    g = Graph("g").with_channels(total=Reducer(operator.add, int)).add_node("a", completes())
    ex = Execution.start(g.start_at("a").compile(), "run")
    with pytest.raises(TypeError) as raised:
        ex.edit({"total": "ten"}, writer="human:bob")
    assert any("channel 'total'" in note for note in raised.value.__notes__)
    assert ex.values == {"total": 0}
