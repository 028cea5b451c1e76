"""Nodes as event reducers: the events a node instance receives and the `Reaction` it returns.

A node is a function ``(ctx: NodeContext, event: Event) -> Reaction``. It never performs I/O
itself: external work leaves as `Effect` values that the host performs, and comes back as an
`EffectCompleted` event correlated by the effect's id.

Owns: events, effects, control actions, dispositions, `Reaction`, `NodeContext`, `RetryPolicy`.
Must never import: the runtime, the host, persistence, llm, compat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeAlias

from superstep_core.frozen import quick_init

__all__ = [
    "Activate",
    "Activated",
    "BecomeInactive",
    "CompleteActivation",
    "ControlAction",
    "Deactivate",
    "Disposition",
    "Effect",
    "EffectCompleted",
    "EffectFailure",
    "EndBranch",
    "Event",
    "External",
    "FailActivation",
    "Failure",
    "FailureClass",
    "NodeContext",
    "NodeFailed",
    "NodeFn",
    "OneShotEffect",
    "Publish",
    "Reaction",
    "RemainActive",
    "RequestTimer",
    "Resumed",
    "RetryPolicy",
    "Spawn",
    "SuspendActivation",
    "TimerElapsed",
]


# --- events -------------------------------------------------------------------------------


@quick_init
@dataclass(frozen=True, slots=True)
class Activated:
    """The first event of an activation. ``payload`` is what `Activate`/`Spawn` carried
    (``None`` for a start node unless the execution's input was given to it)."""

    payload: Any = None


@quick_init
@dataclass(frozen=True, slots=True)
class External:
    """An event from outside the execution (or `Publish`ed inside it), delivered through a
    route declared with `Graph.route(name, predicate, node)`."""

    name: str
    payload: Any = None


@quick_init
@dataclass(frozen=True, slots=True)
class EffectFailure:
    """Why an effect failed: the exception's type name and message, and whether it may be
    retried (HTTP 429/5xx, timeouts, ...). For an effect the host stopped at a timeout (type
    ``"EffectTimeoutError"``): ``elapsed``, the seconds it ran on the host's clock, and
    ``timeout``, which limit it passed (``"run"`` or ``"idle"``)."""

    type: str
    message: str
    retryable: bool = False
    elapsed: float | None = None
    timeout: str = ""


@quick_init
@dataclass(frozen=True, slots=True)
class EffectCompleted:
    """The outcome of an `Effect`: exactly one of ``result`` / ``error`` is meaningful.
    ``effect_id`` is the id the runtime derived for the effect (also its idempotency key)."""

    effect_id: str
    result: Any = None
    error: EffectFailure | None = None
    tag: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None


@quick_init
@dataclass(frozen=True, slots=True)
class TimerElapsed:
    """A timer requested by this instance fired. Stale firings (of a timer re-armed since) are
    dropped by the runtime and never reach the node."""

    timer_id: str
    payload: Any = None


@quick_init
@dataclass(frozen=True, slots=True)
class Resumed:
    """The answer to this instance's `SuspendActivation` (an interrupt)."""

    value: Any = None


Event: TypeAlias = Activated | External | EffectCompleted | TimerElapsed | Resumed


# --- effects ------------------------------------------------------------------------------


@quick_init
@dataclass(frozen=True, slots=True)
class Effect:
    """External work for the host to perform.

    ``kind`` selects the host's handler (``host.handlers[kind]``); ``request`` is the handler's
    argument. The special kind ``"call"`` takes ``request`` as a zero-argument callable and
    calls it (in-process work such as a user function). ``tag`` comes back on the
    `EffectCompleted` so a node can tell its effects apart; it never affects dispatch.
    ``timeout``: seconds (on the host's clock) the effect may run; ``idle_timeout``: seconds
    it may run without signalling progress (`superstep_core.host.heartbeat`). Past either,
    the host cancels it and delivers a retryable failure of type ``"EffectTimeoutError"``
    (the asyncio host cancels the coroutine; a thread cannot be cancelled, so the thread
    host reports a run overrun when the call returns, discarding its result, and does not
    watch idleness). ``within_step``: performed within the superstep that requested it (see
    `superstep_core.runtime.within`): its result is delivered in that same superstep, which
    commits only then; otherwise the effect is performed after the commit and its result
    arrives in a later superstep.
    """

    kind: str
    request: Any = None
    tag: str = ""
    timeout: float | None = None
    idle_timeout: float | None = None
    within_step: bool = False


# --- control actions ----------------------------------------------------------------------


@quick_init
@dataclass(frozen=True, slots=True)
class Activate:
    """Start a new activation of ``node`` in this activation's lineage (next superstep)."""

    node: str
    payload: Any = None


@quick_init
@dataclass(frozen=True, slots=True)
class Spawn:
    """Start a separate activation of ``node`` (never coalesced with others), by default in a
    new child lineage (a fan-out slot: joins keyed by lineage then wait per spawned branch);
    ``new_lineage=False`` keeps it in this activation's lineage."""

    node: str
    payload: Any = None
    new_lineage: bool = True


@dataclass(frozen=True, slots=True)
class Publish:
    """Put an `External` event on the queue; the graph's routes deliver it."""

    name: str
    payload: Any = None


@dataclass(frozen=True, slots=True)
class RequestTimer:
    """Arm timer ``timer_id`` of this instance to fire after ``delay`` seconds (host clock).
    Requesting the same id again replaces the pending timer; ``delay=None`` cancels it."""

    timer_id: str
    delay: float | None
    payload: Any = None


@dataclass(frozen=True, slots=True)
class Deactivate:
    """End every live instance of ``node`` (in any lineage): they stop listening and their
    timers are cancelled."""

    node: str


@dataclass(frozen=True, slots=True)
class EndBranch:
    """On completion, follow none of this node's outgoing edges or branches."""


ControlAction: TypeAlias = Activate | Spawn | Publish | RequestTimer | Deactivate | EndBranch


# --- dispositions -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RemainActive:
    """Stay alive and wait for more events (effects, timers, routed externals)."""


@dataclass(frozen=True, slots=True)
class BecomeInactive:
    """End this activation without completing: no edges are followed, no join is credited."""


@quick_init
@dataclass(frozen=True, slots=True)
class CompleteActivation:
    """Complete: outgoing edges and branches fire, joins this node feeds are credited.
    ``output`` is given to branch routers and recorded in the trace."""

    output: Any = None


@quick_init
@dataclass(frozen=True, slots=True)
class SuspendActivation:
    """Interrupt: the activation waits for a `Resumed` event carrying the answer."""

    value: Any = None


class FailureClass(Enum):
    """Whether a failure may be retried under the node's `RetryPolicy`."""

    RETRYABLE = "retryable"
    PERMANENT = "permanent"


@quick_init
@dataclass(frozen=True, slots=True)
class Failure:
    """Why an activation failed. ``retry``: the retry decision the failure carries (a node
    whose failures retry under different policies, e.g. LangGraph's list of `RetryPolicy`
    where the first whose ``retry_on`` matches decides); it overrides the node's own
    ``retry`` for this failure. It applies only to a `FailureClass.RETRYABLE` failure.
    ``cause``: the error object behind the failure, if the node has one to hand on (a failure
    route's `NodeFailed` carries it); the engine never looks into it."""

    failure_class: FailureClass
    message: str
    error_type: str = "Error"
    retry: RetryPolicy | None = None
    cause: Any = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class NodeFailed:
    """The payload an activation handed to its node's failure route (``on_failure``) goes
    on with: the node and activation that failed for good, the failure, and the payload the
    failed activation was started with; ``cause``: the failure's own ``cause`` (not compared;
    a durable codec must be able to hold it, or the node should leave it None)."""

    node: str
    activation_id: str
    error_type: str
    message: str
    payload: Any = None
    cause: Any = field(default=None, compare=False)


@quick_init
@dataclass(frozen=True, slots=True)
class FailActivation:
    """Fail this activation. A retryable failure is retried while the node's retry policy
    allows; otherwise the failure goes to the join failure policy, or fails the execution."""

    failure: Failure

    @classmethod
    def retryable(
        cls, message: str, error_type: str = "Error", *, retry: RetryPolicy | None = None
    ) -> FailActivation:
        """A retryable failure; ``retry`` (if given) decides its attempts and backoff
        instead of the node's policy."""
        return cls(Failure(FailureClass.RETRYABLE, message, error_type, retry))

    @classmethod
    def permanent(cls, message: str, error_type: str = "Error") -> FailActivation:
        return cls(Failure(FailureClass.PERMANENT, message, error_type))


Disposition: TypeAlias = (
    RemainActive | BecomeInactive | CompleteActivation | SuspendActivation | FailActivation
)


@dataclass(slots=True)  # not frozen: a frozen init costs ~4x, and one is built per event
class Reaction:
    """What a node returns for one event (the runtime only reads it).

    ``updates`` maps channel name -> written value (or is a sequence of ``(channel, value)``
    pairs when one reaction writes a channel more than once, e.g. an append channel).
    """

    updates: Mapping[str, Any] | Sequence[tuple[str, Any]] = field(default_factory=dict)
    effects: Sequence[Effect] = ()
    control: Sequence[ControlAction] = ()
    disposition: Disposition = field(default_factory=CompleteActivation)


# --- retries ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retries of retryable failures: attempt ``n`` (1-based) waits
    ``min(initial_interval * backoff_factor ** (n - 1), max_interval)`` seconds before attempt
    ``n + 1``; at most ``max_attempts`` attempts in all (counting attempts that failed
    under any policy). ``jitter``: up to that many seconds added at random to each wait;
    the runtime stays deterministic (the wait's timer carries the bound, and the host draws
    the extra time when it arms the timer, from its own random source)."""

    max_attempts: int = 3
    initial_interval: float = 0.5
    backoff_factor: float = 2.0
    max_interval: float = 128.0
    jitter: float = 0.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"RetryPolicy.max_attempts must be >= 1, got {self.max_attempts}")
        if self.initial_interval < 0 or self.max_interval < 0:
            raise ValueError("RetryPolicy intervals must be >= 0 seconds")
        if self.jitter < 0:
            raise ValueError(f"RetryPolicy.jitter must be >= 0 seconds, got {self.jitter}")

    def backoff(self, attempt: int) -> float:
        """Seconds to wait after failed attempt ``attempt`` (1-based)."""
        return min(self.initial_interval * self.backoff_factor ** (attempt - 1), self.max_interval)


# --- context ------------------------------------------------------------------------------


@dataclass(slots=True)  # not frozen: built once per event, and a frozen init costs ~4x
class NodeContext:
    """What a node instance sees while reacting to one event (treat it as read-only).

    ``state`` is the committed state of the superstep (read-only: writes go in the
    `Reaction`); ``memory`` is this instance's own mutable scratch space, kept across its
    events and persisted with the execution; ``attempt`` is 1-based. Work a node wants done
    beside its peers without a superstep of its own is a within-step `Effect`.
    """

    node: str
    activation_id: str
    lineage: tuple[int, ...]
    attempt: int
    state: Mapping[str, Any]
    memory: dict[str, Any]
    step: int


NodeFn: TypeAlias = Callable[[NodeContext, Event], Reaction]


_REMAIN = RemainActive()  # immutable: one instance serves every waiting activation


class OneShotEffect:
    """A node reducer of the one-shot effect kind: each activation asks for one effect and
    settles on its result.

    ``request(ctx, event)`` answers every event but a result: the `Effect` to perform (the
    reaction is that effect alone, the activation staying active for its result), or a whole
    `Reaction` (an event it does not start work on). ``settle(ctx, result)`` answers the
    `EffectCompleted`: the activation's reaction to it. The instance is the node's reducer
    (``fn``), called like any other; what it adds is that the runtime knows its shape. In a
    superstep whose within-step effects the host performs (``Execution.begin_superstep``),
    the runtime asks ``request`` for the effect directly and, once the result is supplied,
    stages ``settle``'s reaction directly: no reaction to check for the request, nothing
    to merge. Every other path (run_superstep, held and retried supersteps, replay) calls the
    instance as the reducer, which gives the same reactions.
    """

    __slots__ = ("request", "settle")

    def __init__(
        self,
        request: Callable[[NodeContext, Event], Effect | Reaction],
        settle: Callable[[NodeContext, EffectCompleted], Reaction],
    ) -> None:
        self.request = request
        self.settle = settle

    def __call__(self, ctx: NodeContext, event: Event) -> Reaction:
        if isinstance(event, EffectCompleted):
            return self.settle(ctx, event)
        asked = self.request(ctx, event)
        if isinstance(asked, Effect):
            return Reaction(effects=[asked], disposition=_REMAIN)
        return asked
