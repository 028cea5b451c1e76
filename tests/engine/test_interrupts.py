"""Interrupts: SuspendActivation, then a resume answers it with `Resumed`."""

from __future__ import annotations

from typing import Any

import pytest

from superstep_core import (
    Activated,
    Append,
    CompleteActivation,
    Event,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    Resumed,
    StaleResumeError,
    Status,
    SuspendActivation,
    UnknownInterruptError,
)
from superstep_core.graph import CompiledGraph
from superstep_core.runtime import Execution

from .support import DriverFactory, drain


def ask(ctx: NodeContext, event: Event) -> Reaction:
    """Asks a question; writes the answer it is resumed with."""
    if isinstance(event, Activated):
        return Reaction(disposition=SuspendActivation(f"{ctx.node}: approve?"))
    assert isinstance(event, Resumed)
    return Reaction(updates={"answers": (ctx.node, event.value)}, disposition=CompleteActivation())


def _graph(*askers: str) -> CompiledGraph:
    g = Graph("g").with_channels(answers=Append())
    for key in askers:
        g.add_node(key, ask)
    return g.start_at(*askers).compile()


def test_suspend_activation_makes_the_execution_suspended_with_its_interrupt(
    make_driver: DriverFactory,
) -> None:
    ex = make_driver().run_graph(_graph("ask"))
    assert ex.status is Status.SUSPENDED
    assert ex.interrupts == [("ask:1", "ask: approve?")]


def test_resume_delivers_resumed_with_the_value_and_the_node_continues(
    make_driver: DriverFactory,
) -> None:
    driver = make_driver()
    ex = driver.run_graph(_graph("ask"))
    driver.resume(ex, "yes")
    assert ex.status is Status.COMPLETED
    assert ex.values["answers"] == (("ask", "yes"),)
    assert ex.trace[-1].delivered == [("ask:1", "Resumed")]


def test_resume_names_one_of_several_suspended_activations() -> None:
    ex = drain(Execution.start(_graph("a", "b"), "run"))
    assert [aid for aid, _ in ex.interrupts] == ["a:1", "b:2"]
    assert ex.resume("for b", "b:2") == "b:2"
    drain(ex)
    assert ex.values["answers"] == (("b", "for b"),)
    assert ex.status is Status.SUSPENDED
    assert ex.interrupts == [("a:1", "a: approve?")]


def test_resume_without_an_id_when_several_are_suspended_is_refused() -> None:
    ex = drain(Execution.start(_graph("a", "b"), "run"))
    with pytest.raises(UnknownInterruptError, match=r"has 2 suspended activations \(a:1, b:2\)"):
        ex.resume("?")


def test_resume_of_an_activation_that_is_not_suspended_is_refused_listing_the_suspended() -> None:
    ex = drain(Execution.start(_graph("a"), "run"))
    with pytest.raises(
        UnknownInterruptError, match=r"activation 'zzz:9' is not suspended; suspended: a:1"
    ):
        ex.resume("?", "zzz:9")


def test_resume_when_nothing_is_suspended_is_refused() -> None:
    ex = drain(Execution.start(_graph("a"), "run"))
    ex.resume("ok")
    drain(ex)
    with pytest.raises(UnknownInterruptError, match=r"0 suspended activations \(none\)"):
        ex.resume("again")


def test_resume_with_a_stale_expected_step_raises_and_changes_nothing() -> None:
    ex = drain(Execution.start(_graph("a"), "run"))
    before: dict[str, Any] = {
        "queue": list(ex.queue),
        "log": list(ex.input_log),
        "state": ex.instances["a:1"].state,
        "step": ex.step,
    }
    with pytest.raises(StaleResumeError, match=r"expected state at superstep 0.*superstep 1"):
        ex.resume("late", "a:1", expected_step=0)
    after = {
        "queue": list(ex.queue),
        "log": list(ex.input_log),
        "state": ex.instances["a:1"].state,
        "step": ex.step,
    }
    assert after == before
    assert ex.status is Status.SUSPENDED


def test_resume_with_the_current_expected_step_is_accepted() -> None:
    ex = drain(Execution.start(_graph("a"), "run"))
    ex.resume("fresh", expected_step=ex.step)
    drain(ex)
    assert ex.values["answers"] == (("a", "fresh"),)


def test_a_node_may_suspend_again_after_a_resume() -> None:
    def twice(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            return Reaction(disposition=SuspendActivation("first?"))
        assert isinstance(event, Resumed)
        if event.value == "one":
            return Reaction(disposition=SuspendActivation("second?"))
        return Reaction(disposition=CompleteActivation(event.value))

    g = Graph("g").add_node("q", twice).start_at("q").end_at("q").compile()
    ex = drain(Execution.start(g, "run"))
    ex.resume("one")
    drain(ex)
    assert ex.interrupts == [("q:1", "second?")]
    ex.resume("two")
    drain(ex)
    assert ex.outputs == [("q", "two")]


def test_an_edit_does_not_activate_again_a_coalescing_node_waiting_on_an_interrupt() -> None:
    def ask(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Resumed):
            return Reaction(updates={"answer": event.value})
        return Reaction(disposition=SuspendActivation("q?"))

    g = (
        Graph("g")
        .with_channels(answer=LastValue(), note=LastValue())
        .add_node("ask", ask, coalesce=True)
        .start_at("ask")
    )
    ex = Execution.start(g.compile(), "run")
    while ex.queue:
        ex.run_superstep()
    assert ex.status is Status.SUSPENDED
    ex.edit({"note": "edited"}, writer="human", activate=["ask"], cancel_pending=True)
    assert not ex.queue  # the suspended activation stays the node's one pending run
    ex.resume("yes")
    while ex.queue:
        ex.run_superstep()
    assert ex.values == {"answer": "yes", "note": "edited"}
    assert ex.status is Status.COMPLETED


def test_abandon_pending_ends_suspended_and_queued_activations_and_keeps_values() -> None:
    ex = drain(Execution.start(_graph("a", "b"), "run"))
    ex.resume("for b", "b:2")
    drain(ex)
    ex.resume("for a", "a:1")  # queued, not yet run
    assert ex.abandon_pending() == ("a:1",)
    assert ex.interrupts == [] and not ex.queue
    assert ex.values["answers"] == (("b", "for b"),)
    assert ex.input_log[-1] == ("abandon",)
    again = drain(Execution.start(_graph("a", "b"), "run"))
    assert again.abandon_pending() == ("a:1", "b:2")
    assert again.status is Status.COMPLETED
