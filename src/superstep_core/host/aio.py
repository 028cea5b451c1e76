"""`AsyncHost`: the same semantics as `Host` on asyncio. Coroutine handlers are awaited
concurrently; plain handlers run in the loop's default executor, in a copy of the caller's
context (a `SplitHandler` picks one of the two per effect); results are delivered in request
order.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from typing import Any, Unpack

from superstep_core.host.core import HostCore, HostOptions, RunOptions, _push_step
from superstep_core.host.deadlines import DeadlineExceeded, within
from superstep_core.host.effects import (
    EffectCancelledError,
    EffectTimeoutError,
    Handler,
    ResultObserver,
    StepTimeoutError,
    completed,
    failed,
    recording,
    resolve,
)
from superstep_core.node import EffectCompleted
from superstep_core.runtime import EffectRequest, Execution, OpenSuperstep, StepOutcome

__all__ = ["AsyncHost"]

AsyncStepCallback = Callable[[Execution, StepOutcome], Awaitable[None] | None]


class AsyncHost(HostCore[Coroutine[Any, Any, Execution], AsyncIterator[StepOutcome]]):
    """Asyncio twin of `superstep_core.host.Host` (same arguments; its run methods return
    awaitables: ``await host.run_graph(...)``; the same optional ``stream``), over the same
    `HostCore`. ``max_concurrency`` bounds how many effects are in flight at once, as
    ``max_workers`` does for `Host`. ``step_timeout`` (seconds on the clock, None: no bound)
    bounds the effects a superstep requested, from when they start: past it those still
    running are cancelled (their cleanup awaited) and `StepTimeoutError` ends the run
    (`Host`: once they returned)."""

    def __init__(
        self,
        handlers: Mapping[str, Handler] | None = None,
        *,
        on_step: AsyncStepCallback | None = None,
        max_concurrency: int | None = None,
        **options: Unpack[HostOptions],
    ) -> None:
        super().__init__(handlers, options)
        self.on_step = on_step
        self.max_concurrency = max_concurrency
        """At most this many effects performed at once (None: all of a superstep's)."""

    async def _drive(self, ex: Execution, steps: AsyncIterator[StepOutcome]) -> Execution:
        async for _ in steps:
            pass
        return ex

    async def _iterate(self, ex: Execution, options: RunOptions) -> AsyncIterator[StepOutcome]:
        stream = options.get("stream")
        steps = self._steps(ex, options.get("until"), options.get("stop"), options.get("steps"))
        for step in steps:
            if isinstance(step, float):
                await self.clock.asleep(step)
                continue
            if isinstance(step, OpenSuperstep):  # its within-step effects, under the bound
                if self.on_perform is not None:
                    self.on_perform(step.effects)
                effects = step.effects
                key = (ex.execution_id, step.step)
                step.supply(await self._perform_step(ex.execution_id, effects, key, step))
                continue
            if self.on_step is not None:
                maybe = self.on_step(ex, step)
                if inspect.isawaitable(maybe):
                    await maybe
            if stream is not None:
                _push_step(stream, ex, step)
            if step.effects:
                if self.on_perform is not None:
                    self.on_perform(step.effects)
                for result in await self._perform_step(ex.execution_id, step.effects, None):
                    ex.deliver(result)
            yield step

    async def perform(
        self,
        execution_id: str,
        requests: list[EffectRequest],
        step: OpenSuperstep | None = None,
    ) -> list[EffectCompleted]:
        """Perform ``requests`` concurrently (started in `launch_key` order) and return
        their results in request order. ``step``: as `Host.perform` (a failed effect it
        says to retry is retried in its own task, as soon as it fails)."""
        launched, in_request_order = self._launched(requests)
        return in_request_order(await self._perform(execution_id, launched, step))

    async def _perform(
        self, execution_id: str, requests: list[EffectRequest], step: OpenSuperstep | None
    ) -> list[EffectCompleted]:
        # the request a result finally came from, by the effect id it was asked under (a
        # retry's attempt number, a failure route's activation): what the observer is told
        last: dict[str, EffectRequest] = {}

        async def one(request: EffectRequest) -> EffectCompleted:
            result = await attempt(request)
            if step is not None:
                asked = request.effect_id
                # one loop thread: the execution decides one result at a time
                while (again := step.retry_within(request, result)) is not None:
                    await self.clock.asleep(self._backoff(again))
                    # a retry keeps its id: performed, not answered by the ledger
                    retried = again.request.effect_id == request.effect_id
                    request = again.request
                    result = await attempt(request, retried)
                    last[asked] = request
            return result

        async def attempt(request: EffectRequest, retried: bool = False) -> EffectCompleted:
            ledger = self.ledger
            recorded = ledger.recorded(request.effect_id) if ledger and not retried else None
            if recorded is not None:
                return recorded
            self.performed[request.effect_id] = self.performed.get(request.effect_id, 0) + 1
            try:
                call = resolve(self.handlers, request, execution_id, self.nested, on_loop=True)
                effect = request.effect
                if effect.timeout is None and effect.idle_timeout is None:
                    value = await _invoke(call)
                else:
                    value = await self._within(request, call)
                result = completed(request, value)
            except Exception as e:
                return failed(request, e)
            if self.ledger is not None:
                block = recording(self.ledger, result)  # the ledger's arecord, if I/O
                await block.aio(*block.args)
            return result

        observe = self.on_result
        if observe is None:
            if len(requests) == 1:
                return [await one(requests[0])]
            limit = self.max_concurrency
            if limit is None or limit >= len(requests):
                return list(await asyncio.gather(*(one(r) for r in requests)))
        gate = asyncio.Semaphore(self.max_concurrency or len(requests) or 1)

        async def gated(request: EffectRequest) -> EffectCompleted:
            # a wide fan-out under a bound: each waits its turn, results still in request order
            async with gate:
                return await one(request)

        if observe is None:
            return list(await asyncio.gather(*(gated(r) for r in requests)))
        told = observe

        def observe_last(request: EffectRequest, result: EffectCompleted) -> bool | None:
            return told(last.get(request.effect_id, request), result)

        return await _observed(requests, gated, observe_last)

    async def _perform_step(
        self,
        execution_id: str,
        requests: list[EffectRequest],
        key: tuple[str, int] | None,
        step: OpenSuperstep | None = None,
    ) -> list[EffectCompleted]:
        """`perform`, under ``step_timeout`` when one is set: counted from the first batch
        of an open superstep ``key`` (its later rounds get what is left), else from now."""
        limit = self.step_timeout
        if limit is None:
            return await self.perform(execution_id, requests, step)
        now = self.clock.now()
        started = self._step_started(key, now)
        left = started + limit - now
        try:
            if left <= 0:
                raise DeadlineExceeded("run", limit, now - started)
            results: list[EffectCompleted] = await within(
                self.clock, lambda: self.perform(execution_id, requests, step), timeout=left
            )
        except DeadlineExceeded:
            raise StepTimeoutError(limit, self.clock.now() - started) from None
        return results

    async def _within(self, request: EffectRequest, call: Callable[[], Any]) -> Any:
        """``call``'s result, or `EffectTimeoutError` once its effect's ``timeout`` has
        passed on the host's clock, or its ``idle_timeout`` without a `heartbeat` (the call
        is then cancelled)."""
        effect = request.effect
        try:
            return await within(
                self.clock,
                lambda: _invoke(call),
                timeout=effect.timeout,
                idle_timeout=effect.idle_timeout,
            )
        except DeadlineExceeded as e:
            raise EffectTimeoutError(request, e.limit, e.elapsed, e.kind) from None


async def _observed(
    requests: list[EffectRequest],
    perform: Callable[[EffectRequest], Awaitable[EffectCompleted]],
    observe: ResultObserver,
) -> list[EffectCompleted]:
    """Perform ``requests`` concurrently, handing each result to ``observe`` as it arrives;
    once ``observe`` returns True the others are cancelled and come back failed with
    `EffectCancelledError`. Cancelled from outside, every effect still running is cancelled
    and awaited (its own cleanup runs) before the cancellation goes on. Results in request
    order."""
    tasks = [asyncio.ensure_future(perform(r)) for r in requests]
    results: dict[int, EffectCompleted] = {}
    index = {task: i for i, task in enumerate(tasks)}
    try:
        waiting = set(tasks)
        stop = False
        while waiting and not stop:
            done, waiting = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
            # completion order within one wake-up is not observable: keep request order
            for task in sorted(done, key=index.__getitem__):
                result = task.result()
                results[index[task]] = result
                if observe(requests[index[task]], result) and not stop:
                    stop = True
        if waiting:
            for task in waiting:
                task.cancel()
            await asyncio.wait(waiting)
            for task in waiting:
                i = index[task]
                if task.cancelled() or task.exception() is not None:
                    results[i] = failed(requests[i], EffectCancelledError(requests[i]))
                else:  # it finished before the cancellation reached it
                    results[i] = task.result()
    except BaseException:
        # the caller was cancelled (or a result observer raised): stop every effect and let
        # each finish its own cleanup before the error goes on
        running = [t for t in tasks if not t.done()]
        for task in running:
            task.cancel()
        if running:
            await asyncio.shield(asyncio.wait(running))
        raise
    return [results[i] for i in range(len(requests))]


async def _invoke(call: Callable[[], Any]) -> Any:
    """Await a coroutine function; run a plain callable in the loop's default executor, in a
    copy of the current context (what the caller's context variables hold, it sees)."""
    if inspect.iscoroutinefunction(call):
        return await call()
    context = contextvars.copy_context()
    value = await asyncio.get_running_loop().run_in_executor(None, context.run, call)
    if inspect.isawaitable(value):
        value = await value
    return value
