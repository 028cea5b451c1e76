"""`HostCore`: what `Host` (threads, `superstep_core.host.sync`) and `AsyncHost` (asyncio,
`superstep_core.host.aio`) share, written once: their options, handlers, clock, ledger,
superstep bound and random source, starting and feeding executions, the run loop that
drives one (`HostCore._steps`), the order a batch of effects starts in and the clock of a
superstep's ``step_timeout``. Each host adds only how it waits and how it performs a
superstep's effects.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from typing import Any, Generic, TypedDict, TypeVar, Unpack

from superstep_core.errors import SuperstepLimitError
from superstep_core.graph import CompiledGraph
from superstep_core.host.clock import Clock, SystemClock
from superstep_core.host.effects import (
    EffectLedger,
    Handler,
    ResultObserver,
)
from superstep_core.host.nested import NestedEffects
from superstep_core.host.stop import RunStopped, StopRequest
from superstep_core.host.stream import StreamMultiplexer
from superstep_core.host.timers import DueTimer, RandomSource, TimerTable
from superstep_core.host.writes import OrderedWrites
from superstep_core.node import EffectCompleted, External
from superstep_core.runtime import (
    EffectRequest,
    Execution,
    OpenSuperstep,
    Status,
    StepOutcome,
    TimerRequest,
    WithinRetry,
)

__all__ = [
    "DEFAULT_MAX_SUPERSTEPS",
    "HostCore",
    "HostOptions",
    "RunOptions",
    "cycle_path",
    "limit_error",
]

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


class HostOptions(TypedDict, total=False):
    """The keyword arguments `Host` and `AsyncHost` share (see `Host`), each optional:
    ``clock`` (default `SystemClock`), ``ledger``, ``max_supersteps`` (default
    `DEFAULT_MAX_SUPERSTEPS`; None: no bound), ``rng`` (default the `random` module) and
    ``step_timeout`` (seconds; None: no bound)."""

    clock: Clock | None
    ledger: EffectLedger | None
    max_supersteps: int | None
    rng: RandomSource | None
    step_timeout: float | None


class HostCore(Generic[RunT, StepsT]):
    """What `Host` and its asyncio twin `AsyncHost` share, written once: their handlers,
    clock, ledger, superstep bound, random source and nested effects, starting and feeding
    executions, and the loop that drives one (`_steps`), which leaves to each host only
    how it waits and how it performs a superstep's effects (its `run` and `iterate`)."""

    def __init__(self, handlers: Mapping[str, Handler] | None, options: HostOptions) -> None:
        unknown = options.keys() - HostOptions.__optional_keys__
        if unknown:
            raise TypeError(f"host got unexpected keyword arguments {sorted(unknown)}")
        self.handlers: dict[str, Handler] = dict(handlers or {})
        self.clock: Clock = options.get("clock") or SystemClock()
        self.ledger = ledger = options.get("ledger")
        self.max_supersteps = options.get("max_supersteps", DEFAULT_MAX_SUPERSTEPS)
        self.performed: dict[str, int] = {}
        rng = options.get("rng")
        self.rng: RandomSource = rng if rng is not None else random
        self.step_timeout = options.get("step_timeout")
        # (open superstep, clock reading when its first batch started), for step_timeout
        self._open_step: tuple[tuple[str, int] | None, float] | None = None
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
        self._writes: OrderedWrites | None = None

    @property
    def writes(self) -> OrderedWrites:
        """The host's background writes (`OrderedWrites`, made on first use): I/O a run
        hands over to be done in order while it goes on, e.g. its checkpoints. The run's
        driver settles them before it reports the run ended; `Host.close` waits for them."""
        writes = self._writes
        if writes is None:
            writes = self._writes = OrderedWrites()
        return writes

    def _launch_order(self, requests: list[EffectRequest]) -> list[int] | None:
        """The indexes of ``requests`` in the order to start them (`launch_key`), or None
        when that is request order."""
        key = self.launch_key
        if key is None or len(requests) < 2:
            return None
        order = sorted(range(len(requests)), key=lambda i: key(requests[i]))
        return None if all(i == k for k, i in enumerate(order)) else order

    def _launched(
        self, requests: list[EffectRequest]
    ) -> tuple[list[EffectRequest], Callable[[list[EffectCompleted]], list[EffectCompleted]]]:
        """``requests`` in the order to start them (`launch_key`), and what puts their
        results back in request order."""
        order = self._launch_order(requests)
        if order is None:
            return requests, _as_is
        return [requests[i] for i in order], partial(_in_request_order, order)

    def _backoff(self, again: WithinRetry) -> float:
        """Seconds to wait before a within-step retry: its backoff, plus its jitter drawn
        from the host's random source (as a retry timer's is)."""
        if again.jitter > 0:
            return again.delay + self.rng.uniform(0, again.jitter)
        return again.delay

    def _step_started(self, key: tuple[str, int] | None, now: float) -> float:
        """When the superstep whose effects start ``now`` (a clock reading) started, for
        ``step_timeout``: the first batch of an open superstep ``key`` (its later rounds
        count from there), else now."""
        if key is None or self._open_step is None or self._open_step[0] != key:
            self._open_step = (key, now)
        return self._open_step[1]

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
        `RunStopped` at a boundary where ``stop`` was requested and work is left. (An open
        superstep is yielded, not performed through a callback: a subgraph run inside an
        effect would pay the callback's frames once per nesting level.)"""
        timers = self.timers(ex.execution_id)
        bound = self.max_supersteps
        steps = 0
        fresh: set[tuple[str, str]] = set()  # timers the last superstep armed, not waited for
        # The last supersteps before the bound, to name the cycle of a runaway run. Only
        # those are kept: holding every run's recent outcomes alive made the collector run
        # several times per short run (objects surviving into older generations).
        recent: deque[StepOutcome] = deque(maxlen=_CYCLE_WINDOW)
        watch_from = None if bound is None else bound - _CYCLE_WINDOW
        last_effects = False  # the last outcome performed effects whose results wait
        while ex.failure is None:
            # A stop takes effect only where no performed effect's result waits in the
            # queue: those results are delivered (committed) first, so no work is dropped.
            if stop is not None and stop.requested and not last_effects:
                waits = ex.status not in (Status.COMPLETED, Status.SUSPENDED)
                if ex.queue or (waits and timers.next_due() is not None):
                    raise RunStopped(ex.execution_id, stop.reason or "shutdown", ex.step)
            if ex.queue:
                if limit is not None and steps >= limit:
                    return
                steps += 1
                if bound is not None and steps > bound:
                    raise limit_error(ex, bound, recent)
                if fresh:
                    fresh.clear()
                step = ex.begin_superstep()
                while step.effects:
                    yield step
                outcome = ex.end_superstep(step)
                last_effects = bool(outcome.effects)
                if watch_from is not None and steps > watch_from:
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


_CYCLE_WINDOW = 64  # supersteps a runaway run's error looks back over for its cycle


def _as_is(results: list[EffectCompleted]) -> list[EffectCompleted]:
    return results


def _in_request_order(order: list[int], results: list[EffectCompleted]) -> list[EffectCompleted]:
    """``results`` of requests started in ``order`` (`HostCore._launch_order`), back in
    request order."""
    back = list(results)
    for k, i in enumerate(order):
        back[i] = results[k]
    return back


def _timer_key(timer: TimerRequest | DueTimer) -> tuple[str, str]:
    """A timer's identity in its execution: (activation id, timer id)."""
    return (timer.activation_id, timer.timer_id)


def _push_step(stream: StreamMultiplexer, ex: Execution, outcome: StepOutcome) -> None:
    """Push ``outcome`` to ``stream`` as a committed ``"updates"`` chunk (if it committed).
    The values are shared, not copied: the runtime never mutates a committed value."""
    if outcome.committed:
        written = {channel: ex.values[channel] for channel in outcome.written}
        stream.push_committed("updates", {"step": outcome.step, "written": written})


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
