"""`Host`: drives executions on threads. The effects of one superstep run concurrently on a
thread pool (inline when there is only one: no hand-off for the common case); their results
are delivered in request order, so the execution stays deterministic. Given a
`StreamMultiplexer`, a run pushes one committed ``"updates"`` chunk per committed superstep.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Unpack

from superstep_core.host.core import (
    DEFAULT_MAX_SUPERSTEPS,
    HostCore,
    HostOptions,
    RunOptions,
    _push_step,
    limit_error,
)
from superstep_core.host.effects import (
    EffectCancelledError,
    EffectTimeoutError,
    Handler,
    StepTimeoutError,
    failed,
    resolve,
)
from superstep_core.host.stream import StreamMultiplexer
from superstep_core.node import EffectCompleted, External
from superstep_core.runtime import (
    EffectRequest,
    Execution,
    OpenSuperstep,
    StepOutcome,
    WithinRetry,
)

__all__ = [
    "DEFAULT_MAX_SUPERSTEPS",
    "Host",
    "HostCore",
    "HostOptions",
    "RunOptions",
    "StepCallback",
    "limit_error",
]

StepCallback = Callable[[Execution, StepOutcome], None]


class Host(HostCore[Execution, Iterator[StepOutcome]]):
    """Performs effects, realises timers and times retry backoff for executions.

    ``handlers``: effect kind -> ``handler(request, ctx)``; ``clock``: `SystemClock` unless
    given (use `superstep_core.testing.VirtualClock` in tests); ``on_step`` is called after
    every superstep (progress reporting, checkpointing); ``ledger`` supplies recorded effect
    results so a recovered execution never performs a completed effect twice;
    ``max_supersteps`` bounds each run call (default `DEFAULT_MAX_SUPERSTEPS`; ``None``: no
    bound): past it the run raises `SuperstepLimitError` naming the cycle it went round, and
    the execution stays consistent at its last committed superstep. ``rng``: the random
    source of retry jitter (`RandomSource`: by default the `random` module; a seeded
    `random.Random` in tests). ``step_timeout``: seconds
    the effects of one superstep may take together (None: no bound); past it the run raises
    `StepTimeoutError` once they returned, without their results. Work an effect needs done
    while it runs goes through ``nested`` (`superstep_core.host.nested.NestedEffects`), on the
    same clock, random source and ledger.

    The run methods take an optional ``stream`` (one `StreamMultiplexer` per execution): after
    each committed superstep (and after ``on_step``, so a checkpoint written there precedes
    the chunk) the host pushes a committed chunk, mode ``"updates"``, ``ns=()``, data
    ``{"step": int, "written": {channel: committed value}}``. The host never terminates the
    stream, since an execution can be driven again (resumed, sent events): call
    ``stream.terminate()`` when done with it.
    """

    def __init__(
        self,
        handlers: Mapping[str, Handler] | None = None,
        *,
        max_workers: int = 8,
        on_step: StepCallback | None = None,
        **options: Unpack[HostOptions],
    ) -> None:
        super().__init__(handlers, options)
        self.max_workers = max_workers
        self.on_step = on_step
        self._pool: ThreadPoolExecutor | None = None

    # --- the loop ------------------------------------------------------------------------------

    def _drive(self, ex: Execution, steps: Iterator[StepOutcome]) -> Execution:
        for _ in steps:
            pass
        return ex

    def send(
        self,
        ex: Execution,
        event: External,
        *,
        run: bool = True,
        stream: StreamMultiplexer | None = None,
    ) -> Execution:
        """`HostCore.send`; with ``run=False`` the event is only queued."""
        if run:
            return super().send(ex, event, stream=stream)
        ex.send(event)
        return ex

    def _iterate(self, ex: Execution, options: RunOptions) -> Iterator[StepOutcome]:
        stream = options.get("stream")
        steps = self._steps(ex, options.get("until"), options.get("stop"), options.get("steps"))
        for step in steps:
            if isinstance(step, OpenSuperstep):  # its within-step effects, on the pool
                pending = step.effects
                if self.on_perform is not None:
                    self.on_perform(pending)
                if self.step_timeout is not None:
                    key = (ex.execution_id, step.step)
                    step.supply(self._perform_within(ex.execution_id, pending, key, step))
                elif len(pending) == 1:  # one frame less (a subgraph pays it per level)
                    request = pending[0]
                    result = self._call(ex.execution_id, request)
                    while (again := step.retry_within(request, result)) is not None:
                        result = self._call_again(ex.execution_id, again, request.effect_id)
                        request = again.request
                    if self.on_result is not None:
                        self.on_result(request, result)
                    step.supply([result])
                else:
                    step.supply(self.perform(ex.execution_id, pending, step))
                continue
            if isinstance(step, float):
                self.clock.sleep(step)
                continue
            if self.on_step is not None:
                self.on_step(ex, step)
            if stream is not None:
                _push_step(stream, ex, step)
            effects = step.effects
            if effects:
                if self.on_perform is not None:
                    self.on_perform(effects)
                if self.step_timeout is not None:
                    for result in self._perform_within(ex.execution_id, effects, None):
                        ex.deliver(result)
                elif len(effects) == 1:  # the common case, one frame less (see `_call`)
                    ex.deliver(self._call(ex.execution_id, effects[0]))
                else:
                    for result in self.perform(ex.execution_id, effects):
                        ex.deliver(result)
            yield step

    def perform(
        self,
        execution_id: str,
        requests: list[EffectRequest],
        step: OpenSuperstep | None = None,
    ) -> list[EffectCompleted]:
        """Perform ``requests`` (concurrently when several, started in `launch_key` order)
        and return their results in request order. A result in the ledger is returned
        without performing anything. ``step``: the open superstep they are the within-step
        effects of; an effect it says to retry is retried in its worker as soon as it fails
        (`OpenSuperstep.retry_within`), and its last result is the one returned."""
        launched, in_request_order = self._launched(requests)
        return in_request_order(self._perform(execution_id, launched, step))

    def _perform(
        self, execution_id: str, requests: list[EffectRequest], step: OpenSuperstep | None
    ) -> list[EffectCompleted]:
        observe = self.on_result
        if len(requests) == 1:
            request = requests[0]
            result = self._call(execution_id, request)
            if step is not None:
                while (again := step.retry_within(request, result)) is not None:
                    result = self._call_again(execution_id, again, request.effect_id)
                    request = again.request
            if observe is not None:
                observe(request, result)
            return [result]
        results: list[EffectCompleted | None] = [None] * len(requests)
        if requests:
            # One hand-off per worker, not per effect: each worker takes the next effect
            # until none is left (a wide fan-out would otherwise pay a future per effect).
            jobs = iter(enumerate(requests))
            lock = threading.Lock()
            stopped = False

            def drain() -> None:
                nonlocal stopped
                while True:
                    with lock:
                        job = None if stopped else next(jobs, None)
                    if job is None:
                        return
                    i, request = job
                    result = self._call(execution_id, request)
                    if step is not None:
                        while True:
                            with lock:  # the execution decides one result at a time
                                again = step.retry_within(request, result)
                            if again is None:
                                break
                            result = self._call_again(execution_id, again, request.effect_id)
                            request = again.request
                    results[i] = result
                    if observe is not None:
                        with lock:  # one observer call at a time, as on the asyncio host
                            if observe(request, result):
                                stopped = True

            pool = self._executor()
            # each worker runs in a copy of the caller's context (a context can be entered by
            # one thread at a time): effects see the context variables the caller set, as they
            # do when one effect runs in the caller's own thread
            workers = [
                pool.submit(contextvars.copy_context().run, drain)
                for _ in range(min(self.max_workers, len(requests)))
            ]
            for worker in workers:
                worker.result()
            for i, request in enumerate(requests):
                if results[i] is None:  # never started: its sibling stopped the superstep
                    results[i] = failed(request, EffectCancelledError(request))
        return [r for r in results if r is not None]

    def _perform_within(
        self,
        execution_id: str,
        effects: list[EffectRequest],
        key: tuple[str, int] | None,
        step: OpenSuperstep | None = None,
    ) -> list[EffectCompleted]:
        """`perform` under the host's ``step_timeout``, counted from the first batch of an
        open superstep ``key`` (else from now). A thread cannot be cancelled: an overrun is
        reported once the effects returned, as `StepTimeoutError` instead of their results."""
        limit = self.step_timeout
        assert limit is not None
        started = self._step_started(key, self.clock.now())
        results = self.perform(execution_id, effects, step)
        elapsed = self.clock.now() - started
        if elapsed > limit:
            raise StepTimeoutError(limit, elapsed)
        return results

    def _call(
        self, execution_id: str, request: EffectRequest, retried: bool = False
    ) -> EffectCompleted:
        """Perform one effect in this thread: its recorded result, else its handler's (then
        recorded). One function from the host's loop to the handler: a subgraph run inside
        an effect pays each frame here once per nesting level. ``retried``: a retry of the
        result just recorded under its id (a within-step retry keeps the id): performed."""
        ledger = self.ledger
        if (
            ledger is not None
            and not retried
            and (recorded := ledger.recorded(request.effect_id)) is not None
        ):
            return recorded
        try:
            call = resolve(self.handlers, request, execution_id, self.nested)
        except Exception as e:
            return failed(request, e)
        self.performed[request.effect_id] = self.performed.get(request.effect_id, 0) + 1
        timeout = request.effect.timeout
        started = self.clock.now() if timeout is not None else 0.0
        try:
            value = call()
            if timeout is not None and (elapsed := self.clock.now() - started) > timeout:
                # a thread cannot be cancelled: the overrun is reported once it returns
                raise EffectTimeoutError(request, timeout, elapsed)
            result = EffectCompleted(request.effect_id, value, None, request.effect.tag)
        except Exception as e:
            result = failed(request, e)
        if ledger is not None and result.error is None:
            ledger.record(result)
        return result

    def _call_again(self, execution_id: str, again: WithinRetry, previous: str) -> EffectCompleted:
        """Perform a within-step retry in this thread after its backoff, slept on the
        host's clock (its jitter drawn from the host's random source)."""
        self.clock.sleep(self._backoff(again))
        request = again.request
        return self._call(execution_id, request, request.effect_id == previous)

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.max_workers, thread_name_prefix="superstep")
        return self._pool

    def close(self) -> None:
        """Wait for the background writes (their failure stays for `OrderedWrites.settle`)
        and shut the thread pool down (idempotent)."""
        if self._writes is not None:
            self._writes.wait()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def __enter__(self) -> Host:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
