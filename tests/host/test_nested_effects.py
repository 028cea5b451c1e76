"""Nested effects: work an effect asks the host for while it runs, performed on the host's
worker threads or the caller's loop, retried under the engine's `RetryPolicy` on the host's
clock, and recorded in (and replayed from) the ledger."""

from __future__ import annotations

import asyncio
import random
import threading

import pytest

from superstep_core.host import (
    AsyncHost,
    DeadlineExceeded,
    EffectContext,
    Host,
    NestedEffect,
    NestedEffects,
    deadline_stop,
)
from superstep_core.node import Effect, EffectCompleted, RetryPolicy
from superstep_core.runtime import EffectRequest
from superstep_core.testing import VirtualClock


class DictLedger:
    def __init__(self) -> None:
        self.results: dict[str, EffectCompleted] = {}

    def recorded(self, effect_id: str) -> EffectCompleted | None:
        return self.results.get(effect_id)

    def record(self, completed: EffectCompleted) -> None:
        self.results[completed.effect_id] = completed


def flaky(failures: list[Exception], value: object = "ok") -> tuple[list[int], object]:
    calls: list[int] = []

    def work() -> object:
        calls.append(1)
        if failures:
            raise failures.pop(0)
        return value

    return calls, work


def first_match(error: Exception) -> RetryPolicy | None:
    # LangGraph's list rule, as a façade gives it: KeyError -> 2 attempts, TypeError -> 5
    if isinstance(error, KeyError):
        return RetryPolicy(max_attempts=2, initial_interval=1.0)
    if isinstance(error, TypeError):
        return RetryPolicy(max_attempts=5, initial_interval=1.0, backoff_factor=2.0)
    return None


def test_retries_follow_the_policy_the_failure_picks_on_the_hosts_clock() -> None:
    clock = VirtualClock()
    nested = NestedEffects(clock, random.Random(0))
    calls, work = flaky([TypeError("a"), TypeError("b"), TypeError("c")])
    effect = NestedEffect("e1", work, tag="t", retry=first_match)
    assert nested.submit(effect).result(timeout=10) == "ok"
    assert len(calls) == 4  # the TypeError policy allows 5 attempts
    assert clock.slept == [1.0, 2.0, 4.0]
    assert nested.performed == {"e1": 4}


def test_a_failure_no_policy_retries_is_final_and_the_attempts_count_across_policies() -> None:
    clock = VirtualClock()
    nested = NestedEffects(clock, random.Random(0))
    calls, work = flaky([TypeError("a"), KeyError("b"), ValueError("c")])
    with pytest.raises(KeyError):  # attempt 2 failed under the KeyError policy (2 attempts)
        nested.perform(NestedEffect("e", work, retry=first_match))
    assert len(calls) == 2
    calls, work = flaky([ValueError("c")])
    with pytest.raises(ValueError):
        nested.perform(NestedEffect("f", work, retry=first_match))
    assert len(calls) == 1


def test_jitter_is_drawn_from_the_hosts_random_source() -> None:
    clock = VirtualClock()
    nested = NestedEffects(clock, random.Random(7))
    _, work = flaky([OSError("x")])
    policy = RetryPolicy(max_attempts=2, initial_interval=0.5, jitter=1.0)
    nested.perform(NestedEffect("e", work, retry=lambda _: policy))
    assert clock.slept == [0.5 + random.Random(7).uniform(0, 1.0)]


def test_a_result_is_recorded_and_a_recorded_one_is_replayed_without_running_the_work() -> None:
    given, hosts = DictLedger(), DictLedger()
    nested = NestedEffects(VirtualClock(), random.Random(0), hosts)
    calls, work = flaky([], value={"n": 1})
    assert nested.perform(NestedEffect("e", work, tag="t"), (given,)) == {"n": 1}
    assert given.results["e"].result == {"n": 1} and given.results["e"].tag == "t"
    assert hosts.results["e"].result == {"n": 1}
    # replay: a fresh performer over the recorded ledger calls nothing
    replaying = NestedEffects(VirtualClock(), random.Random(0), hosts)
    assert replaying.perform(NestedEffect("e", work)) == {"n": 1}
    assert len(calls) == 1 and replaying.performed == {}


def test_a_ledger_that_cannot_hold_a_result_fails_the_call() -> None:
    class Refusing(DictLedger):
        def record(self, completed: EffectCompleted) -> None:
            raise TypeError("cannot hold it")

    nested = NestedEffects(VirtualClock(), random.Random(0))
    with pytest.raises(TypeError, match="cannot hold it"):
        nested.submit(NestedEffect("e", lambda: object()), (Refusing(),)).result(timeout=10)


def test_the_async_twin_retries_on_the_clock_and_records() -> None:
    clock = VirtualClock()
    ledger = DictLedger()
    nested = NestedEffects(clock, random.Random(0))
    attempts: list[int] = []

    async def work() -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise TypeError("again")
        return "done"

    async def main() -> str:
        task = nested.schedule(
            NestedEffect("a", work, retry=first_match), (ledger,), loop=asyncio.get_running_loop()
        )
        return await task

    assert asyncio.run(main()) == "done"
    assert clock.slept == [1.0, 2.0]
    assert ledger.results["a"].result == "done"


def test_hosts_share_their_clock_random_source_and_ledger_with_nested_effects() -> None:
    clock, rng, ledger = VirtualClock(), random.Random(1), DictLedger()
    for host in (Host(clock=clock, rng=rng, ledger=ledger), AsyncHost(clock=clock, rng=rng)):
        assert host.nested.clock is clock and host.nested.rng is rng
    assert Host(ledger=ledger).nested.ledger is ledger


