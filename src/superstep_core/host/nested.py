"""Nested effects: work that an effect asks the host for while the host performs it.

An effect performed for a node may itself need work done concurrently, and wait for it (the
functional API's ``@task`` calls, made from inside a node's or an entrypoint's work). Such a
call is an effect of the running effect, and the host performs it like any other:

- on the host's worker threads (a sync call) or on the caller's event loop (an async one);
- under its run timeout and idle timeout (an async one: the hosts' deadline mechanism,
  `superstep_core.host.deadlines.within`, on the host's clock): an attempt past either limit
  is cancelled and fails with `DeadlineExceeded`;
- retried under the engine's `RetryPolicy`: the effect's ``retry`` picks the policy for each
  failure (or none: the failure is final), the attempt counts across policies as the
  runtime's do, and the wait is ``policy.backoff(attempt)`` plus up to ``policy.jitter``
  seconds drawn from the host's random source, slept on the host's clock; each attempt's
  end (its duration, error and the policy that matched it) is told to the effect's
  ``observe``, when it has one (none: nothing is timed);
- through the ledger: every ledger the call is given, and the host's own, is consulted by the
  effect's id before anything runs (a recorded result is returned without calling the work
  again: recovery, replay), and a result is recorded in each of them before the caller sees
  it.

The worker threads are elastic, not a bounded pool: a nested effect may wait on another
nested effect, so a bounded pool could deadlock once every worker waits on work queued behind
it. A job goes to an idle thread if there is one, else to a new thread; idle threads exit
after `IDLE_SECONDS`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple

from superstep_core.host.clock import Clock
from superstep_core.host.deadlines import within
from superstep_core.host.effects import EffectLedger, recording
from superstep_core.host.timers import RandomSource
from superstep_core.node import EffectCompleted, RetryPolicy
from superstep_core.twin import Block, Twin, adrive, async_only, drive, sync_only

__all__ = ["IDLE_SECONDS", "AttemptObserver", "NestedEffect", "NestedEffects"]

IDLE_SECONDS = 30.0
"""Seconds an idle worker thread of nested effects waits for a job before it exits."""

RetryChooser = Callable[[Exception], RetryPolicy | None]
AttemptObserver = Callable[[int, float, Exception | None, RetryPolicy | None], None]
"""Told how each attempt of a nested effect ended: ``(attempt, seconds, error, policy)``:
the attempt's number (1-based), its duration in seconds on the host's clock, the exception
that ended it (None: it succeeded) and the retry policy that matched that exception (None:
none did, the failure is final). Called on the thread (or loop) that made the attempt, before
any retry wait; it must not raise."""


class NestedEffect(NamedTuple):
    """One nested effect. ``effect_id``: its idempotency key, derived by the caller so that
    the same call in a re-run of the same work has the same id (the ledger's key); ``work``:
    a zero-argument callable (for `NestedEffects.submit`) or coroutine function (for
    `NestedEffects.perform_async`); ``tag`` comes back on the recorded `EffectCompleted`;
    ``retry``: the policy that decides a failure's retry, or None for a final failure
    (absent: failures are final); ``timeout`` and ``idle_timeout``: seconds on the host's
    clock an attempt of a coroutine function may run, and run without a `heartbeat` (an
    attempt past either fails with `DeadlineExceeded`, which ``retry`` may retry). A named
    tuple: one is made per call, and a frozen dataclass costs several times as much to
    build."""

    effect_id: str
    work: Callable[[], Any]
    tag: str = ""
    retry: RetryChooser | None = None
    timeout: float | None = None
    idle_timeout: float | None = None
    observe: AttemptObserver | None = None


class NestedEffects:
    """Performs the nested effects of one host's effects (see the module docstring).

    ``clock``, ``rng`` and ``ledger`` are the host's: retry waits are slept on ``clock`` with
    jitter from ``rng``; ``ledger`` (optional) holds every completed nested effect, beside the
    ledgers a call is given."""

    def __init__(self, clock: Clock, rng: RandomSource, ledger: EffectLedger | None = None) -> None:
        self.clock = clock
        self.rng = rng
        self.ledger = ledger
        self.performed: dict[str, int] = {}
        """Attempts made, by effect id (a recorded result makes none)."""

    # --- the shared core ---------------------------------------------------------------------

    def recorded(self, effect: NestedEffect, ledgers: Sequence[EffectLedger]) -> Any:
        """The recorded `EffectCompleted` of ``effect`` in the first of ``ledgers`` and the
        host's ledger that holds one, or None (then it must be performed)."""
        for ledger in self._ledgers(ledgers):
            found = ledger.recorded(effect.effect_id)
            if found is not None and found.error is None:
                return found
        return None

    def _ledgers(self, ledgers: Sequence[EffectLedger]) -> Sequence[EffectLedger]:
        return ledgers if self.ledger is None else (*ledgers, self.ledger)

    def _attempted(self, effect: NestedEffect) -> None:
        # no lock: only the one thread performing an effect counts its attempts
        self.performed[effect.effect_id] = self.performed.get(effect.effect_id, 0) + 1

    def wait_before_retry(
        self, effect: NestedEffect, error: Exception, attempt: int
    ) -> float | None:
        """Seconds to wait before attempt ``attempt + 1`` after ``error`` ended attempt
        ``attempt`` (1-based), or None when the failure is final."""
        policy = effect.retry(error) if effect.retry is not None else None
        return self._wait(policy, attempt)

    def _wait(self, policy: RetryPolicy | None, attempt: int) -> float | None:
        if policy is None or attempt >= policy.max_attempts:
            return None
        wait = policy.backoff(attempt)
        if policy.jitter > 0:
            wait += self.rng.uniform(0, policy.jitter)
        return wait

    def _failed(
        self, effect: NestedEffect, error: Exception, attempt: int, started: float
    ) -> float | None:
        """`wait_before_retry`, telling ``effect.observe`` (if any) how the attempt ended."""
        policy = effect.retry(error) if effect.retry is not None else None
        if effect.observe is not None:
            effect.observe(attempt, self.clock.now() - started, error, policy)
        return self._wait(policy, attempt)

    def _record(
        self, effect: NestedEffect, value: Any, ledgers: Sequence[EffectLedger]
    ) -> Twin[Any]:
        done = EffectCompleted(effect.effect_id, result=value, tag=effect.tag)
        for ledger in self._ledgers(ledgers):
            yield recording(ledger, done)  # awaited on a loop when the ledger writes async
        return value

    def _attempts(
        self, effect: NestedEffect, ledgers: Sequence[EffectLedger], consulted: bool, work: Block
    ) -> Twin[Any]:
        """The attempt loop of ``effect``, written once for `perform` and `perform_async`
        (see `superstep_core.twin`): the recorded result, else attempts (each the block
        ``work``) with retry waits on the host's clock, the result recorded; the last
        failure is raised."""
        found = self.recorded(effect, () if consulted else ledgers)
        if found is not None:
            return found.result
        attempt = 0
        observe = effect.observe
        clock = self.clock
        started = 0.0
        while True:
            attempt += 1
            self._attempted(effect)
            if observe is not None:
                started = clock.now()
            try:
                value = yield work
            except Exception as error:
                wait = self._failed(effect, error, attempt, started)
                if wait is None:
                    raise
                yield Block(clock.sleep, clock.asleep, (wait,))
                continue
            if observe is not None:
                observe(attempt, clock.now() - started, None, None)
            return (yield from self._record(effect, value, ledgers))

    # --- sync: the host's worker threads -----------------------------------------------------

    def perform(
        self, effect: NestedEffect, ledgers: Sequence[EffectLedger] = (), consulted: bool = False
    ) -> Any:
        """Perform ``effect`` in the calling thread (recorded result, else attempts with
        retry waits) and return its result; the last failure is raised. ``consulted``: the
        caller looked ``effect`` up in ``ledgers`` just before (and found nothing), so only
        the host's own ledger is consulted here; the result is recorded in all of them."""
        return drive(self._attempts(effect, ledgers, consulted, sync_only(effect.work)))

    def submit(
        self, effect: NestedEffect, ledgers: Sequence[EffectLedger] = ()
    ) -> concurrent.futures.Future[Any]:
        """`perform` on a worker thread; the future holds its result or its final error.
        ``effect.work`` runs in the worker thread: bind whatever context it needs in it."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def done(value: Any, error: BaseException | None) -> None:
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(value)

        self.start(effect, ledgers, done)
        return future

    def start(
        self,
        effect: NestedEffect,
        ledgers: Sequence[EffectLedger],
        done: Callable[[Any, BaseException | None], None],
        consulted: bool = False,
    ) -> None:
        """`perform` on a worker thread, then ``done(result, None)`` or ``done(None,
        error)`` in that thread (`submit` without a future of its own: a caller that
        completes its own future saves one). ``consulted``: as for `perform`."""

        def job() -> None:
            try:
                value = self.perform(effect, ledgers, consulted)
            except BaseException as error:
                done(None, error)
            else:
                done(value, None)

        _pool.submit(job)

    # --- async: the caller's event loop ------------------------------------------------------

    async def perform_async(
        self, effect: NestedEffect, ledgers: Sequence[EffectLedger] = (), consulted: bool = False
    ) -> Any:
        """`perform` for a coroutine function ``effect.work``: attempts are awaited (under the
        effect's timeouts, on the host's clock), retry waits slept with ``clock.asleep``."""
        timeout, idle_timeout = effect.timeout, effect.idle_timeout
        if timeout is None and idle_timeout is None:
            work = async_only(effect.work)
        else:
            limits = partial(within, self.clock, timeout=timeout, idle_timeout=idle_timeout)
            work = async_only(limits, effect.work)
        return await adrive(self._attempts(effect, ledgers, consulted, work))

    def schedule(
        self,
        effect: NestedEffect,
        ledgers: Sequence[EffectLedger] = (),
        *,
        loop: asyncio.AbstractEventLoop,
        context: Any = None,
        consulted: bool = False,
    ) -> asyncio.Task[Any]:
        """`perform_async` as a task of ``loop`` (the caller's running loop), run in
        ``context`` (a `contextvars.Context`; default: a copy of the current one)."""
        return loop.create_task(self.perform_async(effect, ledgers, consulted), context=context)


class _ElasticPool:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._idle = 0  # threads waiting for a job that no submit has claimed yet

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            claimed = self._idle > 0
            if claimed:
                self._idle -= 1
            self._jobs.put(job)  # under the lock: an idle thread sees it before it may exit
        if not claimed:
            threading.Thread(target=self._work, name="superstep-nested", daemon=True).start()

    def _work(self) -> None:
        jobs = self._jobs
        while True:
            try:
                job = jobs.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._idle > 0 and jobs.empty():
                        self._idle -= 1
                        return
                continue
            job()  # jobs report through the future they complete; they never raise
            # not kept while the thread waits for the next one: what the job refers to
            # (the caller's scope, its futures) is freed with the run that made it
            del job
            with self._lock:
                self._idle += 1


_pool = _ElasticPool()
