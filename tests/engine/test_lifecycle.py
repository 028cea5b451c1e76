"""The lifecycle of an execution: Running, WaitingForEffects, Listening, Suspended,
Completed, Failed."""

from __future__ import annotations

from superstep_core import (
    Effect,
    EffectCompleted,
    ExecutionFailedError,
    FailActivation,
    Graph,
    Reaction,
    RemainActive,
    RequestTimer,
    Status,
    SuspendActivation,
)
from superstep_core.runtime import Execution

from .support import completes, drain, reaction


def _start(fn: object) -> Execution:
    g = Graph("g").add_node("a", fn).start_at("a").compile()  # type: ignore[arg-type]
    return Execution.start(g, "run")


def test_an_execution_with_queued_events_is_running() -> None:
    assert _start(completes()).status is Status.RUNNING


def test_an_execution_with_nothing_left_is_completed() -> None:
    assert drain(_start(completes())).status is Status.COMPLETED


def test_an_execution_blocked_on_an_effect_is_waiting_for_effects() -> None:
    ex = _start(reaction(Reaction(effects=[Effect("x")], disposition=RemainActive())))
    outcome = ex.run_superstep()
    statuses = [ex.status]
    ex.deliver(EffectCompleted(outcome.effects[0].effect_id, result=1))
    statuses.append(ex.status)
    assert statuses == [Status.WAITING_FOR_EFFECTS, Status.RUNNING]


def test_an_execution_with_a_live_quiet_instance_is_listening() -> None:
    assert drain(_start(reaction(Reaction(disposition=RemainActive())))).status is (
        Status.LISTENING
    )


def test_an_execution_with_only_an_armed_timer_is_listening() -> None:
    arm = reaction(Reaction(control=[RequestTimer("t", 1.0)], disposition=RemainActive()))
    ex = drain(_start(arm))
    assert ex.status is Status.LISTENING
    assert list(ex.timers) == [("a:1", "t")]


def test_an_execution_with_an_interrupt_is_suspended() -> None:
    assert drain(_start(reaction(Reaction(disposition=SuspendActivation("?"))))).status is (
        Status.SUSPENDED
    )


def test_an_execution_whose_node_failed_is_failed_and_raises_on_request() -> None:
    ex = drain(_start(reaction(Reaction(disposition=FailActivation.permanent("no", "Bad")))))
    assert ex.status is Status.FAILED
    try:
        ex.raise_for_failure()
    except ExecutionFailedError as e:
        assert (e.node, e.activation_id, e.error_type) == ("a", "a:1", "Bad")
        assert str(e) == "node 'a' (a:1) failed: Bad: no"
    else:  # pragma: no cover
        raise AssertionError("expected ExecutionFailedError")


def test_a_result_for_an_effect_nobody_awaits_is_dropped() -> None:
    ex = drain(_start(completes()))
    ex.deliver(EffectCompleted("run/ghost:9/e0", result=1))
    assert not ex.queue
    assert ex.trace[-1].dropped == ["effect run/ghost:9/e0: nobody awaits it"]
