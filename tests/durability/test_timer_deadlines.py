"""Durable timers keep absolute deadlines: a checkpoint records each armed timer's due time
on the host's clock, so a recovered execution fires it when it was due (at once when that has
passed), not a full delay after the restart. An interrupted activation still gets a timer that
is due (an interrupt with a deadline)."""

from __future__ import annotations

from superstep_core import (
    Activated,
    CompleteActivation,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    RemainActive,
    RequestTimer,
    Status,
    SuspendActivation,
    TimerElapsed,
)
from superstep_core.checkpoint import InMemorySaver
from superstep_core.host.durable import DurableRunner
from superstep_core.node import Event
from superstep_core.testing import VirtualClock


def _waiter(suspend: bool) -> Graph:
    def wait(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            armed = [RequestTimer("deadline", 60.0)]
            if suspend:
                return Reaction(control=armed, disposition=SuspendActivation("answer me"))
            return Reaction(control=armed, disposition=RemainActive())
        if isinstance(event, TimerElapsed):
            return Reaction(updates={"fired": True}, disposition=CompleteActivation())
        return Reaction(disposition=RemainActive())

    return Graph("waiter").with_channels(fired=LastValue()).add_node("wait", wait).start_at("wait")


def _started(store: InMemorySaver, clock: VirtualClock, suspend: bool = False) -> None:
    runner = DurableRunner(store, clock=clock)
    dx = runner.start(_waiter(suspend).compile(), "t")
    dx.run(until=clock.now())  # arms the timer and returns: the process "dies" here


def test_a_recovered_timer_fires_at_its_recorded_deadline_not_a_full_delay_later() -> None:
    store = InMemorySaver()
    _started(store, VirtualClock(1000.0))
    later = VirtualClock(1045.0)  # the new process starts 45 s later
    ex = DurableRunner(store, clock=later).recover(_waiter(False).compile(), "t").run()
    assert ex.values["fired"] is True
    assert later.now() == 1060.0
    assert later.slept == [15.0]


def test_an_overdue_timer_fires_at_once_after_recovery() -> None:
    store = InMemorySaver()
    _started(store, VirtualClock(1000.0))
    later = VirtualClock(1200.0)
    ex = DurableRunner(store, clock=later).recover(_waiter(False).compile(), "t").run()
    assert ex.values["fired"] is True
    assert later.slept == []


def test_a_suspended_activation_gets_its_due_timer_but_is_not_waited_on() -> None:
    store = InMemorySaver()
    clock = VirtualClock(0.0)
    _started(store, clock, suspend=True)
    dx = DurableRunner(store, clock=VirtualClock(30.0)).recover(_waiter(True).compile(), "t")
    assert dx.run().status is Status.SUSPENDED  # not due yet: returns without sleeping
    due = DurableRunner(store, clock=VirtualClock(61.0)).recover(_waiter(True).compile(), "t")
    assert due.run().values["fired"] is True
