"""Plain records the interpreter keeps and hands out: instances, barriers, timers, requests.

Must never import: the host, persistence, llm, compat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from superstep_core.frozen import quick_init
from superstep_core.graph import CompiledGraph
from superstep_core.node import Effect, Event

__all__ = [
    "Barrier",
    "EffectRequest",
    "ExecutionFailure",
    "Instance",
    "QuietSnapshot",
    "Status",
    "StepOutcome",
    "TimerRequest",
]


class Status(Enum):
    """Lifecycle of an execution (DESIGN.md, "Lifecycle")."""

    RUNNING = "running"
    WAITING_FOR_EFFECTS = "waiting_for_effects"
    LISTENING = "listening"
    SUSPENDED = "suspended"
    COMPLETED = "completed"
    FAILED = "failed"


@dataclass(slots=True)
class Instance:
    """A live activation of a node. ``seq`` orders activations canonically (``spawned``:
    started by a `Spawn`, ordered after the others in spawn order); ``state`` is
    ``"active"``, ``"suspended"`` (awaiting `Resumed`) or ``"retrying"`` (awaiting backoff).
    ``holding``: it is being retried (or waits on an interrupt) while the other events of
    the superstep it failed (or suspended) in wait for it (a node with ``retry_holds_step``
    or ``suspend_holds_step``; see `Execution`). ``joined``: the name of the join whose
    barrier started it (a completed barrier is state: an edit's ``cancel_pending`` spares
    such an activation while it is queued)."""

    id: str
    node: str
    seq: int
    lineage: tuple[int, ...]
    payload: Any
    attempt: int = 1
    state: str = "active"
    memory: dict[str, Any] = field(default_factory=dict)
    effects_issued: int = 0
    pending_effects: set[str] = field(default_factory=set)
    interrupt: Any = None
    suspended_at: int = -1
    spawned: bool = False
    holding: bool = False
    joined: str | None = None


@dataclass(slots=True)
class Barrier:
    """One join's barrier for one lineage."""

    completed: dict[str, Any] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)
    fired: bool = False


@quick_init
@dataclass(frozen=True, slots=True)
class EffectRequest:
    """An effect the host must perform; ``effect_id`` is its idempotency key."""

    effect_id: str
    activation_id: str
    node: str
    effect: Effect


@dataclass(frozen=True, slots=True)
class TimerRequest:
    """Arm (``delay`` seconds from now) or, with ``delay=None``, cancel a timer. The host
    answers with ``Execution.fire_timer(activation_id, timer_id, generation)``. ``jitter``:
    the host adds a random 0..``jitter`` seconds to the delay (a retry backoff's)."""

    activation_id: str
    timer_id: str
    generation: int
    delay: float | None
    payload: Any = None
    jitter: float = 0.0


@dataclass(frozen=True, slots=True)
class ExecutionFailure:
    node: str
    activation_id: str
    error_type: str
    message: str
    step: int


@dataclass(slots=True, init=False)
class StepOutcome:
    """What one superstep produced for the host: effects to perform, timers to arm or
    cancel, and the events delivered (for progress reporting). ``held``: the events that
    wait after a superstep that committed nothing, until the activations of their superstep
    that interrupted (``suspend_holds_step``) or retry have settled (its own delivered
    events among them)."""

    step: int
    committed: bool
    delivered: list[tuple[str, Event]] = field(default_factory=list)
    effects: list[EffectRequest] = field(default_factory=list)
    timers: list[TimerRequest] = field(default_factory=list)
    written: tuple[str, ...] = ()
    writes: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)
    """The writes a committed superstep combined, by channel: ``(writer, value)`` in order,
    the writer an activation id (what each node wrote, before the channels' strategies;
    LangGraph's per-task ``updates``). Shared with the commit: read it, never change it."""
    held: list[tuple[str, Event]] = field(default_factory=list)
    paused: bool = False
    """Committed nothing because activations of the superstep wait on interrupts
    (``suspend_holds_step``); ``delivered`` says what ran in it."""
    handed_over: list[tuple[str, Any]] = field(default_factory=list)
    """(activation id, `NodeFailed` payload) of each failure route's activation started in
    the superstep in place of an activation that failed in it for good (the failed one's
    effect retried into the route's, see `superstep_core.runtime.within`)."""

    # Written out (the generated one calls each field's factory): one is made per superstep.
    def __init__(
        self,
        step: int,
        committed: bool,
        delivered: list[tuple[str, Event]] | None = None,
        effects: list[EffectRequest] | None = None,
        timers: list[TimerRequest] | None = None,
        written: tuple[str, ...] = (),
        writes: dict[str, list[tuple[str, Any]]] | None = None,
        held: list[tuple[str, Event]] | None = None,
        paused: bool = False,
        handed_over: list[tuple[str, Any]] | None = None,
    ) -> None:
        """The fields in order; a list or dict not given is a new empty one."""
        self.step = step
        self.committed = committed
        self.delivered = [] if delivered is None else delivered
        self.effects = [] if effects is None else effects
        self.timers = [] if timers is None else timers
        self.written = written
        self.writes = {} if writes is None else writes
        self.held = [] if held is None else held
        self.paused = paused
        self.handed_over = [] if handed_over is None else handed_over


