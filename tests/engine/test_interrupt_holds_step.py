"""Interrupts that hold their superstep (`suspend_holds_step`): when one activation of a
superstep suspends, its siblings' results wait and the superstep commits once, in canonical
order, after every suspended activation of it has been resumed and settled (LangGraph's
"a paused step's finished tasks keep their writes pending until the step completes")."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from superstep_core import (
    Activated,
    Append,
    CompleteActivation,
    Effect,
    EffectCompleted,
    Event,
    Graph,
    NodeContext,
    Reaction,
    RemainActive,
    Resumed,
    Spawn,
    Status,
    SuspendActivation,
)
from superstep_core.graph import CompiledGraph
from superstep_core.runtime import Execution

from .support import DriverFactory, drain


def _fan_out(n: int, askers: set[int], *, holds: bool = True, via_effect: bool = False) -> Any:
    """``fan`` spawns ``w`` for 0..n-1; ``w(x)`` for x in ``askers`` suspends until resumed
    (then writes ``(x, answer)``), the others write ``(x, None)``; every ``w`` leads to
    ``after`` (coalescing), which records what it saw. ``via_effect``: each ``w`` does its work
    as an effect and settles on the result (as the LangGraph façade's tasks do). Returns the
    graph and the log of work done."""
    done: list[str] = []

    def fan(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(control=[Spawn("w", x) for x in range(n)])

    def work(x: int, answer: Any) -> Reaction:
        if x in askers and answer is None:
            done.append(f"w{x}?")
            return Reaction(disposition=SuspendActivation(f"ask {x}"))
        done.append(f"w{x}" if answer is None else f"w{x}:{answer}")
        return Reaction(updates={"items": (x, answer)}, disposition=CompleteActivation())

    def w(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            ctx.memory["x"] = event.payload
            answer = None
        elif isinstance(event, Resumed):
            answer = event.value
        else:
            assert isinstance(event, EffectCompleted)
            return event.result  # type: ignore[no-any-return]
        if not via_effect:
            return work(ctx.memory["x"], answer)
        x = ctx.memory["x"]
        effect = Effect("call", lambda: work(x, answer))
        return Reaction(effects=[effect], disposition=RemainActive())

    def after(ctx: NodeContext, event: Event) -> Reaction:
        done.append("after")
        return Reaction(updates={"seen": list(ctx.state["items"])})

    g = Graph("fan").with_channels(items=Append(), seen=Append())
    g.add_node("fan", fan, may_activate=["w"])
    g.add_node("w", w, suspend_holds_step=holds)
    g.add_node("after", after, coalesce=True)
    g.connect("w", "after")
    return g.start_at("fan").compile(), done


def _answered(n: int, answers: dict[int, str]) -> tuple[tuple[int, Any], ...]:
    return tuple((x, answers.get(x)) for x in range(n))


def test_the_siblings_of_an_interrupt_commit_with_it_once_it_is_answered(
    make_driver: DriverFactory,
) -> None:
    graph, done = _fan_out(3, {1}, via_effect=True)
    driver = make_driver()
    ex = driver.run_graph(graph)
    assert ex.status is Status.SUSPENDED
    assert ex.values["items"] == ()  # nothing of the paused superstep committed
    assert sorted(aid for aid, _ in ex.held) == ["w:2", "w:4"]
    driver.resume(ex, "yes")
    assert ex.status is Status.COMPLETED
    assert ex.values["items"] == ((0, None), (1, "yes"), (2, None))  # spawn order
    assert ex.values["seen"] == ([(0, None), (1, "yes"), (2, None)],)  # after ran once
    assert done == ["w0", "w1?", "w2", "w1:yes", "after"]  # no work done twice


def test_without_holding_the_siblings_commit_first_and_the_successor_runs_twice() -> None:
    graph, done = _fan_out(3, {1}, holds=False)
    ex = drain(Execution.start(graph, "x"))
    ex.resume("yes")
    drain(ex)
    assert ex.values["items"] == ((0, None), (2, None), (1, "yes"))
    assert done.count("after") == 2


def test_the_paused_superstep_reports_what_it_delivered_and_held() -> None:
    graph, _ = _fan_out(3, {1})
    ex = Execution.start(graph, "x")
    ex.run_superstep()
    step = ex.step
    outcome = ex.run_superstep()
    assert not outcome.committed
    assert ex.step == step  # a paused superstep is not a committed one
    assert [aid for aid, _ in outcome.delivered] == ["w:2", "w:3", "w:4"]
    assert [aid for aid, _ in outcome.held] == ["w:2", "w:4"]
    assert ex.interrupts == [("w:3", "ask 1")]
    assert ex.trace[-1].dropped == ["2 event(s) held for the interrupt of w:3"]


def test_a_lone_interrupt_holds_nothing_and_commits_as_usual() -> None:
    graph, _ = _fan_out(1, {0})
    ex = drain(Execution.start(graph, "x"))
    assert ex.held == []
    assert ex.step == 2
    ex.resume("ok")
    drain(ex)
    assert ex.values["items"] == ((0, "ok"),)


@pytest.mark.parametrize("via_effect", [False, True])
def test_two_interrupts_answered_one_at_a_time_commit_once_both_are(via_effect: bool) -> None:
    graph, done = _fan_out(4, {1, 2}, via_effect=via_effect)
    perform = lambda r: EffectCompleted(r.effect_id, r.effect.request())  # noqa: E731
    ex = drain(Execution.start(graph, "x"), perform)
    [(first, _), (second, _)] = ex.interrupts
    ex.resume("B", second)
    drain(ex, perform)
    assert ex.status is Status.SUSPENDED
    assert ex.values["items"] == ()
    assert second in {aid for aid, _ in ex.held}  # its settled result waits too
    ex.resume("A", first)
    drain(ex, perform)
    assert ex.status is Status.COMPLETED
    assert ex.values["items"] == ((0, None), (1, "A"), (2, "B"), (3, None))
    assert done.count("after") == 1
    # a settled event waits and is delivered again on release: a reducer is called again
    # (pure), work done as an effect is not done again
    assert done.count("w2:B") == (1 if via_effect else 2)


def test_an_activation_that_suspends_again_keeps_holding() -> None:
    asked: list[Any] = []

    def fan(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(control=[Spawn("w", x) for x in range(2)])

    def w(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            ctx.memory["x"] = event.payload
            ctx.memory["answers"] = []
        else:
            assert isinstance(event, Resumed)
            ctx.memory["answers"] = [*ctx.memory["answers"], event.value]
        if ctx.memory["x"] == 1 and len(ctx.memory["answers"]) < 2:
            asked.append(len(ctx.memory["answers"]))
            return Reaction(disposition=SuspendActivation("more?"))
        value = (ctx.memory["x"], tuple(ctx.memory["answers"]))
        return Reaction(updates={"items": value}, disposition=CompleteActivation())

    g = Graph("g").with_channels(items=Append())
    g.add_node("fan", fan, may_activate=["w"]).add_node("w", w, suspend_holds_step=True)
    ex = drain(Execution.start(g.start_at("fan").compile(), "x"))
    ex.resume("a")
    drain(ex)
    assert ex.status is Status.SUSPENDED
    assert ex.values["items"] == ()
    assert [aid for aid, _ in ex.held] == ["w:2"]
    ex.resume("b")
    drain(ex)
    assert ex.values["items"] == ((0, ()), (1, ("a", "b")))
    assert asked == [0, 1]


def test_a_paused_superstep_survives_a_snapshot() -> None:
    graph, _ = _fan_out(3, {1})
    ex = drain(Execution.start(graph, "x"))
    restored = Execution.restore(graph, ex.snapshot())
    for one in (ex, restored):
        one.resume("yes")
        drain(one)
    assert restored.values == ex.values
    assert restored.values["items"] == _answered(3, {1: "yes"})


def test_abandoning_a_paused_superstep_drops_its_held_events() -> None:
    graph, _ = _fan_out(3, {1})
    ex = drain(Execution.start(graph, "x"))
    ended = ex.abandon_pending()
    assert sorted(ended) == ["w:2", "w:3", "w:4"]
    assert ex.held == [] and ex.instances == {}
    assert ex.status is Status.COMPLETED


def test_the_reaction_that_suspends_a_holding_node_may_not_write() -> None:
    def fan(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(control=[Spawn("w", x) for x in range(2)])

    def w(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(updates={"items": 1}, disposition=SuspendActivation("?"))

    g = Graph("g").with_channels(items=Append())
    g.add_node("fan", fan, may_activate=["w"]).add_node("w", w, suspend_holds_step=True)
    ex = drain(Execution.start(g.start_at("fan").compile(), "x"))
    assert ex.status is Status.FAILED
    assert ex.failure is not None and "may not write" in ex.failure.message


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=5),
    data=st.data(),
    via_effect=st.booleans(),
)
def test_answering_the_interrupts_in_any_order_commits_the_step_as_one(
    n: int, data: st.DataObject, via_effect: bool
) -> None:
    """Whatever tasks interrupt and in whatever order they are answered, the step commits
    once, in spawn order, as if every answer had been known when it first ran; the
    successor runs once, and work done as effects is done once per answer."""
    askers = data.draw(st.sets(st.integers(min_value=0, max_value=n - 1)))
    order = data.draw(st.permutations(sorted(askers)))
    graph, done = _fan_out(n, askers, via_effect=via_effect)
    perform = lambda r: EffectCompleted(r.effect_id, r.effect.request())  # noqa: E731
    ex = drain(Execution.start(graph, "x"), perform)
    answers: dict[int, str] = {}
    for x in order:
        assert ex.values["items"] == ()
        aid = next(a for a, v in ex.interrupts if v == f"ask {x}")
        answers[x] = f"a{x}"
        ex.resume(answers[x], aid)
        drain(ex, perform)
    assert ex.status is Status.COMPLETED
    assert ex.values["items"] == _answered(n, answers)
    assert ex.values["seen"] == (list(_answered(n, answers)),)
    assert done.count("after") == 1
    if via_effect:
        assert sorted(done) == sorted(
            ["after"]
            + [f"w{x}" for x in range(n) if x not in askers]
            + [f"w{x}?" for x in askers]
            + [f"w{x}:a{x}" for x in askers]
        )
    # the same ordered inputs rebuild the same execution
    assert _replayed(graph, ex).values == ex.values


def _replayed(graph: CompiledGraph, ex: Execution) -> Execution:
    from superstep_core.persistence.replay import replay

    return replay(graph, ex.input_log, "x")
