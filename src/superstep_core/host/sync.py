"""`Host`: drives executions on threads. The effects of one superstep run concurrently on a
thread pool (inline when there is only one: no hand-off for the common case); their results
are delivered in request order, so the execution stays deterministic. Given a
`StreamMultiplexer`, a run pushes one committed ``"updates"`` chunk per committed superstep.
"""

from __future__ import annotations

import contextvars
import random
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generic, TypedDict, TypeVar, Unpack

from superstep_core.errors import SuperstepLimitError
from superstep_core.graph import CompiledGraph
from superstep_core.host.clock import Clock, SystemClock
from superstep_core.host.effects import (
    EffectCancelledError,
    EffectLedger,
    EffectTimeoutError,
    Handler,
    ResultObserver,
    StepTimeoutError,
    completed,
    failed,
    resolve,
)
from superstep_core.host.nested import NestedEffects
from superstep_core.host.stop import RunStopped, StopRequest
from superstep_core.host.stream import StreamMultiplexer
from superstep_core.host.timers import DueTimer, RandomSource, TimerTable
from superstep_core.node import EffectCompleted, External
from superstep_core.runtime import (
    EffectRequest,
    Execution,
    OpenSuperstep,
    Status,
    StepOutcome,
    TimerRequest,
)

__all__ = [
    "DEFAULT_MAX_SUPERSTEPS",
    "Host",
    "HostCore",
    "RunOptions",
    "StepCallback",
    "limit_error",
]

StepCallback = Callable[[Execution, StepOutcome], None]

DEFAULT_MAX_SUPERSTEPS = 100_000
"""Supersteps a host drives one execution through, per run call, before it raises
`SuperstepLimitError` (as the CLI's ``--max-supersteps``); ``None`` removes the bound."""


RunT = TypeVar("RunT")
"""What a host's run methods return: the execution (`Host`), or an awaitable of it
(`AsyncHost`)."""
StepsT = TypeVar("StepsT")
"""What a host's `iterate` returns: an iterator of step outcomes, or an async one."""


class RunOptions(TypedDict, total=False):
    """How one run call drives an execution (`HostCore.run`, `HostCore.iterate`; every key
    optional, each defaulting to None): ``until``, a clock reading to stop waiting for timers
    at; ``stream``, the `StreamMultiplexer` to push committed chunks to; ``stop``, a
    `StopRequest` honoured at superstep boundaries; ``steps``, the most supersteps to run."""

    until: float | None
    stream: StreamMultiplexer | None
    stop: StopRequest | None
    steps: int | None