@dataclass(slots=True)
class ExecutionState:
    """Everything an `Execution` is, as plain data (no callables): what persistence stores and
    what `Execution.restore` rebuilds from. Values are shared, not copied: the runtime never
    mutates a committed value (each commit builds new containers)."""

    graph: str
    execution_id: str
    values: dict[str, Any]
    versions: dict[str, int]
    step: int
    queue: list[tuple[str, Any]]
    instances: list[Instance]
    awaited: dict[str, str]
    timers: list[tuple[str, str, int]]
    barriers: list[tuple[str, tuple[int, ...], Barrier]]
    outputs: list[tuple[str, Any]]
    deferred: list[tuple[str, tuple[int, ...], Any]]
    failure: ExecutionFailure | None
    counters: tuple[int, int, int]
    ephemeral_live: list[str]
    held: list[tuple[str, Any]] = field(default_factory=list)
    """Events of a superstep waiting for its retrying or interrupted (``holding``)
    activations."""
    kept: dict[str, tuple[str, Any]] = field(default_factory=dict)
    """Within-step results of the held events' activations: effect id -> (activation id,
    `EffectCompleted`), answering those effects when the events are delivered again."""


class QuietSnapshot:
    """`Execution.snapshot` of a quiet execution (`Execution.quiet_snapshot`), taken
    without copying its activations: `state` builds the `ExecutionState` when it is asked
    for, equal to the snapshot the execution would have given when this was taken, whatever
    ran since. An owner that keeps a snapshot of every superstep in case the next one fails
    (and reads it only then) pays for the copies only when it reads one.

    Quiet: nothing in flight (no awaited effects, timers, barriers, outputs, deferred or
    held events, kept results or failure; the live ephemeral channels are noted) and every
    activation pristine (first attempt, active, never suspended, no memory, no effect issued, not
    holding). A later superstep changes activations in place (a retry counts its attempt on
    its instance), but a pristine one is given by what is set when it is created (id, node,
    seq, lineage, payload, spawned, joined), read here from the live instances; the other
    parts are copied (``versions``, ``queue``) or never changed in place (``values``)."""

    __slots__ = (
        "_instances",
        "counters",
        "ephemeral_live",
        "execution_id",
        "graph",
        "queue",
        "step",
        "values",
        "versions",
    )

    def __init__(
        self,
        graph: CompiledGraph,
        execution_id: str,
        values: dict[str, Any],
        versions: dict[str, int],
        step: int,
        queue: list[tuple[str, Any]],
        instances: list[Instance],
        counters: tuple[int, int, int],
        ephemeral_live: tuple[str, ...] = (),
    ) -> None:
        self.graph = graph
        self.ephemeral_live = ephemeral_live
        self.execution_id = execution_id
        self.values = values
        self.versions = versions
        self.step = step
        self.queue = queue
        self._instances = instances
        self.counters = counters

    @property
    def instances(self) -> list[Instance]:
        """The activations as they were: shared, read them, never change them."""
        return self._instances

    def state(self) -> ExecutionState:
        """The `ExecutionState` this stands for (a new one each call)."""
        instances = []
        for live in self._instances:
            inst = Instance(live.id, live.node, live.seq, live.lineage, live.payload)
            inst.spawned = live.spawned
            inst.joined = live.joined
            instances.append(inst)
        return ExecutionState(
            self.graph.identity,
            self.execution_id,
            self.values,
            dict(self.versions),
            self.step,
            list(self.queue),
            instances,
            {},
            [],
            [],
            [],
            [],
            None,
            self.counters,
            list(self.ephemeral_live),
            [],
            {},
        )
