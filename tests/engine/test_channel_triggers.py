"""Channel triggers: a node subscribed to channels runs in the superstep after one of them
was written (by a node, by the execution's input, or by an edit), once per superstep."""

from __future__ import annotations

import pytest

from superstep_core import (
    MISSING,
    CompleteActivation,
    Event,
    Graph,
    GraphValidationError,
    LastValue,
    NodeContext,
    Reaction,
    Reducer,
)
from superstep_core.runtime import Execution

from .support import drain


def add_one(source: str, target: str) -> object:
    """A node that writes its source channel's value plus one to ``target``."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(updates={target: ctx.state[source] + 1}, disposition=CompleteActivation())

    return react


def _chain() -> Graph:
    g = Graph("chain").with_channels(a=LastValue(), b=LastValue(), c=LastValue())
    g.add_node("one", add_one("a", "b"), triggers=["a"])  # type: ignore[arg-type]
    g.add_node("two", add_one("b", "c"), triggers=["b"])  # type: ignore[arg-type]
    return g


def test_input_written_to_a_channel_activates_its_subscriber_then_the_chain_follows() -> None:
    ex = drain(Execution.start(_chain().compile(), "run", updates={"a": 1}))
    assert ex.values == {"a": 1, "b": 2, "c": 3}
    assert ex.step == 2  # one superstep per node of the chain


def test_a_node_subscribed_to_two_channels_written_together_runs_once() -> None:
    runs: list[int] = []

    def count(ctx: NodeContext, event: Event) -> Reaction:
        runs.append(ctx.step)
        return Reaction(updates={"n": 1}, disposition=CompleteActivation())

    g = Graph("g").with_channels(a=LastValue(), b=LastValue(), n=Reducer(lambda x, y: x + y))
    g.add_node("count", count, triggers=["a", "b"])
    ex = drain(Execution.start(g.compile(), "run", updates={"a": 1, "b": 2}))
    assert runs == [1]
    assert ex.values["n"] == 1


def test_a_node_writing_a_channel_it_subscribes_to_runs_again_until_it_stops_writing() -> None:
    def countdown(ctx: NodeContext, event: Event) -> Reaction:
        left = ctx.state["left"]
        updates = {"left": left - 1} if left > 0 else {}
        return Reaction(updates=updates, disposition=CompleteActivation())

    g = Graph("g").with_channels(left=LastValue()).add_node("tick", countdown, triggers=["left"])
    ex = drain(Execution.start(g.compile(), "run", updates={"left": 3}))
    assert ex.values == {"left": 0}
    assert ex.step == 4  # 3 -> 2 -> 1 -> 0, then a run that writes nothing


def test_an_edit_activates_the_subscribers_of_the_channels_it_wrote() -> None:
    ex = drain(Execution.start(_chain().compile(), "run", updates={"a": 1}))
    ex.edit({"b": 10}, writer="human")
    assert [aid.split(":")[0] for aid, _ in ex.queue] == ["two"]
    drain(ex)
    assert ex.values["c"] == 11


def test_a_trigger_on_an_undeclared_channel_is_refused_naming_node_and_channel() -> None:
    g = Graph("g").with_channels(a=LastValue())
    g.add_node("one", add_one("a", "a"), triggers=["nope"])  # type: ignore[arg-type]
    with pytest.raises(GraphValidationError, match="'one' is triggered by channel 'nope'"):
        g.compile()


def test_an_edit_does_not_queue_a_coalescing_node_that_is_already_queued() -> None:
    g = Graph("g").with_channels(a=LastValue(), b=LastValue())
    g.add_node("one", add_one("a", "b"), triggers=["a"], coalesce=True)  # type: ignore[arg-type]
    ex = Execution.start(g.compile(), "run", updates={"a": 1})
    assert [aid.split(":")[0] for aid, _ in ex.queue] == ["one"]
    ex.edit({"a": 5}, writer="human")  # "one" is due already: it runs once, on a = 5
    assert [aid.split(":")[0] for aid, _ in ex.queue] == ["one"]
    drain(ex)
    assert ex.values == {"a": 5, "b": 6}


class _Emptying(LastValue):
    """A channel that a write of None leaves without a value (as a topic emptied)."""

    def combine(self, channel: str, current: object, writes: object) -> object:
        value = super().combine(channel, current, writes)  # type: ignore[arg-type]
        return MISSING if value is None else value


def test_a_write_that_leaves_no_value_removes_it_and_triggers_no_subscriber() -> None:
    runs: list[tuple[str, int]] = []

    def node(name: str, updates: dict[str, object]) -> object:
        def react(ctx: NodeContext, event: Event) -> Reaction:
            runs.append((name, ctx.step))
            return Reaction(
                updates=updates if ctx.step < 3 else {}, disposition=CompleteActivation()
            )

        return react

    g = Graph("g").with_channels(a=_Emptying(), b=LastValue())
    g.add_node("listen", node("listen", {"b": 1}), triggers=["a"])  # type: ignore[arg-type]
    g.add_node("hush", node("hush", {"a": None}), triggers=["b"])  # type: ignore[arg-type]
    ex = drain(Execution.start(g.compile(), "run", updates={"a": 1}))
    # hush emptied ``a`` in step 2: written (its version moved) but without a value, so
    # its subscriber does not run again and the state has no ``a``
    assert runs == [("listen", 1), ("hush", 2)]
    assert ex.values == {"b": 1}
    assert ex.versions["a"] == 2
