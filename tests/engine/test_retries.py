"""Retries: a retryable failure is retried with attempt+1 after the declared backoff, which
the host times on its clock."""

from __future__ import annotations

import pytest

from superstep_core import (
    CompleteActivation,
    Event,
    FailActivation,
    Graph,
    LastValue,
    NodeContext,
    Reaction,
    RetryableEffectError,
    RetryPolicy,
    Status,
    effect_node,
)
from superstep_core.graph import CompiledGraph
from superstep_core.host import EffectContext

from .support import DriverFactory


def _flaky(
    attempts: list[int], succeed_on: int | None, *, permanent: bool = False
) -> CompiledGraph:
    def react(ctx: NodeContext, event: Event) -> Reaction:
        attempts.append(ctx.attempt)
        if succeed_on is not None and ctx.attempt >= succeed_on:
            return Reaction(updates={"done": ctx.attempt}, disposition=CompleteActivation())
        make = FailActivation.permanent if permanent else FailActivation.retryable
        return Reaction(disposition=make(f"attempt {ctx.attempt} failed", "Flaky"))

    policy = RetryPolicy(max_attempts=3, initial_interval=0.5, backoff_factor=2.0)
    g = Graph("g").with_channels(done=LastValue()).add_node("flaky", react, retry=policy)
    return g.start_at("flaky").compile()


def test_retryable_failure_is_retried_with_attempt_numbers_and_backoff_on_the_clock(
    make_driver: DriverFactory,
) -> None:
    attempts: list[int] = []
    driver = make_driver()
    ex = driver.run_graph(_flaky(attempts, succeed_on=3))
    assert ex.status is Status.COMPLETED
    assert attempts == [1, 2, 3]
    assert driver.clock.slept == [0.5, 1.0]
    assert ex.values == {"done": 3}


def test_exhausted_retries_fail_the_execution_with_the_last_failure(
    make_driver: DriverFactory,
) -> None:
    attempts: list[int] = []
    driver = make_driver()
    ex = driver.run_graph(_flaky(attempts, succeed_on=None))
    assert attempts == [1, 2, 3]
    assert ex.status is Status.FAILED
    assert ex.failure is not None
    assert (ex.failure.node, ex.failure.message) == ("flaky", "attempt 3 failed")
    assert driver.clock.slept == [0.5, 1.0]


def test_permanent_failure_is_not_retried(make_driver: DriverFactory) -> None:
    attempts: list[int] = []
    driver = make_driver()
    ex = driver.run_graph(_flaky(attempts, succeed_on=None, permanent=True))
    assert attempts == [1]
    assert ex.status is Status.FAILED
    assert driver.clock.slept == []


def test_retryable_failure_without_a_retry_policy_fails_at_once(
    make_driver: DriverFactory,
) -> None:
    fail = FailActivation.retryable("busy")
    g = Graph("g").add_node("a", lambda ctx, ev: Reaction(disposition=fail)).start_at("a")
    ex = make_driver().run_graph(g.compile())
    assert ex.status is Status.FAILED


def test_a_retrying_activation_waits_listening_for_its_backoff(
    make_driver: DriverFactory,
) -> None:
    attempts: list[int] = []
    driver = make_driver()
    ex = driver.run_graph(_flaky(attempts, succeed_on=2), until=0.25)
    assert attempts == [1]
    assert ex.status is Status.LISTENING
    driver.run(ex)
    assert attempts == [1, 2]
    assert driver.clock.now() == 0.5


def test_an_effect_failing_retryably_in_its_handler_retries_the_node(
    make_driver: DriverFactory,
) -> None:
    calls: list[str] = []

    def fetch(request: str, ctx: EffectContext) -> str:
        calls.append(ctx.idempotency_key)
        if len(calls) < 2:
            raise RetryableEffectError("503 service unavailable")
        return request.upper()

    node = effect_node("fetch", request=lambda s, p: p, on_result=lambda s, r, p: {"out": r})
    g = Graph("g").with_channels(out=LastValue())
    g.add_node("get", node, retry=RetryPolicy(3, initial_interval=1.0)).start_at("get")
    driver = make_driver({"fetch": fetch})
    ex = driver.run_graph(g.compile(), payload="hi")
    assert ex.values == {"out": "HI"}
    assert len(calls) == 2
    assert calls[0] == calls[1]  # the idempotency key is stable across attempts
    assert driver.clock.slept == [1.0]


def test_retry_policy_backoff_grows_geometrically_up_to_the_cap() -> None:
    policy = RetryPolicy(max_attempts=9, initial_interval=1.0, backoff_factor=3.0, max_interval=20)
    assert [policy.backoff(n) for n in (1, 2, 3, 4)] == [1.0, 3.0, 9.0, 20]


def test_retry_policy_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="max_attempts must be >= 1"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(ValueError, match="intervals must be >= 0"):
        RetryPolicy(initial_interval=-1)