def test_a_job_submitted_while_every_worker_is_busy_still_runs() -> None:
    nested = NestedEffects(VirtualClock(), random.Random(0))
    release = threading.Event()
    started = threading.Semaphore(0)

    def blocker() -> None:
        started.release()
        release.wait(10)

    blocked = [nested.submit(NestedEffect(f"b{i}", blocker)) for i in range(3)]
    for _ in range(3):
        assert started.acquire(timeout=10)
    assert nested.submit(NestedEffect("late", lambda: 1)).result(timeout=10) == 1
    release.set()
    for future in blocked:
        future.result(timeout=10)


def test_an_async_attempt_past_its_timeout_is_stopped_on_the_hosts_clock_and_retried() -> None:
    clock = VirtualClock()
    nested = NestedEffects(clock, random.Random(0))
    attempts: list[float] = []

    async def work() -> str:
        attempts.append(clock.now())
        if len(attempts) == 1:
            await asyncio.Event().wait()  # never set: stopped at its 2-second timeout
        return "done"

    def retry_timeouts(error: Exception) -> RetryPolicy | None:
        return RetryPolicy(max_attempts=2, initial_interval=0.5) if _timed_out(error) else None

    async def main() -> str:
        effect = NestedEffect("slow", work, retry=retry_timeouts, timeout=2.0)
        return await nested.schedule(effect, loop=asyncio.get_running_loop())

    assert asyncio.run(main()) == "done"
    assert attempts == [0.0, 2.5]  # stopped at 2.0, then the retry's 0.5 s backoff


def test_an_attempt_past_its_idle_timeout_fails_with_deadline_exceeded() -> None:
    clock = VirtualClock()
    nested = NestedEffects(clock, random.Random(0))

    async def stalls() -> None:
        await asyncio.Event().wait()  # no progress, ever

    async def main() -> None:
        effect = NestedEffect("idle", stalls, idle_timeout=3.0)
        await nested.schedule(effect, loop=asyncio.get_running_loop())

    with pytest.raises(DeadlineExceeded) as raised:
        asyncio.run(main())
    assert (raised.value.kind, raised.value.limit) == ("idle", 3.0)


def test_a_handler_gets_the_hosts_nested_effects_and_a_coroutine_one_runs_on_the_loop() -> None:
    seen: list[object] = []

    def handler(request: object, ctx: EffectContext) -> object:
        seen.append(ctx.nested)
        return request

    async def ahandler(request: object, ctx: EffectContext) -> object:
        seen.append((ctx.nested, threading.current_thread()))
        return request

    request = EffectRequest("e1", "n:1", "n", Effect("k", "payload"))
    host = Host({"k": handler})
    assert [r.result for r in host.perform("x", [request])] == ["payload"]
    assert seen == [host.nested]

    seen.clear()
    ahost = AsyncHost({"k": ahandler})
    done = asyncio.run(ahost.perform("x", [request]))
    assert [r.result for r in done] == ["payload"]
    assert seen == [(ahost.nested, threading.main_thread())]  # awaited, not in an executor


def _timed_out(error: Exception) -> bool:
    return isinstance(error, DeadlineExceeded)


def test_each_attempt_is_told_to_the_effects_observer_with_its_error_and_policy() -> None:
    clock = VirtualClock()
    nested = NestedEffects(clock, random.Random(0))
    told: list[tuple[int, float, str | None, int | None]] = []

    def observe(attempt: int, seconds: float, error: Exception | None, policy: object) -> None:
        most = policy.max_attempts if isinstance(policy, RetryPolicy) else None
        told.append((attempt, seconds, repr(error) if error else None, most))

    calls, work = flaky([KeyError("a"), TypeError("b")])
    effect = NestedEffect("e1", work, retry=first_match, observe=observe)
    assert nested.submit(effect).result(timeout=10) == "ok"
    assert len(calls) == 3
    # the policy that matched each failure; the wait comes after the attempt is told
    assert told == [
        (1, 0.0, "KeyError('a')", 2),
        (2, 0.0, "TypeError('b')", 5),
        (3, 0.0, None, None),
    ]

    # a final failure is told too (no policy matched it), then raised
    told.clear()
    _, work = flaky([ValueError("c")])
    with pytest.raises(ValueError):
        nested.perform(NestedEffect("e2", work, retry=first_match, observe=observe))
    assert told == [(1, 0.0, "ValueError('c')", None)]


def test_an_async_attempt_stopped_at_its_timeout_is_told_its_duration_and_knows_why() -> None:
    clock = VirtualClock()
    nested = NestedEffects(clock, random.Random(0))
    told: list[tuple[int, float, str]] = []
    seen: list[object] = []

    async def work() -> str:
        if not told:
            try:
                await asyncio.Event().wait()  # never set: stopped at its 2-second timeout
            except asyncio.CancelledError:
                seen.append(deadline_stop())  # the work can tell a timeout from a cancel
                raise
        seen.append(deadline_stop())
        return "done"

    def observe(attempt: int, seconds: float, error: Exception | None, policy: object) -> None:
        told.append((attempt, seconds, type(error).__name__))

    def retry_timeouts(error: Exception) -> RetryPolicy | None:
        return RetryPolicy(max_attempts=2, initial_interval=0.5) if _timed_out(error) else None

    async def main() -> str:
        effect = NestedEffect("slow", work, retry=retry_timeouts, timeout=2.0, observe=observe)
        return await nested.schedule(effect, loop=asyncio.get_running_loop())

    assert asyncio.run(main()) == "done"
    assert told == [(1, 2.0, "DeadlineExceeded"), (2, 0.0, "NoneType")]
    stop, after = seen
    assert isinstance(stop, DeadlineExceeded) and (stop.kind, stop.limit) == ("run", 2.0)
    assert after is None  # the retry runs unstopped
