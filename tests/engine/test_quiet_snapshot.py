"""`Execution.quiet_snapshot`: the snapshot of a quiet execution, taken without copying its
activations, stays the state of the moment it was taken, even after later supersteps change
those activations in place (a retry counts its attempt on its instance); an execution with
anything in flight has none. It notes the ephemeral channels the last superstep wrote."""

from __future__ import annotations

from superstep_core import (
    CompleteActivation,
    Ephemeral,
    Event,
    FailActivation,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    RetryPolicy,
    SuspendActivation,
)
from superstep_core.runtime import Execution


def _chain(fail_first: bool) -> Graph:
    """a -> b: ``b`` fails its first attempt (retried at once, holding its superstep) when
    ``fail_first``."""

    def a(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(updates={"x": 1}, disposition=CompleteActivation())

    def b(ctx: NodeContext, event: Event) -> Reaction:
        if fail_first and ctx.attempt == 1:
            return Reaction(disposition=FailActivation.retryable("once"))
        return Reaction(updates={"x": 2}, disposition=CompleteActivation())

    g = Graph("quiet").with_channels(x=LastValue())
    g.add_node("a", a)
    g.add_node("b", b, retry=RetryPolicy(max_attempts=3, initial_interval=0), retry_holds_step=True)
    g.connect("a", "b")
    return g.start_at("a")


def test_a_quiet_snapshot_is_the_snapshot_of_its_moment() -> None:
    ex = Execution.start(_chain(False).compile(), "t")
    ex.run_superstep()  # a committed: b is queued, fresh
    quiet = ex.quiet_snapshot()
    assert quiet is not None
    assert quiet.state() == ex.snapshot()
    assert quiet.state() is not quiet.state()  # a new state each call, nothing shared


def test_a_quiet_snapshot_is_unchanged_by_a_retry_that_changed_the_activations() -> None:
    ex = Execution.start(_chain(True).compile(), "t")
    ex.run_superstep()
    before = ex.snapshot()
    quiet = ex.quiet_snapshot()
    assert quiet is not None
    outcome = ex.run_superstep()  # b fails once: retried, its superstep held
    assert not outcome.committed
    assert ex.snapshot() != before  # the live activation counts its attempt
    assert quiet.state() == before
    restored = Execution.restore(ex.graph, quiet.state())
    assert restored.snapshot() == before


def test_an_execution_with_work_in_flight_has_no_quiet_snapshot() -> None:
    def asks(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(disposition=SuspendActivation("why?"))

    g = Graph("asks").with_channels(x=LastValue())
    g.add_node("n", asks)
    ex = Execution.start(g.start_at("n").compile(), "t")
    ex.run_superstep()  # suspended on its interrupt
    assert ex.quiet_snapshot() is None

    failing = Execution.start(_chain(False).compile(), "f")
    failing.run_superstep()
    failing.instances[next(iter(failing.instances))].attempt = 2  # a retried activation
    assert failing.quiet_snapshot() is None


def test_a_quiet_snapshot_keeps_the_live_ephemeral_channels() -> None:
    def writes(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(updates={"flash": 1}, disposition=CompleteActivation())

    def reads(ctx: NodeContext, event: Event) -> Reaction:
        return Reaction(disposition=CompleteActivation())

    g = Graph("flash").with_channels(flash=Ephemeral())
    g.add_node("w", writes)
    g.add_node("r", reads)
    g.connect("w", "r")
    ex = Execution.start(g.start_at("w").compile(), "t")
    ex.run_superstep()  # flash written: cleared by the next superstep unless written again
    quiet = ex.quiet_snapshot()
    assert quiet is not None
    assert quiet.state() == ex.snapshot()
    assert quiet.state().ephemeral_live == ["flash"]
