"""Supersteps: snapshot isolation, atomic commit, canonical ordering, FIFO inputs."""

from __future__ import annotations

import operator
from typing import Any

from superstep_core import (
    Activate,
    Activated,
    Append,
    CompleteActivation,
    Effect,
    EffectCompleted,
    Event,
    External,
    FailActivation,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    Reducer,
    RemainActive,
    Spawn,
    Status,
)
from superstep_core.graph import ANY_NODE
from superstep_core.runtime import Execution

from .support import drain, writes


def test_nodes_of_one_superstep_all_read_the_state_committed_before_it() -> None:
    seen: dict[str, Any] = {}

    def bump(ctx: NodeContext, event: Event) -> Reaction:
        seen[ctx.node] = ctx.state["n"]
        return Reaction(updates={"n": ctx.state["n"] + 1, "log": ctx.node})

    g = (
        Graph("g")
        .with_channels(n=Reducer(lambda cur, new: max(cur, new), int), log=Append())
        .add_node("a", bump)
        .add_node("b", bump)
        .start_at("a", "b")
    )
    ex = drain(Execution.start(g.compile(), "run", updates={"n": 10}))
    assert seen == {"a": 10, "b": 10}  # b did not see a's write
    assert ex.values["n"] == 11


def test_state_a_node_sees_is_read_only() -> None:
    errors: list[str] = []

    def meddle(ctx: NodeContext, event: Event) -> Reaction:
        try:
            ctx.state["x"] = 2  # type: ignore[index]
        except TypeError as e:
            errors.append(type(e).__name__)
        return Reaction()

    g = Graph("g").with_channels(x=LastValue()).add_node("a", meddle).start_at("a")
    ex = drain(Execution.start(g.compile(), "run", updates={"x": 1}))
    assert errors == ["TypeError"]
    assert ex.values == {"x": 1}


def test_the_next_superstep_sees_the_previous_commit() -> None:
    seen: list[int] = []

    def read(ctx: NodeContext, event: Event) -> Reaction:
        seen.append(ctx.state["n"])
        return Reaction()

    g = (
        Graph("g")
        .with_channels(n=Reducer(operator.add, int))
        .add_node("a", writes(n=5))
        .add_node("b", read)
        .start_at("a")
        .connect("a", "b")
    )
    drain(Execution.start(g.compile(), "run"))
    assert seen == [5]


def _failing_once(flag: list[bool]) -> Any:
    def react(ctx: NodeContext, event: Event) -> Reaction:
        if flag[0]:
            flag[0] = False
            return Reaction(updates={"log": "bad"}, disposition=FailActivation.permanent("boom"))
        return Reaction(updates={"log": "good"})

    return react


def _atomic_graph(flag: list[bool]) -> Execution:
    g = (
        Graph("g")
        .with_channels(log=Append(), x=LastValue())
        .add_node("ok", writes(x=1, log="ok"))
        .add_node("shaky", _failing_once(flag))
        .start_at("ok", "shaky")
    )
    return Execution.start(g.compile(), "run")


def test_a_failing_superstep_commits_nothing_and_keeps_its_queue() -> None:
    ex = _atomic_graph([True])
    queued = list(ex.queue)
    outcome = ex.run_superstep()
    assert not outcome.committed
    assert ex.status is Status.FAILED
    assert ex.values == {"log": ()}  # ok's write did not commit either
    assert ex.step == 0
    assert list(ex.queue) == queued
    assert ex.failure is not None and ex.failure.node == "shaky"
    assert ex.failure.message == "boom"


def test_retry_failed_runs_the_failed_superstep_again() -> None:
    ex = _atomic_graph([True])
    ex.run_superstep()
    ex.retry_failed()
    drain(ex)
    assert ex.status is Status.COMPLETED
    assert ex.values == {"log": ("ok", "good"), "x": 1}
    assert ex.step == 1


