"""Timers: first-class, realised by the host on its clock; re-arming replaces, a superseded
firing is stale and dropped, ``delay=None`` cancels."""

from __future__ import annotations

from typing import Any

from superstep_core import (
    Activated,
    CompleteActivation,
    Event,
    External,
    Graph,
    NodeContext,
    Reaction,
    RemainActive,
    RequestTimer,
    Status,
    SuspendActivation,
    TimerElapsed,
)
from superstep_core.graph import CompiledGraph
from superstep_core.host import Host
from superstep_core.runtime import Execution
from superstep_core.testing import VirtualClock

from .support import DriverFactory, drain


def _alarm(fired: list[tuple[float, Any]], clock_now: Any, *, delay: float = 5.0) -> CompiledGraph:
    """``w`` arms timer "t" on activation; on "rearm" re-arms it with the event's delay
    (``None`` cancels); records (clock time, payload) of every firing and keeps listening."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            return Reaction(control=[RequestTimer("t", delay, "p0")], disposition=RemainActive())
        if isinstance(event, External):
            timer = RequestTimer("t", event.payload, "p1")
            return Reaction(control=[timer], disposition=RemainActive())
        assert isinstance(event, TimerElapsed)
        fired.append((clock_now(), event.payload))
        return Reaction(disposition=RemainActive())

    return Graph("g").add_node("w", react).start_at("w").route("rearm", None, "w").compile()


def test_a_timer_fires_after_its_delay_on_the_host_clock(make_driver: DriverFactory) -> None:
    driver = make_driver()
    fired: list[tuple[float, Any]] = []
    ex = driver.run_graph(_alarm(fired, driver.clock.now))
    assert fired == [(5.0, "p0")]
    assert ex.status is Status.LISTENING  # alive, no timer left: the host returns


def test_a_pending_timer_keeps_the_execution_listening(make_driver: DriverFactory) -> None:
    driver = make_driver()
    fired: list[tuple[float, Any]] = []
    ex = driver.run_graph(_alarm(fired, driver.clock.now), until=3.0)
    assert fired == []
    assert ex.status is Status.LISTENING
    assert driver.clock.now() == 3.0


def test_re_arming_a_timer_replaces_the_pending_one(make_driver: DriverFactory) -> None:
    driver = make_driver()
    fired: list[tuple[float, Any]] = []
    ex = driver.run_graph(_alarm(fired, driver.clock.now), until=3.0)
    ex.send(External("rearm", 5.0))
    driver.run(ex)
    assert fired == [(8.0, "p1")]  # the first arming (due at 5) never fired


def test_cancelling_a_timer_with_delay_none_means_it_never_fires(
    make_driver: DriverFactory,
) -> None:
    driver = make_driver()
    fired: list[tuple[float, Any]] = []
    ex = driver.run_graph(_alarm(fired, driver.clock.now), until=3.0)
    ex.send(External("rearm", None))
    driver.run(ex)
    assert fired == []
    assert ex.timers == {}
    assert ex.status is Status.LISTENING


def test_a_superseded_timer_firing_is_stale_and_dropped() -> None:
    fired: list[tuple[float, Any]] = []
    ex = drain(Execution.start(_alarm(fired, lambda: 0.0), "run"))
    (old_generation,) = ex.timers.values()
    ex.send(External("rearm", 5.0))
    drain(ex)
    ex.fire_timer("w:1", "t", old_generation, "p0")
    assert not ex.queue
    assert fired == []
    assert ex.trace[-1].dropped == [f"timer w:1/t#{old_generation}: stale"]
    (current,) = ex.timers.values()
    ex.fire_timer("w:1", "t", current, "p1")
    drain(ex)
    assert fired == [(0.0, "p1")]


def test_a_timer_of_an_ended_activation_is_dropped() -> None:
    def once(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            return Reaction(control=[RequestTimer("t", 1.0)], disposition=RemainActive())
        return Reaction(disposition=CompleteActivation())

    g = Graph("g").add_node("w", once).start_at("w").route("stop", None, "w").compile()
    ex = drain(Execution.start(g, "run"))
    (generation,) = ex.timers.values()
    ex.send(External("stop"))
    drain(ex)
    assert ex.status is Status.COMPLETED
    ex.fire_timer("w:1", "t", generation, None)
    assert not ex.queue


def test_timer_requests_are_reported_to_the_host_with_generations() -> None:
    fired: list[tuple[float, Any]] = []
    ex = Execution.start(_alarm(fired, lambda: 0.0), "run")
    (request,) = ex.run_superstep().timers
    assert (request.activation_id, request.timer_id, request.delay) == ("w:1", "t", 5.0)
    ex.send(External("rearm", None))
    (cancel,) = ex.run_superstep().timers
    assert cancel.delay is None
    assert cancel.generation > request.generation


def _deadline_interrupt(fired: list[float], clock_now: Any) -> CompiledGraph:
    """``w`` arms a 60 s deadline and suspends on an interrupt; the deadline's firing
    completes it."""

    def react(ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, Activated):
            deadline = [RequestTimer("deadline", 60.0)]
            return Reaction(control=deadline, disposition=SuspendActivation("answer me"))
        assert isinstance(event, TimerElapsed)
        fired.append(clock_now())
        return Reaction(disposition=CompleteActivation())

    return Graph("g").add_node("w", react).start_at("w").compile()


def test_a_suspended_execution_gets_its_due_timer_but_is_not_waited_on(
    make_driver: DriverFactory,
) -> None:
    driver = make_driver()
    fired: list[float] = []
    ex = driver.run_graph(_deadline_interrupt(fired, driver.clock.now))
    assert ex.status is Status.SUSPENDED
    assert driver.clock.now() == 0.0 and fired == []  # returned without waiting
    driver.clock.advance(61.0)  # the process comes back after the deadline
    assert driver.run(ex).status is Status.COMPLETED
    assert fired == [61.0]


def test_steps_bounds_the_supersteps_of_one_run_call() -> None:
    host = Host(clock=VirtualClock())
    graph = Graph("chain")
    for name in ("a", "b", "c"):
        graph.add_node(name, lambda ctx, e: Reaction(disposition=CompleteActivation()))
    ex = host.start(graph.connect("a", "b").connect("b", "c").start_at("a").compile())
    assert host.run(ex, steps=0).step == 0
    assert host.run(ex, steps=2).step == 2
    assert host.run(ex, steps=5).status is Status.COMPLETED
    assert ex.step == 3