class HostCore(Generic[RunT, StepsT]):
    """What `Host` and its asyncio twin `AsyncHost` share, written once: their handlers,
    clock, ledger, superstep bound, random source and nested effects, starting and feeding
    executions, and the loop that drives one (`_steps`), which leaves to each host only
    how it waits and how it performs a superstep's effects (its `run` and `iterate`)."""

    def __init__(
        self,
        handlers: Mapping[str, Handler] | None,
        clock: Clock | None,
        ledger: EffectLedger | None,
        max_supersteps: int | None,
        rng: RandomSource | None,
    ) -> None:
        self.handlers: dict[str, Handler] = dict(handlers or {})
        self.clock: Clock = clock or SystemClock()
        self.ledger = ledger
        self.max_supersteps = max_supersteps
        self.performed: dict[str, int] = {}
        self.rng: RandomSource = rng if rng is not None else random
        self.nested = NestedEffects(self.clock, self.rng, ledger)
        """Performs the nested effects of this host's effects (`NestedEffects`)."""
        self._timers: dict[str, TimerTable] = {}
        self._runs = 0
        self.on_result: ResultObserver | None = None
        """Sees each effect's result as it is performed and may stop the superstep's
        other effects (`ResultObserver`)."""
        self.on_perform: Callable[[list[EffectRequest]], None] | None = None
        """Sees each batch of a superstep's effects, in request order, just before the host
        performs them (a caller announces them, e.g. streams their starts in that order)."""
        self.launch_key: Callable[[EffectRequest], Any] | None = None
        """The order the host starts a batch of concurrent effects in: sorted (stably) by
        this key, request order when None. Results still come back in request order; only
        which effect gets a worker first changes (e.g. a caller's fan-out items first)."""

    def _launch_order(self, requests: list[EffectRequest]) -> list[int] | None:
        """The indexes of ``requests`` in the order to start them (`launch_key`), or None
        when that is request order."""
        key = self.launch_key
        if key is None or len(requests) < 2:
            return None
        order = sorted(range(len(requests)), key=lambda i: key(requests[i]))
        return None if all(i == k for k, i in enumerate(order)) else order

    @staticmethod
    def _in_request_order(
        order: list[int], results: list[EffectCompleted]
    ) -> list[EffectCompleted]:
        """``results`` of requests started in ``order`` (`_launch_order`), back in request
        order."""
        back = list(results)
        for k, i in enumerate(order):
            back[i] = results[k]
        return back

    def start(
        self,
        graph: CompiledGraph,
        *,
        execution_id: str | None = None,
        payload: Any = None,
        updates: Mapping[str, Any] | None = None,
    ) -> Execution:
        """Start an execution (not yet run). The id defaults to ``<graph name>-<n>``."""
        if execution_id is None:
            self._runs += 1
            execution_id = f"{graph.name}-{self._runs}"
        return Execution.start(graph, execution_id, payload=payload, updates=updates)

    # --- starting and feeding executions (each host's `run` drives them) -------------------

    def run(self, ex: Execution, **options: Unpack[RunOptions]) -> RunT:
        """Drive ``ex`` until it completes, fails, suspends, or listens with no timer due
        before ``until`` (a clock reading; ``None``: return as soon as only listeners
        without timers remain, or wait for every armed timer). Given ``stop`` (a
        `StopRequest`), a request made meanwhile ends the run at the next superstep boundary
        with work left: `RunStopped` (the execution stays consistent; run it again later).
        ``steps``: return after that many supersteps (and the effects they requested) even
        if more could run (``0`` only fires the timers already due; ``None``: no limit).
        ``stream``: see `Host`. Returns ``ex`` (`Host`), or an awaitable of it
        (`AsyncHost`). TypeError for a keyword `RunOptions` does not name."""
        return self._drive(ex, self.iterate(ex, **options))

    def iterate(self, ex: Execution, **options: Unpack[RunOptions]) -> StepsT:
        """`run`, one superstep at a time: yields each superstep's outcome after its effects
        were performed and their results queued (`Host`: a generator; `AsyncHost`: an async
        one). Closing it stops the run between supersteps (the execution stays consistent
        and can be driven again), as does a ``stop`` request (raising `RunStopped`, see
        `run`). TypeError for a keyword `RunOptions` does not name."""
        unknown = options.keys() - RunOptions.__optional_keys__
        if unknown:
            raise TypeError(f"iterate/run got unexpected keyword arguments {sorted(unknown)}")
        return self._iterate(ex, options)

    def _iterate(self, ex: Execution, options: RunOptions) -> StepsT:
        """`iterate` with its options checked: each host's loop over `_steps`."""
        raise NotImplementedError

    def _drive(self, ex: Execution, steps: StepsT) -> RunT:
        """Exhaust ``steps`` (what `iterate` returned), then hand back ``ex``."""
        raise NotImplementedError

    def run_graph(
        self,
        graph: CompiledGraph,
        *,
        execution_id: str | None = None,
        payload: Any = None,
        updates: Mapping[str, Any] | None = None,
        until: float | None = None,
        stream: StreamMultiplexer | None = None,
    ) -> RunT:
        """`start` then `run`."""
        ex = self.start(graph, execution_id=execution_id, payload=payload, updates=updates)
        return self.run(ex, until=until, stream=stream)

    def send(
        self, ex: Execution, event: External, *, stream: StreamMultiplexer | None = None
    ) -> RunT:
        """Queue ``event`` for ``ex``, then `run` it."""
        ex.send(event)
        return self.run(ex, stream=stream)

    def resume(
        self,
        ex: Execution,
        value: Any,
        activation_id: str | None = None,
        *,
        stream: StreamMultiplexer | None = None,
    ) -> RunT:
        """Answer the suspended activation (``activation_id``; the only one if None) with
        ``value``, then `run` ``ex``."""
        ex.resume(value, activation_id)
        return self.run(ex, stream=stream)

    def timers(self, execution_id: str) -> TimerTable:
        """The timer table of execution ``execution_id`` (created empty on first use). A
        caller that restores an execution arms its recorded deadlines here before running
        it (`TimerTable.arm`); the run loop arms and fires the rest."""
        table = self._timers.get(execution_id)
        if table is None:
            table = self._timers[execution_id] = TimerTable(self.rng)
        return table

    def _steps(
        self,
        ex: Execution,
        until: float | None,
        stop: StopRequest | None = None,
        limit: int | None = None,
    ) -> Iterator[StepOutcome | OpenSuperstep | float]:
        """The run loop of ``ex`` (see `Host.run`) as what the host must do next: perform
        the within-step effects of an open superstep (``effects``, supplied back before
        the host asks for the next item), a superstep's outcome (its callback, stream chunk
        and effects; the loop goes on when the host asks for the next item), or seconds to
        wait on the clock, after which the timers then due fire (due by the reading the
        wait was for: a clock's sleep returns no earlier, so none is waited for twice). A
        timer armed by the superstep just before the wait (a retry's backoff) is waited for
        in full, from the wait on: LangGraph sleeps a whole backoff after a failure,
        whatever bookkeeping came between. A suspended execution still gets the timers
        already due (an interrupt's deadline), never waits for later ones. ``limit``:
        return before a superstep past that many (timers due meanwhile still fire). Raises
        `RunStopped` at a boundary where ``stop`` was requested and work is left."""
        timers = self.timers(ex.execution_id)
        steps = 0
        fresh: set[tuple[str, str]] = set()  # timers the last superstep armed, not waited for
        recent: deque[StepOutcome] = deque(maxlen=64)  # to name the cycle of a runaway run
        while ex.failure is None:
            # A stop takes effect only where no performed effect's result waits in the
            # queue: those results are delivered (committed) first, so no work is dropped.
            if stop is not None and stop.requested and not (recent and recent[-1].effects):
                waits = ex.status not in (Status.COMPLETED, Status.SUSPENDED)
                if ex.queue or (waits and timers.next_due() is not None):
                    raise RunStopped(ex.execution_id, stop.reason or "shutdown", ex.step)
            if ex.queue:
                if limit is not None and steps >= limit:
                    return
                steps += 1
                _check_limit(ex, steps, self.max_supersteps, recent)
                fresh.clear()
                step = ex.begin_superstep()
                while step.effects:
                    yield step
                outcome = ex.end_superstep(step)
                recent.append(outcome)
                if outcome.timers:
                    timers.apply(outcome.timers, self.clock.now())
                    fresh = {_timer_key(t) for t in outcome.timers}
                yield outcome
                continue
            due = timers.next_due()
            if due is None or ex.status is Status.COMPLETED:
                return
            if ex.status is Status.SUSPENDED and due > self.clock.now():
                return
            if until is not None and due > until:
                yield float(until - self.clock.now())
                return
            head = timers.next_timer()
            now = self.clock.now()
            wait = due - now
            if head is not None and head.delay is not None and _timer_key(head) in fresh:
                wait = head.delay
            fresh.clear()
            yield float(wait)
            for t in timers.pop_due(max(self.clock.now(), now + wait)):
                ex.fire_timer(t.activation_id, t.timer_id, t.generation, t.payload)


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
        clock: Clock | None = None,
        max_workers: int = 8,
        on_step: StepCallback | None = None,
        ledger: EffectLedger | None = None,
        max_supersteps: int | None = DEFAULT_MAX_SUPERSTEPS,
        rng: RandomSource | None = None,
        step_timeout: float | None = None,
    ) -> None:
        super().__init__(handlers, clock, ledger, max_supersteps, rng)
        self.max_workers = max_workers
        self.on_step = on_step
        self.step_timeout = step_timeout
        # (open superstep, clock reading when its first batch started), for step_timeout
        self._open_step: tuple[tuple[str, int] | None, float] | None = None
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
            if isinstance(step, float):
                self.clock.sleep(step)
                continue
            if isinstance(step, OpenSuperstep):  # its within-step effects, on the pool
                pending = step.effects
                if self.on_perform is not None:
                    self.on_perform(pending)
                if self.step_timeout is not None:
                    key = (ex.execution_id, step.step)
                    step.supply(self._perform_within(ex.execution_id, pending, key))
                elif len(pending) == 1:  # one frame less (a subgraph pays it per level)
                    result = self._call(ex.execution_id, pending[0])
                    if self.on_result is not None:
                        self.on_result(pending[0], result)
                    step.supply([result])
                else:
                    step.supply(self.perform(ex.execution_id, pending))
                continue
            if self.on_step is not None:
                self.on_step(ex, step)
            if stream is not None:
                _push_step(stream, ex, step)
            effects = step.effects
            if effects and self.on_perform is not None:
                self.on_perform(effects)
            if self.step_timeout is not None and effects:
                for result in self._perform_within(ex.execution_id, effects, None):
                    ex.deliver(result)
            elif len(effects) == 1:  # the common case, one frame less (see `_call`)
                ex.deliver(self._call(ex.execution_id, effects[0]))
            elif effects:
                for result in self.perform(ex.execution_id, effects):
                    ex.deliver(result)
            yield step

    def perform(self, execution_id: str, requests: list[EffectRequest]) -> list[EffectCompleted]:
        """Perform ``requests`` (concurrently when several, started in `launch_key` order)
        and return their results in request order. A result in the ledger is returned
        without performing anything."""
        order = self._launch_order(requests)
        if order is None:
            return self._perform(execution_id, requests)
        launched = self._perform(execution_id, [requests[i] for i in order])
        return self._in_request_order(order, launched)

    def _perform(self, execution_id: str, requests: list[EffectRequest]) -> list[EffectCompleted]:
        observe = self.on_result
        if len(requests) == 1:
            result = self._call(execution_id, requests[0])
            if observe is not None:
                observe(requests[0], result)
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
                    result = results[i] = self._call(execution_id, request)
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
        self, execution_id: str, effects: list[EffectRequest], key: tuple[str, int] | None
    ) -> list[EffectCompleted]:
        """`perform` under the host's ``step_timeout``, counted from the first batch of an
        open superstep ``key`` (else from now). A thread cannot be cancelled: an overrun is
        reported once the effects returned, as `StepTimeoutError` instead of their results."""
        limit = self.step_timeout
        assert limit is not None
        now = self.clock.now()
        if key is None or self._open_step is None or self._open_step[0] != key:
            self._open_step = (key, now)
        results = self.perform(execution_id, effects)
        elapsed = self.clock.now() - self._open_step[1]
        if elapsed > limit:
            raise StepTimeoutError(limit, elapsed)
        return results

    def _call(self, execution_id: str, request: EffectRequest) -> EffectCompleted:
        """Perform one effect in this thread: its recorded result, else its handler's (then
        recorded). One function from the host's loop to the handler: a subgraph run inside
        an effect pays each frame here once per nesting level."""
        ledger = self.ledger
        if ledger is not None and (recorded := ledger.recorded(request.effect_id)) is not None:
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
            result = completed(request, value)
        except Exception as e:
            result = failed(request, e)
        if ledger is not None and result.error is None:
            ledger.record(result)
        return result

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.max_workers, thread_name_prefix="superstep")
        return self._pool

    def close(self) -> None:
        """Shut the thread pool down (idempotent)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def __enter__(self) -> Host:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _timer_key(timer: TimerRequest | DueTimer) -> tuple[str, str]:
    """A timer's identity in its execution: (activation id, timer id)."""
    return (timer.activation_id, timer.timer_id)