def test_an_effect_result_delivered_in_a_failed_superstep_is_delivered_again_on_retry() -> None:
    flag = [False]

    def waiter(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            return Reaction(effects=[Effect("work")], disposition=RemainActive())
        assert isinstance(event, EffectCompleted)
        return Reaction(updates={"x": event.result})

    def bomb(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, External) and flag[0]:
            flag[0] = False
            return Reaction(disposition=FailActivation.permanent("boom"))
        return Reaction(disposition=RemainActive())

    g = (
        Graph("g")
        .with_channels(x=LastValue())
        .add_node("waiter", waiter)
        .add_node("bomb", bomb)
        .start_at("waiter", "bomb")
        .route("go", None, "bomb")
    )
    ex = Execution.start(g.compile(), "run")
    (request,) = ex.run_superstep().effects
    flag[0] = True
    ex.deliver(EffectCompleted(request.effect_id, result=42))
    ex.send(External("go"))
    assert not ex.run_superstep().committed
    ex.retry_failed()
    ex.run_superstep()
    assert ex.values == {"x": 42}
    assert ex.trace[-1].dropped == []


def test_run_superstep_refuses_while_failed() -> None:
    ex = _atomic_graph([True])
    ex.run_superstep()
    try:
        ex.run_superstep()
    except RuntimeError as e:
        assert "retry_failed() first" in str(e)
    else:  # pragma: no cover
        raise AssertionError("expected RuntimeError")


def test_recipients_react_in_canonical_order_node_key_then_activation() -> None:
    order: list[str] = []

    def note(ctx: NodeContext, event: Event) -> Reaction:
        order.append(ctx.activation_id)
        return Reaction(disposition=RemainActive())

    g = Graph("g")
    for key in ["zeta", "alpha", "mid"]:
        g.add_node(key, note)
    g.start_at("zeta", "alpha", "mid")
    ex = Execution.start(g.compile(), "run")
    ex.run_superstep()
    assert order == ["alpha:2", "mid:3", "zeta:1"]


def test_spawned_activations_react_after_the_others_in_spawn_order() -> None:
    def fan(ctx: NodeContext, event: Event) -> Reaction:
        control = [Spawn("zeta", 1), Activate("mid"), Spawn("alpha", 2), Spawn("zeta", 3)]
        return Reaction(control=control)

    def note(ctx: NodeContext, event: Event) -> Reaction:
        assert isinstance(event, Activated)
        return Reaction(updates={"log": f"{ctx.node}={event.payload}"})

    g = Graph("g").with_channels(log=Append()).add_node("fan", fan, may_activate=ANY_NODE)
    for key in ["zeta", "alpha", "mid"]:
        g.add_node(key, note)
    ex = drain(Execution.start(g.start_at("fan").compile(), "run"))
    assert ex.values["log"] == ("mid=None", "zeta=1", "alpha=2", "zeta=3")


def test_events_for_one_instance_are_delivered_in_fifo_order() -> None:
    got: list[Any] = []

    def note(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, External):
            got.append(event.payload)
        return Reaction(disposition=RemainActive())

    g = Graph("g").add_node("l", note).start_at("l").route("e", None, "l")
    ex = Execution.start(g.compile(), "run")
    ex.run_superstep()
    for n in [3, 1, 2]:
        ex.send(External("e", n))
    ex.run_superstep()
    assert got == [3, 1, 2]


def test_activation_ids_are_derived_node_and_sequence() -> None:
    g = Graph("g").add_node("a", writes()).add_node("b", writes()).start_at("a").connect("a", "b")
    ex = drain(Execution.start(g.compile(), "run"))
    assert [r.activated for r in ex.trace] == [["b:2"], []]


def test_effect_ids_derive_from_execution_activation_and_count() -> None:
    def two(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(effects=[Effect("x"), Effect("y")], disposition=RemainActive())

    g = Graph("g").add_node("a", two).start_at("a")
    ex = Execution.start(g.compile(), "exec-7")
    ids = [r.effect_id for r in ex.run_superstep().effects]
    assert ids == ["exec-7/a:1/e0", "exec-7/a:1/e1"]


def test_a_node_that_raises_fails_its_activation_with_the_exception() -> None:
    def broken(ctx: NodeContext, event: Event) -> Reaction:
        raise KeyError("missing")

    g = Graph("g").add_node("a", broken).start_at("a")
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.failure is not None
    assert (ex.failure.node, ex.failure.error_type) == ("a", "KeyError")


def test_a_node_returning_something_else_than_a_reaction_fails_naming_the_node() -> None:
    g = Graph("g").add_node("a", lambda ctx, ev: {"x": 1}).start_at("a")  # type: ignore[arg-type,return-value]
    ex = drain(Execution.start(g.compile(), "run"))
    assert ex.failure is not None
    assert "node 'a' returned dict, expected a Reaction" in ex.failure.message


def test_memory_survives_between_events_of_one_instance() -> None:
    def count(ctx: NodeContext, event: Event) -> Reaction:
        ctx.memory["n"] = ctx.memory.get("n", 0) + 1
        if ctx.memory["n"] == 3:
            return Reaction(disposition=CompleteActivation(ctx.memory["n"]))
        return Reaction(disposition=RemainActive())

    g = Graph("g").add_node("a", count).start_at("a").route("tick", None, "a").end_at("a")
    ex = drain(Execution.start(g.compile(), "run"))
    ex.send(External("tick"))
    drain(ex)
    ex.send(External("tick"))
    drain(ex)
    assert ex.outputs == [("a", 3)]


def _counter_graph() -> Execution:
    def count(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            return Reaction(disposition=RemainActive())
        ctx.memory["n"] = ctx.memory.get("n", 0) + 1
        if ctx.memory["n"] == 2:
            return Reaction(disposition=CompleteActivation(ctx.memory["n"]))
        return Reaction(effects=[Effect("more")], disposition=RemainActive())

    g = (
        Graph("g")
        .with_channels(log=Append())
        .add_node("c", count)
        .add_node("next", writes(log="next ran"))
        .start_at("c")
        .route("e", None, "c")
        .connect("c", "next")
    )
    return drain(Execution.start(g.compile(), "run"))


def test_events_for_one_instance_in_one_superstep_react_in_turn_sharing_memory() -> None:
    ex = _counter_graph()
    for _ in range(3):
        ex.send(External("e"))
    outcome = ex.run_superstep()
    # the first event issued an effect, the second completed: the third found it ended
    assert [r.effect_id for r in outcome.effects] == ["run/c:1/e0"]
    assert ex.trace[-1].dropped == ["External for ended activation c:1"]
    drain(ex)
    assert ex.values["log"] == ("next ran",)  # completed once, followed its edge once


def test_effects_issued_by_two_events_of_one_instance_in_one_superstep_get_distinct_ids() -> None:
    def many(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(effects=[Effect("x")], disposition=RemainActive())

    g = Graph("g").add_node("m", many).start_at("m").route("e", None, "m")
    ex = drain(Execution.start(g.compile(), "run"))
    ex.send(External("e"))
    ex.send(External("e"))
    ids = [r.effect_id for r in ex.run_superstep().effects]
    assert ids == ["run/m:1/e1", "run/m:1/e2"]