def _push_step(stream: StreamMultiplexer, ex: Execution, outcome: StepOutcome) -> None:
    """Push ``outcome`` to ``stream`` as a committed ``"updates"`` chunk (if it committed).
    The values are shared, not copied: the runtime never mutates a committed value."""
    if outcome.committed:
        written = {channel: ex.values[channel] for channel in outcome.written}
        stream.push_committed("updates", {"step": outcome.step, "written": written})


def _check_limit(
    ex: Execution, steps: int, limit: int | None, recent: Iterable[StepOutcome] = ()
) -> None:
    if limit is not None and steps > limit:
        raise limit_error(ex, limit, recent)


def limit_error(ex: Execution, limit: int, recent: Iterable[StepOutcome]) -> SuperstepLimitError:
    """The error of a run stopped after ``limit`` supersteps, naming the cycle the last
    supersteps (``recent``, oldest first) went round as a path of nodes."""
    return SuperstepLimitError(
        f"execution {ex.execution_id!r} ran {limit:,} supersteps without finishing (at "
        f"superstep {ex.step}), going round {cycle_path(recent)}; give the cycle an exit, or "
        f"raise max_supersteps if that many are expected"
    )


def cycle_path(recent: Iterable[StepOutcome]) -> str:
    """``"a -> b -> a"``: the shortest repeating sequence of the supersteps' nodes (nodes of
    one superstep joined by ``+``), closed on its first; the last supersteps if none repeats."""
    steps = [
        "+".join(sorted({aid.rsplit(":", 1)[0] for aid, _ in o.delivered})) or "(nothing)"
        for o in recent
    ]
    for period in range(1, len(steps) // 2 + 1):
        if steps[-period:] == steps[-2 * period : -period]:
            loop = steps[-period:]
            return "the cycle " + " -> ".join([*loop, loop[0]])
        if period >= 16:
            break
    return "the supersteps " + " -> ".join(steps[-8:]) + " -> ..."
