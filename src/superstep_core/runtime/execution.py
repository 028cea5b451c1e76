"""The pure interpreter: one `Execution` of a `CompiledGraph`, advanced one superstep at a time.

A superstep takes every event queued so far (FIFO), delivers them to their recipients in
canonical order (node key, then activation sequence; activations started by a `Spawn` come
after the others, in spawn order), lets every reaction read the same
committed state, then commits all writes atomically, applies dispositions, follows edges,
credits joins and queues the next events. A superstep that fails (a permanent node failure
under FailFast, a channel conflict) commits nothing: the execution keeps its last committed
state and its queue, and `retry_failed()` runs the same superstep again.

An activation of a node with ``retry_holds_step`` that fails with a retry left holds its
superstep: nothing commits, the other events of the superstep wait (``held``), and the failed
activation is retried (after its backoff). In the superstep where every retried activation
settles (completes, suspends, ends, or fails for good), the held events are delivered again
beside it and the superstep commits once, in canonical order. An activation of a node with
``suspend_holds_step`` that suspends (an interrupt) beside other events holds its superstep
the same way: its siblings' results wait (``held``) until it has been resumed and settled,
together with every other activation of that superstep that suspended.

Inputs (effect results, timer firings, external events, resumes) only enter between
supersteps, and every one is appended to ``input_log`` (unless the execution is made with
``log_inputs=False``); replaying the log on a fresh execution rebuilds the identical execution.

This module performs no I/O, reads no clock and draws no randomness; ids are derived.
Must never import: the host, persistence, llm, compat.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Container, Generator, Iterable, Mapping, Sequence
from functools import partial
from operator import attrgetter
from types import MappingProxyType
from typing import Any

from superstep_core.channel import MISSING, ReducerError, Write
from superstep_core.edge import (
    ContinueWithSuccesses,
    FailFast,
    Join,
    JoinFailure,
    RouteFailuresTo,
    WaitForAllThenFail,
)
from superstep_core.errors import (
    ChannelConflictError,
    ExecutionFailedError,
    StaleResumeError,
    SuperstepError,
    UndeclaredChannelError,
    UnknownInterruptError,
)
from superstep_core.graph import ANY_NODE, CompiledGraph, NodeSpec
from superstep_core.node import (
    Activate,
    Activated,
    BecomeInactive,
    CompleteActivation,
    Deactivate,
    Effect,
    EffectCompleted,
    EndBranch,
    Event,
    External,
    FailActivation,
    Failure,
    FailureClass,
    NodeContext,
    NodeFailed,
    OneShotEffect,
    Publish,
    Reaction,
    RemainActive,
    RequestTimer,
    Resumed,
    RetryPolicy,
    Spawn,
    SuspendActivation,
    TimerElapsed,
)
from superstep_core.runtime.records import (
    Barrier,
    EffectRequest,
    ExecutionFailure,
    ExecutionState,
    Instance,
    QuietSnapshot,
    Status,
    StepOutcome,
    TimerRequest,
)
from superstep_core.runtime.within import (
    OpenSuperstep,
    Rounds,
    WithinRetry,
    merged,
    split_within,
)
from superstep_core.trace import TraceRecord

__all__ = ["Execution"]

_RETRY_TIMER = "__retry__"
_STEP = ("superstep",)  # the input log's entry of a superstep that delivered no results
_INPUT_WRITER = "__input__"
# an activation as created, in the fields `Execution.quiet_snapshot` reads (attempt, state,
# effects issued, interrupt, suspended at, holding)
_PRISTINE = (1, "active", 0, None, -1, False)
_REMAIN = RemainActive()  # immutable: shared by every activation waiting for its effect
# the reaction of a one-shot activation whose effect is out: nothing yet but waiting (what
# the general path's merge of its request reaction leaves); identity marks it in `_resolve`
_ASKED = Reaction((), (), (), _REMAIN)
# the empty start of a `_Staged` or `_Pass` container most supersteps never fill (see
# `_Staged`)
_NONE: Any = ()
_NO_ERRORS: Any = MappingProxyType({})
_NO_ENDED: Any = frozenset()


class _Shot:
    """A `OneShotEffect` activation's request in a superstep the host performs within: the
    within-step effect it asked for and the context it asked in (its result settles there)."""

    __slots__ = ("ctx", "effect", "node")

    def __init__(self, node: OneShotEffect, ctx: NodeContext, effect: Effect) -> None:
        self.node = node
        self.ctx = ctx
        self.effect = effect


class _Staged:
    """Everything one superstep's reactions produced, applied only if the superstep commits.

    Built once per superstep, so what most supersteps leave empty is not built at all: those
    containers are class attributes, a shared empty tuple (or mapping), and the first item
    gives the instance a container of its own (`_add`). Read as empty, they never change in
    place (immutable: an append that forgot `_add` fails loudly instead of sharing one)."""

    effects: list[tuple[Instance, EffectRequest]] = _NONE
    activations: list[tuple[str, tuple[int, ...], Any, int, str]] = _NONE
    publishes: list[External] = _NONE
    timers: list[tuple[Instance, RequestTimer]] = _NONE
    deactivations: list[str] = _NONE
    failures: list[tuple[Instance, Failure]] = _NONE
    errors: dict[str, Exception] = _NO_ERRORS  # what a reducer raised, by activation id
    ended: set[str] = _NO_ENDED
    wants_within = False  # a reaction asked for a within-step effect

    def __init__(self) -> None:
        self.writes: dict[str, list[Write]] = {}
        self.dispositions: list[tuple[Instance, Any, dict[str, Any], bool]] = []
        # several events for one instance in one superstep react in turn: each sees the
        # memory and effect count the previous one left; after a final disposition the
        # instance takes no more events
        self.memory: dict[str, dict[str, Any]] = {}
        self.issued: dict[str, int] = {}


class _Pass:
    """One superstep being run, as its phases share it: delivery (`Execution._deliver`),
    within-step rounds, conclusion (`Execution._conclude`). ``done``: what each delivered
    event's reducer gave (batch index, activation, reaction or exception); ``issued``,
    ``got``, ``performed``: within-step effect counters per activation, results by effect
    id, results performed (for the log); ``waiting``: settled retries, waiting with the
    held events; ``released``: the held events are delivered in this superstep."""

    # set by few supersteps: class attributes until then (see `_Staged`)
    consumed: list[tuple[Instance, str]] = _NONE
    released = False
    waiting: list[tuple[str, Event]] = _NONE
    # in-superstep retries (`Execution._retry_within`): the one-shot request behind each
    # within-step effect id (its latest attempt's); the reaction each result asked about
    # settled to (result, reaction); the attempt each retried activation reached
    asked: dict[str, tuple[Instance, _Shot | None]] = _NO_ERRORS
    early: dict[str, tuple[EffectCompleted, Any]] = _NO_ERRORS
    retried: dict[str, tuple[Instance, int]] = _NO_ERRORS
    # failures handed over to their node's failure route within this superstep: the
    # failed request's effect id -> (the failed activation, the route's activation)
    heirs: dict[str, tuple[Instance, Instance]] = _NO_ERRORS

    def __init__(self, ex: Execution) -> None:
        batch = list(ex.queue)
        step = ex.step + 1
        self.batch: list[tuple[str, Event]] = batch
        self.queued = len(batch)
        self.step = step
        self.record = TraceRecord(step) if ex.record_trace else None
        self.outcome = StepOutcome(step, False)
        self.staged = _Staged()
        self.state: Mapping[str, Any] = MappingProxyType(ex.values)
        self.issued: dict[str, int] = {}
        self.got: dict[str, tuple[str, EffectCompleted]] = {}
        self.performed: list[EffectCompleted] = []
        self.done: list[tuple[int, Instance, Any]] = []
        ex._open = self


class Execution:
    """One run of a compiled graph, owned by a host (or a test) that feeds it inputs.

    Build one with `Execution.start`. ``values`` is the committed state (channel -> value;
    channels never written are absent), ``step`` the number of committed supersteps,
    ``status`` the lifecycle state, ``outputs`` the outputs of completed end nodes.
    """

    def __init__(
        self,
        graph: CompiledGraph,
        execution_id: str,
        *,
        record_trace: bool = True,
        log_inputs: bool = True,
    ):
        self.graph = graph
        self.execution_id = execution_id
        self.record_trace = record_trace
        # False: ``input_log`` stays empty, for an owner that never replays or persists it
        # (the LangGraph façade, whose checkpoints are its record): the log holds every
        # superstep's within-step results, so each task's outcome lived as long as the run
        # (the cyclic collector's work grew with them, see BENCH.md)
        self.log_inputs = log_inputs
        self.values: dict[str, Any] = {}
        self.versions: dict[str, int] = {}
        self.step = 0
        self.queue: deque[tuple[str, Event]] = deque()
        self.instances: dict[str, Instance] = {}
        self.awaited: dict[str, str] = {}
        self.timers: dict[tuple[str, str], int] = {}
        self.barriers: dict[tuple[str, tuple[int, ...]], Barrier] = {}
        # the barriers that fired and closed in the superstep being applied (see `_credit`)
        self._spent: dict[tuple[str, tuple[int, ...]], Barrier] = {}
        self.outputs: list[tuple[str, Any]] = []
        self.deferred: list[tuple[str, tuple[int, ...], Any]] = []
        self.held: list[tuple[str, Event]] = []
        self.failure: ExecutionFailure | None = None
        self.trace: list[TraceRecord] = []
        self.input_log: list[tuple[Any, ...]] = []
        self.last_error: BaseException | None = None  # the exception behind `failure`, if any
        # within-step results of a superstep that committed nothing, kept (effect id ->
        # activation id, result) while their activations' events are held: delivered again,
        # those events request the same effect ids, which these answer (see `within`)
        self.kept: dict[str, tuple[str, EffectCompleted]] = {}
        # the within-step results (activation id, result) of the superstep that failed last
        self.failed_results: list[tuple[str, EffectCompleted]] = []
        self._seq = 0
        self._lineages = 0
        self._open: _Pass | None = None  # the superstep being run (`_retry_within` reads it)
        self._timer_generation = 0
        self._ephemeral_live: set[str] = set()
        # whether an activation may be ``holding`` (its superstep can be held with no event
        # held: every activation of it suspended or retries); recomputed when in doubt
        self._holding = False
        self._has_ephemeral = any(c.ephemeral for c in graph.channels.values())
        self._untracked = frozenset(n for n, c in graph.channels.items() if c.untracked)
        for name, channel in graph.channels.items():
            initial = channel.initial()
            if initial is not MISSING:
                self.values[name] = initial
                self.versions[name] = 0

    # --- construction and inputs -------------------------------------------------------

    @classmethod
    def start(
        cls,
        graph: CompiledGraph,
        execution_id: str,
        *,
        payload: Any = None,
        updates: Mapping[str, Any] | None = None,
        record_trace: bool = True,
        log_inputs: bool = True,
    ) -> Execution:
        """A new execution: ``updates`` are committed as superstep 0 (through the channels'
        strategies) and every start node is activated with ``payload``."""
        ex = cls(graph, execution_id, record_trace=record_trace, log_inputs=log_inputs)
        if ex.log_inputs:
            ex.input_log.append(("start", payload, dict(updates or {})))
        written: tuple[str, ...] = ()
        if updates:
            written = ex._commit_input(updates)
        for key in graph.starts:
            ex._enqueue_activation(key, (), payload)
        for key, _, _, _, _ in ex._triggered(written):
            if key not in graph.starts:
                ex._enqueue_activation(key, (), None)
        return ex

    def deliver(self, result: EffectCompleted) -> None:
        """Queue an effect's result for the instance that requested it. A result for an
        effect nobody awaits any more (instance ended or retried) is dropped."""
        if self.log_inputs:
            self.input_log.append(("effect", result))
        aid = self.awaited.pop(result.effect_id, None)
        if aid is None or aid not in self.instances:
            self._note_dropped(f"effect {result.effect_id}: nobody awaits it")
            return
        self.queue.append((aid, result))

    def fire_timer(self, activation_id: str, timer_id: str, generation: int, payload: Any) -> None:
        """Queue a timer firing; a firing of a timer re-armed or cancelled since is stale and
        dropped."""
        if self.log_inputs:
            self.input_log.append(("timer", activation_id, timer_id, generation, payload))
        if self.timers.get((activation_id, timer_id)) != generation:
            self._note_dropped(f"timer {activation_id}/{timer_id}#{generation}: stale")
            return
        del self.timers[(activation_id, timer_id)]
        inst = self.instances.get(activation_id)
        if inst is None:
            return
        if timer_id == _RETRY_TIMER:
            inst.state = "active"
            self.queue.append((activation_id, Activated(inst.payload)))
        else:
            self.queue.append((activation_id, TimerElapsed(timer_id, payload)))

    def send(self, event: External) -> list[str]:
        """Route an external event; returns the activation ids it was queued for (empty when
        no route matches)."""
        if self.log_inputs:
            self.input_log.append(("external", event))
        return self._route(event)

    def resume(
        self, value: Any, activation_id: str | None = None, *, expected_step: int | None = None
    ) -> str:
        """Answer an interrupt with ``value``. With several suspended activations, name one.
        ``expected_step``: the committed step the caller saw; if state moved on since, raise
        `StaleResumeError` and change nothing. Returns the resumed activation id."""
        suspended = [i for i in self.instances.values() if i.state == "suspended"]
        if activation_id is None:
            if len(suspended) != 1:
                raise UnknownInterruptError(
                    f"execution {self.execution_id!r} has {len(suspended)} suspended "
                    f"activations ({', '.join(i.id for i in suspended) or 'none'}): name one"
                )
            inst = suspended[0]
        else:
            found = self.instances.get(activation_id)
            if found is None or found.state != "suspended":
                raise UnknownInterruptError(
                    f"activation {activation_id!r} is not suspended; suspended: "
                    f"{', '.join(i.id for i in suspended) or 'none'}"
                )
            inst = found
        if expected_step is not None and expected_step != self.step:
            raise StaleResumeError(
                f"resume of {inst.id!r} expected state at superstep {expected_step}, but the "
                f"execution is at superstep {self.step}: read the state again and retry"
            )
        if self.log_inputs:
            self.input_log.append(("resume", inst.id, value))
        inst.state = "active"
        inst.interrupt = None
        self.queue.append((inst.id, Resumed(value)))
        return inst.id

    def edit(
        self,
        updates: Mapping[str, Any] | Iterable[tuple[str, Any]],
        *,
        writer: str,
        as_node: str | None = None,
        activate: Iterable[str] = (),
        cancel_pending: bool = False,
        spawn: Iterable[tuple[str, Any]] = (),
        fire: Iterable[tuple[str, Mapping[str, Any]]] = (),
        defer: Iterable[tuple[str, Any]] = (),
    ) -> tuple[str, ...]:
        """Commit ``updates`` as one superstep written from outside any node (a human edit,
        LangGraph's ``update_state``), through the channels' strategies. With ``as_node``
        the edges and joins of that node fire as if one of its activations completed;
        ``activate`` adds activations (except of a coalescing node with a suspended
        activation, which is already its pending run); ``spawn`` adds ``(node, payload)``
        activations as a node's `Spawn`s would (never merged, after the others, in order);
        ``fire`` gives ``(join name, outputs)`` of joins whose barrier is complete: each
        join's target is activated as its barrier starts it (payload: ``outputs``, the
        sources' by name; the activation notes its join, see `Instance.joined`), after the
        ``activate`` ones, merged with them as a join's request is (a restore rebuilding a
        due join target from a saved checkpoint; no barrier is kept);
        ``defer`` gives ``(node, payload)`` requests of ``defer`` nodes that wait as the
        engine's own requests of them wait (see `NodeSpec.defer`), in the root lineage, until
        nothing else is pending (a restore rebuilding a deferred node that was waiting when its
        checkpoint was saved; a node already waiting is not added twice);
        ``cancel_pending`` first ends every activation that is queued but has not run, except
        a deferred node's. Returns the channels written. Raises
        `UndeclaredChannelError` / `ChannelConflictError` (an unknown channel, node or join),
        `ValueError` (a ``defer`` node that is not deferred) and then changes nothing."""
        pairs = _pairs(updates)
        for channel, _ in pairs:
            if channel not in self.graph.channels:
                raise UndeclaredChannelError(writer, channel, list(self.graph.channels))
        if as_node is not None and as_node not in self.graph.nodes:
            raise UndeclaredChannelError(writer, as_node, list(self.graph.nodes))
        targets = tuple(activate)
        spawns = tuple(spawn)
        for node, _ in spawns:
            if node not in self.graph.nodes:
                raise UndeclaredChannelError(writer, node, list(self.graph.nodes))
        fired = tuple((name, dict(outputs)) for name, outputs in fire)
        waits = tuple(defer)
        for node, _ in waits:
            if node not in self.graph.nodes:
                raise UndeclaredChannelError(writer, node, list(self.graph.nodes))
            if not self.graph.nodes[node].defer:
                raise ValueError(f"node {node!r} is not deferred: activate it instead")
        joins = self.graph.joins_by_name
        for name, _ in fired:
            if name not in joins:
                raise UndeclaredChannelError(writer, name, list(joins))
        grouped: dict[str, list[Write]] = {}
        for channel, value in pairs:
            grouped.setdefault(channel, []).append((writer, value))
        try:
            written = self._commit_writes(grouped)  # raises before anything changed
        except ReducerError as e:
            # an edit (LangGraph's update_state) raises the reducer's own exception; the
            # note names the channel
            e.error.add_note(str(e))
            raise e.error from None
        entry: tuple[Any, ...] = ("edit", pairs, writer, as_node, targets, cancel_pending)
        if self.log_inputs:
            # trailing fields only when used: older logs replay unchanged (`replay.py`)
            extra: tuple[Any, ...] = (
                (spawns, fired, waits)
                if waits
                else (spawns, fired)
                if fired
                else (spawns,)
                if spawns
                else ()
            )
            self.input_log.append((*entry, *extra))
        if cancel_pending:
            # a deferred node's activation waited for the graph to go quiet: that wait is
            # over, and an edit does not undo it (LangGraph keeps such a task due)
            # as does a join's target whose barrier fired (the barrier stays complete until
            # the target runs: LangGraph keeps such a task due too)
            nodes = self.graph.nodes
            cancelled = {
                aid
                for aid, event in self.queue
                if isinstance(event, Activated)
                and not (
                    aid in self.instances
                    and (
                        nodes[self.instances[aid].node].defer
                        or self.instances[aid].joined is not None
                    )
                )
            }
            for aid in cancelled:
                self.instances.pop(aid, None)
            self.queue = deque((a, e) for a, e in self.queue if a not in cancelled)
        self.step += 1
        record = TraceRecord(self.step, written=written) if self.record_trace else None
        pending: list[tuple[str, tuple[int, ...], Any, int, str]] = [
            (t, (), None, 0, writer) for t in targets
        ]
        # the join's name as the request's source: the activation notes it (`_join_of`)
        pending.extend((joins[name].target, (), outputs, 0, name) for name, outputs in fired)
        if as_node is not None:
            ghost = Instance(f"{writer}:edit", as_node, 0, (), None)
            # a join whose target is still due from its barrier is complete: crediting it
            # again would start a second round that no source began
            due = {
                i.joined
                for aid, event in self.queue
                if isinstance(event, Activated)
                and (i := self.instances.get(aid)) is not None
                and i.joined is not None
                and i.lineage == ghost.lineage
            }
            pending.extend(self._follow(ghost, None, complete=due))
        if written and self.graph.subscribers:
            pending.extend(self._triggered(written))
        pending.extend((node, (), payload, 2, writer) for node, payload in spawns)
        # A coalescing node waiting on an interrupt, or already queued, already has its
        # pending run: an edit that would activate it again must not make it run twice.
        waiting = {i.node for i in self.instances.values() if i.state == "suspended"}
        waiting.update(
            self.instances[aid].node
            for aid, event in self.queue
            if isinstance(event, Activated) and aid in self.instances
        )
        for node, lineage, payload, spawned, source in _coalesce(self.graph, pending):
            if not spawned and node in waiting and self.graph.nodes[node].coalesce:
                continue
            aid = self._enqueue_activation(
                node, lineage, payload, spawned=spawned != 0, joined=self._join_of(source)
            )
            if record is not None:
                record.activated.append(aid)
        for node, payload in waits:
            if all(d[0] != node for d in self.deferred):
                self.deferred.append((node, (), payload))
        if waits:
            self._release_deferred(record)  # (only when nothing else is pending)
        if record is not None:
            self.trace.append(record)
        return written

    def abandon_pending(self) -> tuple[str, ...]:
        """End every activation that still has work: queued, suspended on an interrupt or
        left by a failed superstep, and clear the failure (a new input replaces the work a
        previous run left, as LangGraph drops a thread's pending tasks on new input).
        Committed values, versions and join barriers stay. Returns the ended ids."""
        if self.log_inputs:
            self.input_log.append(("abandon",))
        ended = list(dict.fromkeys(aid for aid, _ in self.queue))
        ended += [aid for aid, _ in self.held]
        ended += [i.id for i in self.instances.values() if i.state == "suspended"]
        self.queue.clear()
        self.held = []
        for aid in ended:
            inst = self.instances.get(aid)
            if inst is not None:
                self._end(inst)
        self.failure = None
        return tuple(dict.fromkeys(ended))

    def retry_failed(self) -> None:
        """Clear a failure so the failed superstep (still queued) runs again."""
        if self.log_inputs:
            self.input_log.append(("retry_failed",))
        self.failure = None

    def replay_failed_superstep(
        self, failure: ExecutionFailure, record: TraceRecord | None
    ) -> StepOutcome:
        """Apply a superstep the input log records as failed (``("superstep", failure,
        record)``) without running it: the failure and its trace record come from the log, as
        an effect's result does. Raises `RuntimeError` like `run_superstep`, and `ValueError`
        when the failure is not of the next superstep."""
        if self.failure is not None:
            raise RuntimeError(f"execution {self.execution_id!r} failed: retry_failed() first")
        if not self.queue:
            raise RuntimeError(f"execution {self.execution_id!r} has no queued events")
        if failure.step != self.step + 1:
            raise ValueError(
                f"the logged failure is of superstep {failure.step}, but superstep "
                f"{self.step + 1} is next"
            )
        if self.log_inputs:
            self.input_log.append(("superstep", failure, record))
        self.failure = failure
        if self.record_trace and record is not None:
            self.trace.append(_record_copy(record))
        return StepOutcome(step=failure.step, committed=False)

    # --- snapshot and restore ------------------------------------------------------------

    def snapshot(self) -> ExecutionState:
        """The execution as plain data, decoupled from later supersteps (containers are
        copied; the committed values mapping and its values are shared, as the runtime never
        mutates them: treat them as read-only)."""
        return ExecutionState(
            self.graph.identity,
            self.execution_id,
            # every commit builds a new dict, so this one is never mutated
            self.values if not self._untracked else self._tracked_values(),
            dict(self.versions),
            self.step,
            list(self.queue),
            [_instance_copy(i) for i in self.instances.values()],
            dict(self.awaited),
            # (a comprehension's own call costs as much as the rest of a step's snapshot
            # of these, mostly empty)
            [(aid, tid, gen) for (aid, tid), gen in self.timers.items()] if self.timers else [],
            [
                (n, lin, Barrier(dict(b.completed), set(b.failed), b.fired))
                for (n, lin), b in self.barriers.items()
            ]
            if self.barriers
            else [],
            list(self.outputs),
            list(self.deferred),
            self.failure,
            (self._seq, self._lineages, self._timer_generation),
            sorted(self._ephemeral_live),
            list(self.held),
            dict(self.kept),
        )

    def expire_ephemeral(self) -> None:
        """Treat every ephemeral channel holding a value as written by the last superstep:
        the next superstep that does not write it clears it. For a host that put back
        values its snapshot's step had cleared (a step stopped by an interrupt, whose
        checkpoint shows the state from before it)."""
        channels = self.graph.channels
        self._ephemeral_live = {
            name for name in self.values if name in channels and channels[name].ephemeral
        }

    def quiet_snapshot(self) -> QuietSnapshot | None:
        """`snapshot`, deferred, when the execution is quiet (see `QuietSnapshot`: nothing
        in flight, every activation pristine); else None (take a `snapshot`). Copies the
        versions and the queue, not the activations."""
        if (
            self.failure is not None
            or self.awaited
            or self.timers
            or self.barriers
            or self.outputs
            or self.deferred
            or self.held
            or self.kept
        ):
            return None
        instances = list(self.instances.values())
        for i in instances:
            # (one tuple compared: cheaper than a test per field, once per checkpoint)
            if (
                i.attempt,
                i.state,
                i.effects_issued,
                i.interrupt,
                i.suspended_at,
                i.holding,
            ) != _PRISTINE or (i.memory or i.pending_effects):
                return None
        return QuietSnapshot(
            self.graph,
            self.execution_id,
            self.values if not self._untracked else self._tracked_values(),
            dict(self.versions),
            self.step,
            list(self.queue),
            instances,
            (self._seq, self._lineages, self._timer_generation),
            tuple(sorted(self._ephemeral_live)),
        )

    def _tracked_values(self) -> dict[str, Any]:
        untracked = self._untracked
        return {k: v for k, v in self.values.items() if k not in untracked}

    @classmethod
    def restore(
        cls,
        graph: CompiledGraph,
        state: ExecutionState,
        *,
        execution_id: str | None = None,
        record_trace: bool = True,
        log_inputs: bool = True,
    ) -> Execution:
        """Rebuild an execution from `snapshot` data (``execution_id`` renames it: a fork).
        Raises `ValueError` when ``state`` was taken from another graph."""
        if state.graph != graph.identity:
            raise ValueError(
                f"execution state belongs to graph {state.graph!r}, not {graph.identity!r}"
            )
        ex = cls(
            graph,
            execution_id or state.execution_id,
            record_trace=record_trace,
            log_inputs=log_inputs,
        )
        snap = _copied(state)  # the stored state stays untouched by this execution
        ex.values = snap.values
        ex.versions = snap.versions
        ex.step = snap.step
        ex.queue = deque(snap.queue)
        ex.instances = {i.id: i for i in snap.instances}
        for inst in snap.instances:
            if type(inst.lineage) is not tuple:  # a codec that stores tuples as lists
                inst.lineage = tuple(inst.lineage)
        ex.awaited = snap.awaited
        ex.timers = {(aid, tid): gen for aid, tid, gen in snap.timers}
        ex.barriers = {(name, tuple(lineage)): b for name, lineage, b in snap.barriers}
        ex.outputs = snap.outputs
        ex.deferred = snap.deferred
        ex.failure = snap.failure
        ex._seq, ex._lineages, ex._timer_generation = snap.counters
        ex._ephemeral_live = set(snap.ephemeral_live)
        ex.held = snap.held
        ex.kept = {eid: (aid, result) for eid, (aid, result) in snap.kept.items()}
        ex._holding = any(i.holding for i in snap.instances)
        return ex

    # --- status --------------------------------------------------------------------------

    @property
    def status(self) -> Status:
        if self.failure is not None:
            return Status.FAILED
        if self.queue:
            return Status.RUNNING
        if self.awaited:
            return Status.WAITING_FOR_EFFECTS
        if any(i.state == "suspended" for i in self.instances.values()):
            return Status.SUSPENDED
        if self.instances or self.timers:
            return Status.LISTENING
        return Status.COMPLETED

    @property
    def interrupts(self) -> list[tuple[str, Any]]:
        """(activation id, interrupt value) of every suspended activation, canonical order."""
        return [
            (i.id, i.interrupt)
            for i in sorted(self.instances.values(), key=_canonical)
            if i.state == "suspended"
        ]

    def raise_for_failure(self) -> None:
        """Raise `ExecutionFailedError` if the execution failed."""
        if self.failure is not None:
            f = self.failure
            raise ExecutionFailedError(f.node, f.activation_id, f.message, f.error_type)

    # --- the superstep ---------------------------------------------------------------------

    def run_superstep(self) -> StepOutcome:
        """Deliver every queued event, then commit. Raises `RuntimeError` if the execution
        has failed (call `retry_failed` first) or nothing is queued. Within-step effects
        are issued as ordinary ones here (performed after the commit): a host that performs
        them inside the superstep drives it with `begin_superstep` / `end_superstep`."""
        if self._plain():  # nothing held back: no generator round to drive
            p = self._pass()
            self._deliver(p, {}, False)
            return self._conclude(p, False)
        rounds = self._superstep(False)
        try:
            next(rounds)
        except StopIteration as done:
            outcome: StepOutcome = done.value
            return outcome
        raise AssertionError("run_superstep never yields effects")  # pragma: no cover

    def begin_superstep(self) -> OpenSuperstep:
        """Begin a superstep whose within-step effects the caller performs: deliver every
        queued event and return the open superstep, whose ``effects`` the caller performs
        and `supply`s back (round after round) before `end_superstep`. Nothing changes in
        the execution before `end_superstep`. Raises as `run_superstep` does."""
        if self.held or self.kept or (self._holding and self._still_holding()):
            # held work first (`_plain`, inlined): the general rounds
            return OpenSuperstep(self._superstep(True), self.step + 1, self._retry_within)
        # The usual superstep, without a generator: its events delivered here, and, when
        # all its reactions so far are one-shot requests, their effects asked for directly;
        # the results settle and commit in `supply` (`_shots_answered`).
        p = self._pass()
        called: dict[int, Any] = _NO_ERRORS
        if p.queued == 1:
            # The common superstep: one event, for a one-shot node (a façade task). Its
            # request is asked for here, and the result settles and commits in
            # `_shot_answered` (`_commit_lone`): what `_deliver` would do, without its loop,
            # order and checks for a batch.
            aid, event = p.batch[0]
            inst = self.instances.get(aid)
            if inst is not None and type(event) is not EffectCompleted:
                fn = self.graph.nodes[inst.node].fn
                if type(fn) is OneShotEffect:
                    memory = dict(inst.memory)
                    p.staged.memory[aid] = memory
                    ctx = NodeContext(
                        inst.node, aid, inst.lineage, inst.attempt, p.state, memory, p.step
                    )
                    try:
                        asked: Any = fn.request(ctx, event)
                    except Exception as e:  # fails its activation (`_deliver`, given it)
                        asked = e
                    if isinstance(asked, Effect):
                        if asked.within_step:
                            p.outcome.delivered.append((aid, event))
                            if p.record is not None:
                                p.record.delivered.append((aid, type(event).__name__))
                            shot = _Shot(fn, ctx, asked)
                            p.done.append((0, inst, shot))
                            n = inst.effects_issued
                            request = EffectRequest(
                                f"{self.execution_id}/{aid}/e{n}", aid, inst.node, asked
                            )
                            p.issued[aid] = n + 1
                            p.asked = {request.effect_id: (inst, shot)}
                            return OpenSuperstep.asking(
                                p.step,
                                [request],
                                partial(self._shot_answered, p, inst, shot, request),
                                self._retry_within,
                            )
                        asked = Reaction(effects=[asked], disposition=_REMAIN)
                    called = {0: asked}  # anything else: staged as `_deliver` stages it
        self._deliver(p, called, True)
        if not p.staged.wants_within:
            return OpenSuperstep.ended(p.step, self._conclude(p, True))
        done = p.done
        if len(done) == 1 and type(done[0][2]) is _Shot:  # the usual: one node's one effect
            _, inst, shot = done[0]
            aid = inst.id
            n = inst.effects_issued  # (`_asks`: nothing issued in this pass yet)
            request = EffectRequest(f"{self.execution_id}/{aid}/e{n}", aid, inst.node, shot.effect)
            p.issued[aid] = n + 1
            p.asked = {request.effect_id: (inst, shot)}
            return OpenSuperstep.asking(
                p.step,
                [request],
                partial(self._shot_answered, p, inst, shot, request),
                self._retry_within,
            )
        if all(type(item[2]) is _Shot for item in done):
            out: dict[int, Any] = {}
            shots: dict[int, _Shot] = {}
            asks = self._asks(p, done, out, shots)
            then = partial(self._shots_answered, p, asks, out, shots)
            return OpenSuperstep.asking(
                p.step, [request for _, _, request in asks], then, self._retry_within
            )
        return OpenSuperstep(self._within_then_conclude(p), p.step, self._retry_within)

    def end_superstep(self, step: OpenSuperstep) -> StepOutcome:
        """Commit (or hold, or fail) the superstep ``step`` opened by `begin_superstep`, its
        within-step results delivered; returns its outcome. Raises `RuntimeError` while
        ``step.effects`` wait for results."""
        return step.outcome()

    def _plain(self) -> bool:
        """Whether the next superstep holds nothing back from earlier ones (no held events,
        no activation retried while holding its superstep)."""
        return not self.held and not (self._holding and self._still_holding())

    def _pass(self) -> _Pass:
        """A fresh pass over the queued events (see `_Pass`). Raises `RuntimeError` if the
        execution has failed or nothing is queued."""
        if self.failure is not None:
            raise RuntimeError(f"execution {self.execution_id!r} failed: retry_failed() first")
        if not self.queue:
            raise RuntimeError(f"execution {self.execution_id!r} has no queued events")
        if self.failed_results:
            self.failed_results = []
        return _Pass(self)

    def _superstep(self, within: bool) -> Rounds:
        """The superstep as a generator of within-step effect rounds (none unless
        ``within``: those effects then leave as ordinary ones) returning its outcome. The
        general form: a superstep with held work runs the held activations' reducers first
        (`_call_holding`); `begin_superstep` and `run_superstep` take the phases below
        without a generator when there is none."""
        p = self._pass()
        called: dict[int, Any] = {}  # reducer results of retried activations, run first
        if self.held or (self._holding and self._still_holding()):
            results, settled, released = yield from self._call_holding(p, within)
            staged = p.staged
            if p.issued:
                staged.issued.update(p.issued)
            p.released = released
            if released:
                called = {k + len(self.held): r for k, r in results.items()}
                p.batch = [*self.held, *p.batch]
            elif settled:
                rest: list[tuple[str, Event]] = []
                for k, item in enumerate(p.batch):
                    if item[0] in settled:
                        p.waiting = _add(p.waiting, item)
                        continue
                    if k in results:
                        called[len(rest)] = results[k]
                    rest.append(item)
                p.batch = rest
                if not rest:
                    if p.retried:
                        self._count_attempts(p)
                    self._log(within and bool(p.got), p.performed)
                    for aid, _ in p.waiting:  # delivered again later: the same effect ids
                        staged.issued.pop(aid, None)
                    waited = self._wait(p.waiting, p.queued, p.outcome, p.record)
                    return self._keep(waited, p.got)
            else:
                called = results  # the batch is unchanged: the same indexes
        self._deliver(p, called, within)
        if within and p.staged.wants_within:
            yield from self._within_step(p)
        return self._conclude(p, within)

    def _deliver(self, p: _Pass, called: dict[int, Any], within: bool) -> None:
        """Deliver the events of ``p``'s batch in canonical order: each to its activation's
        reducer (``called``: the results of reducers already run, by batch index), each
        reaction staged (or, ``within``, a one-shot request noted as a `_Shot`), into
        ``p.done``."""
        batch = p.batch
        staged = p.staged
        outcome = p.outcome
        record = p.record
        state = p.state
        step = p.step
        done = p.done
        instances = self.instances
        nodes = self.graph.nodes
        size = len(batch)
        order: Iterable[int] = (
            range(1)
            if size == 1
            else sorted(range(size), key=lambda k: _canonical_key(instances.get(batch[k][0]), k))
        )
        for k in order:
            aid, event = batch[k]
            inst = instances.get(aid)
            if inst is None:
                self._note_dropped(f"{type(event).__name__} for ended activation {aid}", record)
                continue
            if aid in staged.ended:
                self._note_dropped(f"{type(event).__name__} for ended activation {aid}", record)
                continue
            if isinstance(event, EffectCompleted):
                if event.effect_id not in inst.pending_effects:
                    self._note_dropped(f"effect {event.effect_id}: stale", record)
                    continue
                # only once the superstep commits
                p.consumed = _add(p.consumed, (inst, event.effect_id))
            outcome.delivered.append((aid, event))
            if record is not None:
                record.delivered.append((aid, type(event).__name__))
            spec = nodes[inst.node]
            if called and k in called:  # a retried activation's reducer already ran
                memory = staged.memory[inst.id]
                result = called[k]
                if isinstance(result, Exception):
                    self._reducer_failed(inst, memory, staged, result)
                else:
                    self._stage(inst, spec, result, memory, staged, within)
            else:
                memory = dict(staged.memory.get(inst.id, inst.memory))
                staged.memory[inst.id] = memory
                ctx = NodeContext(
                    inst.node, inst.id, inst.lineage, inst.attempt, state, memory, step
                )
                fn = spec.fn
                try:
                    if within and type(fn) is OneShotEffect and type(event) is not EffectCompleted:
                        # a one-shot node asks for its effect directly (see `_Shot`)
                        result = fn.request(ctx, event)
                        if isinstance(result, Effect):
                            if result.within_step:
                                result = _Shot(fn, ctx, result)
                            else:
                                result = Reaction(effects=[result], disposition=_REMAIN)
                    else:
                        result = fn(ctx, event)
                except Exception as e:  # a reducer bug fails its activation, not the interpreter
                    result = e
                    self._reducer_failed(inst, memory, staged, e)
                else:
                    if type(result) is _Shot:  # its reaction so far: that effect, remain active
                        staged.wants_within = True
                        staged.dispositions.append((inst, _REMAIN, memory, False))
                        done.append((k, inst, result))
                        continue
                    self._stage(inst, spec, result, memory, staged, within)
            done.append((k, inst, result))
            # (isinstance with a tuple: an `A | B` union is built anew at every evaluation)
            if not isinstance(staged.dispositions[-1][1], (RemainActive, SuspendActivation)):
                if staged.ended:
                    staged.ended.add(aid)
                else:
                    staged.ended = {aid}

    def _within_then_conclude(self, p: _Pass) -> Rounds:
        """The within-step rounds of a pass already delivered, then its commit."""
        yield from self._within_step(p)
        return self._conclude(p, True)

    def _shots_answered(
        self,
        p: _Pass,
        asks: list[tuple[int, Instance, EffectRequest]],
        out: dict[int, Any],
        shots: dict[int, _Shot],
        supplied: Sequence[EffectCompleted],
    ) -> StepOutcome | Rounds:
        """`begin_superstep`'s one-shot requests answered: their settled reactions staged
        and the superstep concluded, as `_within_step` would; or, when a settled reaction
        asks for more within-step effects, the rounds that remain."""
        p.performed.extend(supplied)
        answers = {c.effect_id: c for c in supplied}
        todo = self._answered(p, asks, answers, out, shots)
        if todo:
            return self._rounds_then_conclude(p, todo, out, shots)
        self._restage(p, out, True)
        return self._conclude(p, True)

    def _shot_answered(
        self,
        p: _Pass,
        inst: Instance,
        shot: _Shot,
        request: EffectRequest,
        supplied: Sequence[EffectCompleted],
    ) -> StepOutcome | Rounds:
        """`_shots_answered` for a pass of one one-shot request (``request``, of ``inst``'s
        ``shot``): the same steps (`_answered`, then `_restage`) without their maps."""
        p.performed.extend(supplied)
        eid = request.effect_id
        if p.heirs and eid in p.heirs:  # its route's activation answers in its place
            inst, eid = self._heir_slot(p, p.done[0][0], eid)
        result = supplied[0]  # (`OpenSuperstep.supply` matched it; else look it up)
        if len(supplied) != 1 or result.effect_id != eid:
            result = next(c for c in supplied if c.effect_id == eid)
        aid = inst.id
        p.got[eid] = (aid, result)
        p.outcome.delivered.append((aid, result))
        if p.record is not None:
            p.record.delivered.append((aid, "EffectCompleted"))
        hit = p.early.get(eid) if p.early else None  # (`_settled`'s usual answer, inlined)
        if hit is not None and hit[0] is result:
            after: Any = hit[1]
        else:
            after = self._settled(p, eid, shot, result)
        # another round (no effects, the usual settled reaction: no call to find out)
        if isinstance(after, Reaction) and after.effects and _asks_within(after.effects):
            k = p.done[0][0]
            return self._rounds_then_conclude(p, [(k, inst, after)], {k: _ASKED}, {})
        if (
            type(after) is Reaction
            and type(after.disposition) is CompleteActivation
            and not after.effects
            and not p.heirs
        ):  # the usual task: it completes, writes, maybe activates nodes
            committed = self._commit_lone(p, inst, after)
            if committed is not None:
                return committed
        staged = p.staged  # `_restage` of one shot: the staged so far serves again
        staged.dispositions = []
        staged.issued = dict(p.issued)
        memory = staged.memory[aid]
        if isinstance(after, Exception):
            self._reducer_failed(inst, memory, staged, after)
        else:
            self._stage(inst, self.graph.nodes[inst.node], after, memory, staged)
        return self._conclude(p, True)

    def _commit_lone(self, p: _Pass, inst: Instance, reaction: Reaction) -> StepOutcome | None:
        """Conclude pass ``p`` of one one-shot activation ``inst`` (nothing held, kept or
        handed over; its superstep's log, commit and application as `_restage`, `_conclude`
        and `_apply` give them) whose settled ``reaction`` completes it with writes and
        `Activate`s only: the superstep's outcome, with no `_Staged` to fill and read back.
        None, having changed nothing, for a reaction the general staging must check (a
        write to a channel the node may not write, other control): call it then."""
        spec = self.graph.nodes[inst.node]
        updates = reaction.updates
        pairs: Iterable[tuple[str, Any]]
        if type(updates) is dict:
            pairs = updates.items()
        elif type(updates) is list:
            pairs = updates
        else:
            return None
        channels = self.graph.channels
        allowed = spec.writes
        aid = inst.id
        writes: dict[str, list[Write]] = {}
        for channel, value in pairs:
            if channel not in channels or (allowed is not None and channel not in allowed):
                return None  # `_stage` fails the activation, naming the channel
            if channel in writes:
                writes[channel].append((aid, value))
            else:
                writes[channel] = [(aid, value)]
        pending: list[tuple[str, tuple[int, ...], Any, int, str]] = []
        for action in reaction.control:
            if type(action) is not Activate or not self._may_activate(spec, action.node):
                return None
            pending.append((action.node, inst.lineage, action.payload, False, aid))
        if p.retried:
            self._count_attempts(p)
        if self.log_inputs:
            self.input_log.append(("superstep", tuple(p.performed)))
        outcome = p.outcome
        record = p.record
        try:
            written = self._commit_writes(writes)
        except Exception as e:
            return self._commit_failed(e, outcome, record, p.got, p.staged)
        queue = self.queue
        if p.queued == len(queue):
            queue.clear()
        else:
            for _ in range(p.queued):
                queue.popleft()
        self.step = p.step
        for owner, effect_id in p.consumed:
            owner.pending_effects.discard(effect_id)
        outcome.committed = True
        outcome.written = written
        outcome.writes = writes
        # `_apply`, for the one activation
        if self._spent:
            self._spent = {}
        inst.effects_issued = p.issued[aid]
        inst.memory = p.staged.memory[aid]
        if record is not None:
            record.dispositions.append((aid, "CompleteActivation"))
        self._end(inst)
        output = reaction.disposition.output  # type: ignore[union-attr]
        if inst.node in self.graph.ends:
            self.outputs.append((inst.node, output))
        pending.extend(self._follow(inst, output))
        self._activate(pending, outcome, record, _NONE)
        if record is not None:
            record.written = written
            self.trace.append(record)
        if self.failure is not None:  # a router's failure (`_follow`)
            self._keep(outcome, p.got)
        return outcome

    def _rounds_then_conclude(
        self,
        p: _Pass,
        todo: list[tuple[int, Instance, Any]],
        out: dict[int, Any],
        shots: dict[int, _Shot],
    ) -> Rounds:
        yield from self._resolve(p, todo, out, shots)
        self._restage(p, out, True)
        return self._conclude(p, True)

    def _conclude(self, p: _Pass, within: bool) -> StepOutcome:
        """Log the pass, then fail, hold, pause or commit the superstep it staged."""
        staged = p.staged
        got = p.got
        outcome = p.outcome
        record = p.record
        waiting = p.waiting
        if p.retried:
            self._count_attempts(p)
        if p.heirs:
            self._install_heirs(p)
        # the log entry (`_log`, inlined: once per superstep)
        if self.log_inputs:
            self.input_log.append(("superstep", tuple(p.performed)) if within and got else _STEP)
        if staged.failures and any(not self._absorbs_failure(i, f) for i, f in staged.failures):
            inst, failure = next(
                (i, f) for i, f in staged.failures if not self._absorbs_failure(i, f)
            )
            if inst.id in staged.errors:  # callers re-raise what the reducer raised
                self.last_error = staged.errors[inst.id]
            return self._keep(
                self._fail(
                    inst.node, inst.id, failure.error_type, failure.message, outcome, record
                ),
                got,
                staged,
            )
        for aid, _ in waiting:  # delivered again later: the same effect ids
            staged.issued.pop(aid, None)
        batch, queued, released = p.batch, p.queued, p.released
        if staged.failures:
            holds = [(i, f) for i, f in staged.failures if self._holds_step(i, f)]
            if holds:
                held = self._hold(holds, batch, queued, released, waiting, staged, outcome, record)
                return self._keep(held, got)
        for _, disposition, _, _ in staged.dispositions:
            if isinstance(disposition, SuspendActivation):  # a suspension may hold it
                paused = self._pausing(staged, batch, waiting)
                if paused:
                    held = self._pause(
                        paused, batch, queued, released, waiting, staged, outcome, record
                    )
                    return self._keep(held, got)
                break
        try:
            written = self._commit_writes(staged.writes)
        except Exception as e:
            return self._commit_failed(e, outcome, record, got, staged)
        if queued == len(self.queue):
            self.queue.clear()
        else:
            for _ in range(queued):
                self.queue.popleft()
        if released:
            self._release()
        elif waiting:
            self._add_waiting(waiting)
        self.step = p.step
        for inst, effect_id in p.consumed:
            inst.pending_effects.discard(effect_id)
        outcome.committed = True
        outcome.written = written
        outcome.writes = staged.writes
        self._apply(staged, outcome, record)
        if record is not None:
            record.written = written
            self.trace.append(record)
        if self.held or self.failure is not None:  # (a router's failure, in `_apply`)
            if self.kept or got:
                self._keep(outcome, got)
        elif self.kept:  # `_keep` of a committed superstep with nothing held
            self.kept = {}
        return outcome

    def _commit_failed(
        self,
        e: Exception,
        outcome: StepOutcome,
        record: TraceRecord | None,
        got: dict[str, tuple[str, EffectCompleted]],
        staged: _Staged,
    ) -> StepOutcome:
        """The superstep whose commit raised ``e`` (`_commit_writes`: nothing committed)
        fails, naming the writer to blame."""
        if isinstance(e, ChannelConflictError):
            self.last_error = e
            writer = e.writers[0] if e.writers else "-"
            node = self.instances[writer].node if writer in self.instances else writer
            failed = self._fail(node, writer, "ChannelConflictError", str(e), outcome, record)
        elif isinstance(e, ReducerError):  # a reducer raised: blame the write
            self.last_error = e.error  # the reducer's own exception, for callers that re-raise
            writer = e.writer or (e.writers[0] if e.writers else "-")
            node = self.instances[writer].node if writer in self.instances else writer
            failed = self._fail(node, writer, "ReducerError", str(e), outcome, record)
        else:  # a strategy's own error (not a SuperstepError: a façade's)
            self.last_error = e
            failed = self._fail("-", "-", type(e).__name__, f"reducer failed: {e}", outcome, record)
        return self._keep(failed, got, staged)

    def _reducer_failed(
        self, inst: Instance, memory: dict[str, Any], staged: _Staged, e: Exception
    ) -> None:
        if not staged.errors:
            staged.errors = {}
        staged.errors[inst.id] = e
        failure = Failure(FailureClass.PERMANENT, str(e), type(e).__name__)
        staged.failures = _add(staged.failures, (inst, failure))
        staged.dispositions.append((inst, FailActivation(failure), memory, False))

    def _stage(
        self,
        inst: Instance,
        spec: NodeSpec,
        reaction: Any,
        memory: dict[str, Any],
        staged: _Staged,
        within: bool = False,
    ) -> None:
        """Stage what ``inst``'s reducer returned: writes, control, effects, disposition.
        ``within``: a reaction asking for within-step effects is only checked, and its
        disposition noted (whether its activation takes more events in this superstep):
        `_within_step` stages it, merged with what its results bring, into a fresh `_Staged`
        (this one then serves only for the reducers' memory)."""
        try:
            if not isinstance(reaction, Reaction):
                raise TypeError(
                    f"node {inst.node!r} returned {type(reaction).__name__}, expected a Reaction"
                )
            updates = reaction.updates
            # the usual kinds (a dict, a list of pairs) without `_pairs`'s call
            pairs: list[tuple[str, Any]]
            if type(updates) is dict:
                pairs = list(updates.items())
            elif type(updates) is list:
                pairs = updates  # only read, as `_pairs` returns it
            else:
                pairs = _pairs(updates)
            channels = self.graph.channels
            allowed = spec.writes
            for channel, _ in pairs:
                if channel not in channels:
                    raise UndeclaredChannelError(inst.node, channel, list(channels))
                if allowed is not None and channel not in allowed:
                    raise UndeclaredChannelError(
                        inst.node, channel, list(allowed), node_writes=True
                    )
        except Exception as e:  # a malformed reaction fails its activation, like a raise
            self._reducer_failed(inst, memory, staged, e)
            return
        disposition = reaction.disposition
        if isinstance(disposition, FailActivation):
            staged.failures = _add(staged.failures, (inst, disposition.failure))
            staged.dispositions.append((inst, disposition, memory, False))
            return
        if (
            isinstance(disposition, SuspendActivation)
            and spec.suspend_holds_step
            and (pairs or reaction.control or reaction.effects)
        ):  # its suspension may hold the superstep, which then commits nothing of it
            error = TypeError(
                f"node {inst.node!r} suspends its superstep (suspend_holds_step): the reaction "
                "that suspends may not write, control or request effects"
            )
            self._reducer_failed(inst, memory, staged, error)
            return
        control = reaction.control
        for action in control:
            if isinstance(action, (Activate, Spawn)) and not self._may_activate(spec, action.node):
                failure = Failure(
                    FailureClass.PERMANENT,
                    f"node {inst.node!r} tried to activate {action.node!r}: "
                    + (
                        "no such node"
                        if action.node not in self.graph.nodes
                        else f"not in its may_activate {sorted(spec.may_activate or ())}"
                    ),
                    "ActivationError",
                )
                staged.failures = _add(staged.failures, (inst, failure))
                staged.dispositions.append((inst, FailActivation(failure), memory, False))
                return
        if within and reaction.effects and _asks_within(reaction.effects):
            staged.wants_within = True
            staged.dispositions.append((inst, disposition, memory, False))
            return
        end_branch = False
        for action in control:
            if isinstance(action, Activate):
                staged.activations = _add(
                    staged.activations, (action.node, inst.lineage, action.payload, False, inst.id)
                )
            elif isinstance(action, Spawn):
                staged.activations = _add(
                    staged.activations,
                    (
                        action.node,
                        inst.lineage,
                        action.payload,
                        1 if action.new_lineage else 2,
                        inst.id,
                    ),
                )
            elif isinstance(action, Publish):
                staged.publishes = _add(staged.publishes, External(action.name, action.payload))
            elif isinstance(action, RequestTimer):
                staged.timers = _add(staged.timers, (inst, action))
            elif isinstance(action, Deactivate):
                staged.deactivations = _add(staged.deactivations, action.node)
            elif isinstance(action, EndBranch):
                end_branch = True
            else:  # pragma: no cover - guarded by the type
                raise TypeError(f"unknown control action {action!r}")
        aid = inst.id
        writes = staged.writes
        for channel, value in pairs:
            if channel in writes:
                writes[channel].append((aid, value))
            else:
                writes[channel] = [(aid, value)]
        issued = staged.issued.get(aid, inst.effects_issued)
        for effect in reaction.effects:
            eid = f"{self.execution_id}/{aid}/e{issued}"
            issued += 1
            staged.effects = _add(
                staged.effects, (inst, EffectRequest(eid, aid, inst.node, effect))
            )
            if effect.within_step:
                staged.wants_within = True
        staged.issued[aid] = issued
        staged.dispositions.append((inst, disposition, memory, end_branch))

    def _may_activate(self, spec: NodeSpec, node: str) -> bool:
        if node not in self.graph.nodes:
            return False
        allowed = spec.may_activate
        return allowed is None or node in allowed or ANY_NODE in allowed

    def _absorbs_failure(self, inst: Instance, failure: Failure) -> bool:
        """A failure that does not fail the superstep: a retryable one with a retry left, or
        one that every join the node feeds handles itself."""
        joins = self.graph.joins_of.get(inst.node, ())
        retry = self._retry_left(inst, failure) or self._routed(inst, failure)
        return retry or (bool(joins) and all(not isinstance(j.on_failure, FailFast) for j in joins))

    def _routed(self, inst: Instance, failure: Failure) -> bool:
        """A failure for good of a node with a failure route: handed to the route."""
        return self.graph.nodes[inst.node].on_failure is not None and not self._retry_left(
            inst, failure
        )

    def _retry_policy(self, inst: Instance, failure: Failure) -> RetryPolicy | None:
        """The policy that decides a failure's retry: the one it carries, else its node's."""
        return failure.retry or self.graph.nodes[inst.node].retry

    def _retry_left(self, inst: Instance, failure: Failure) -> bool:
        if failure.failure_class is not FailureClass.RETRYABLE:
            return False
        policy = self._retry_policy(inst, failure)
        return policy is not None and inst.attempt < policy.max_attempts

    def _holds_step(self, inst: Instance, failure: Failure) -> bool:
        return self.graph.nodes[inst.node].retry_holds_step and (
            self._retry_left(inst, failure) or self._routed(inst, failure)
        )

    # --- holding a superstep for retries -------------------------------------------------

    def _call(
        self,
        inst: Instance,
        event: Event,
        state: Mapping[str, Any],
        step: int,
        staged: _Staged,
        attempt: int | None = None,
    ) -> Any:
        """Call the node's reducer for ``event`` (its memory staged), as attempt ``attempt``
        (default: ``inst``'s): what it returned (not yet checked: `_stage` does that), or
        what it raised."""
        spec = self.graph.nodes[inst.node]
        memory = dict(staged.memory.get(inst.id, inst.memory))
        staged.memory[inst.id] = memory
        if attempt is None:
            attempt = inst.attempt
        ctx = NodeContext(inst.node, inst.id, inst.lineage, attempt, state, memory, step)
        try:
            return spec.fn(ctx, event)
        except Exception as e:  # a reducer bug fails its activation, never the interpreter
            return e

    # --- within-step effects (see `superstep_core.runtime.within`) ------------------------

    def _within_step(
        self, p: _Pass
    ) -> Generator[list[EffectRequest], Sequence[EffectCompleted], None]:
        """Perform the within-step effects the reactions in ``p.done`` asked for (as rounds
        the host answers), deliver their results, and stage every reaction again, merged
        with what its activation did with its results, in the same canonical order."""
        done = p.done
        pending = [
            (k, inst, result)
            for k, inst, result in done
            if type(result) is _Shot
            or (isinstance(result, Reaction) and _asks_within(result.effects))
        ]
        reactions = yield from self._resolve(p, pending)
        only_shots = len(pending) == len(done) and all(type(item[2]) is _Shot for item in done)
        self._restage(p, reactions, only_shots)

    def _restage(self, p: _Pass, reactions: dict[int, Any], only_shots: bool) -> None:
        """Stage every reaction of ``p.done`` again (``reactions``: those merged with what
        their within-step results brought, by batch index) into ``p.staged``, afresh.
        ``only_shots``: every reaction was a one-shot request, so the staged so far holds
        nothing but their memory and waiting dispositions (no writes, control, effects,
        failures) and serves again."""
        staged = p.staged
        if only_shots:
            fresh = staged
            fresh.dispositions = []
        else:
            fresh = _Staged()
            fresh.memory = staged.memory  # what the reducers left, results included
        fresh.issued = dict(p.issued)  # ordinary effects are numbered after within-step ones
        nodes = self.graph.nodes
        for k, inst, result in p.done:
            result = reactions.get(k, result)
            memory = fresh.memory[inst.id]
            if isinstance(result, Exception):
                self._reducer_failed(inst, memory, fresh, result)
            else:
                self._stage(inst, nodes[inst.node], result, memory, fresh)
        p.staged = fresh

    def _resolve(
        self,
        p: _Pass,
        todo: list[tuple[int, Instance, Any]],
        out: dict[int, Any] | None = None,
        shots: dict[int, _Shot] | None = None,
    ) -> Generator[list[EffectRequest], Sequence[EffectCompleted], dict[int, Any]]:
        """Rounds of within-step effects for ``todo`` (batch index, activation, reaction
        asking for some): each round's requests go to the host (those a held superstep
        already has results for are answered from ``kept``), each result is delivered to
        its activation, whose reaction may ask for another round. Returns each index's
        reactions merged into one (``out``, ``shots``: those of rounds already asked)."""
        out = {} if out is None else out
        shots = {} if shots is None else shots
        while todo:
            asks = self._asks(p, todo, out, shots)
            kept = self.kept
            ask = [request for _, _, request in asks if request.effect_id not in kept]
            answers: dict[str, EffectCompleted] = {}
            if ask:
                supplied = yield ask
                p.performed.extend(supplied)
                answers = {c.effect_id: c for c in supplied}
            todo = self._answered(p, asks, answers, out, shots)
        return out

    def _asks(
        self,
        p: _Pass,
        todo: list[tuple[int, Instance, Any]],
        out: dict[int, Any],
        shots: dict[int, _Shot],
    ) -> list[tuple[int, Instance, EffectRequest]]:
        """One round's within-step requests of ``todo``'s reactions (numbered on from
        ``p.issued``); what each reaction leaves besides goes into ``out``."""
        issued = p.issued
        asks: list[tuple[int, Instance, EffectRequest]] = []
        for k, inst, reaction in todo:
            if type(reaction) is _Shot:  # its one effect, nothing to split or merge
                shots[k] = reaction
                out[k] = _ASKED
                n = issued.get(inst.id, inst.effects_issued)
                eid = f"{self.execution_id}/{inst.id}/e{n}"
                asks.append((k, inst, EffectRequest(eid, inst.id, inst.node, reaction.effect)))
                issued[inst.id] = n + 1
                if type(p.asked) is not dict:
                    p.asked = {}
                p.asked[eid] = (inst, reaction)
                continue
            wanted, rest = split_within(reaction.effects)
            fresh = out.get(k) is None
            out[k] = merged(out.get(k), reaction, rest)
            n = issued.get(inst.id, inst.effects_issued)
            for effect in wanted:
                eid = f"{self.execution_id}/{inst.id}/e{n}"
                asks.append((k, inst, EffectRequest(eid, inst.id, inst.node, effect)))
                n += 1
            issued[inst.id] = n
            if fresh and len(wanted) == 1 and _lone_within(reaction) is not None:
                # the activation's lone work so far: `_retry_within` may retry it
                if type(p.asked) is not dict:
                    p.asked = {}
                p.asked[eid] = (inst, None)
        return asks

    def _answered(
        self,
        p: _Pass,
        asks: list[tuple[int, Instance, EffectRequest]],
        answers: dict[str, EffectCompleted],
        out: dict[int, Any],
        shots: dict[int, _Shot],
    ) -> list[tuple[int, Instance, Any]]:
        """Deliver a round's results (``answers``, else kept ones) to the activations that
        asked; returns the reactions that ask for another round."""
        kept = self.kept
        got = p.got
        outcome = p.outcome
        record = p.record
        todo: list[tuple[int, Instance, Any]] = []
        for k, inst, request in asks:
            eid = request.effect_id
            if p.heirs and eid in p.heirs:  # its route's activation answers in its place
                inst, eid = self._heir_slot(p, k, eid)
            result = kept[eid][1] if eid in kept else answers[eid]
            got[eid] = (inst.id, result)
            current = out[k]
            if not isinstance(current, Reaction) or not isinstance(
                current.disposition, RemainActive
            ):
                self._note_dropped(f"effect {eid}: its activation has settled", record)
                continue
            outcome.delivered.append((inst.id, result))
            if record is not None:
                record.delivered.append((inst.id, "EffectCompleted"))
            shot = shots.pop(k, None)
            if shot is None:
                early = p.early.get(eid) if p.early else None
                if early is not None and early[0] is result:  # `_retry_within` settled it
                    after = early[1]
                else:
                    after = self._call(inst, result, p.state, p.step, p.staged)
            else:
                after = self._settled(p, eid, shot, result)
            if isinstance(after, Reaction) and _asks_within(after.effects):
                todo.append((k, inst, after))  # another round, merged there
            elif current is _ASKED:  # nothing before it to merge with
                out[k] = after
            else:
                out[k] = merged(current, after, getattr(after, "effects", ()))
        return todo

    def _settled(self, p: _Pass, eid: str, shot: _Shot, result: EffectCompleted) -> Any:
        """A one-shot activation's reaction to its effect's ``result``: the one
        `_retry_within` settled it to, else settled now, in the context of the attempt that
        asked (its memory is the staged one); what a reducer bug raises fails it."""
        early = p.early
        if early:
            hit = early.get(eid)
            if hit is not None and hit[0] is result:
                return hit[1]
            latest = p.asked[eid][1] if eid in p.asked else None
            if latest is not None:  # retried: its latest attempt's context
                shot = latest
        return _settle(shot, result)

    def _retry_within(self, request: EffectRequest, result: EffectCompleted) -> WithinRetry | None:
        """`OpenSuperstep.retry_within` for the superstep being run. The activation's
        reaction to ``result`` is found now (and kept for the superstep); when ``request``
        was the lone work of a fresh activation (a one-shot request, or a reducer's reaction
        that asked for that effect and nothing else) and the reaction is a retryable failure
        with an attempt left (per the policy it carries, else its node's) of a node whose
        retries hold its superstep, the answer is the next attempt, as the held retry would
        start it (a fresh memory, attempt + 1, the activation's `Activated` event again), if
        that again asks for one within-step effect and nothing else. The failed result is
        logged; the attempt counts once the superstep ends."""
        p = self._open
        eid = request.effect_id
        if p is None or eid not in p.asked:
            return None  # not a lone request of this superstep: supplied as it is
        inst, shot = p.asked[eid]
        if shot is None:
            attempt = p.retried[inst.id][1] if inst.id in p.retried else inst.attempt
            after = self._call(inst, result, p.state, p.step, p.staged, attempt)
        else:
            attempt = shot.ctx.attempt
            after = _settle(shot, result)
        early = p.early
        if type(early) is not dict:
            early = p.early = {}
        early[eid] = (result, after)
        if not isinstance(after, Reaction) or not isinstance(after.disposition, FailActivation):
            return None  # (the usual answer: the effect's result settles its activation)
        failure = after.disposition.failure
        spec = self.graph.nodes[inst.node]
        if not spec.retry_holds_step:
            return None
        policy = self._retry_policy(inst, failure)
        if (
            failure.failure_class is not FailureClass.RETRYABLE
            or policy is None
            or attempt >= policy.max_attempts
        ):  # a failure for good: its node's failure route takes over now, if it has one
            if spec.on_failure is None:
                return None
            return self._hand_over_within(p, eid, inst, failure, result)
        memory = _kept_on_retry(
            spec, shot.ctx.memory if shot is not None else p.staged.memory.get(inst.id, inst.memory)
        )
        ctx = NodeContext(inst.node, inst.id, inst.lineage, attempt + 1, p.state, memory, p.step)
        start = Activated(inst.payload)
        try:
            asked = spec.fn(ctx, start) if shot is None else shot.node.request(ctx, start)
        except Exception:
            return None  # its failure then settles as it is (the held retry meets it again)
        effect = _lone_within(asked) if shot is None else asked
        if not isinstance(effect, Effect) or not effect.within_step:
            return None
        p.staged.memory[inst.id] = memory
        p.asked[eid] = (inst, None if shot is None else _Shot(shot.node, ctx, effect))
        del p.early[eid]
        p.performed.append(result)  # the log keeps every attempt, in order
        if type(p.retried) is not dict:
            p.retried = {}
        p.retried[inst.id] = (inst, attempt + 1)
        retry = EffectRequest(eid, inst.id, inst.node, effect)
        return WithinRetry(retry, policy.backoff(attempt), policy.jitter)

    def _hand_over_within(
        self, p: _Pass, eid: str, inst: Instance, failure: Failure, result: EffectCompleted
    ) -> WithinRetry | None:
        """`_hand_over` within the superstep: the activation of ``inst``'s failure route
        (its id derived from ``inst``'s, so the request's id is known now, whatever order
        the superstep's effects end in), its lone within-step request performed next in
        the failed effect's place. It becomes an activation (and ``inst`` ends) when the
        superstep ends (`_install_heirs`). None when the route's activation asks for
        anything else (the held hand-over then starts it)."""
        if any(heir is inst for _, heir in p.heirs.values()):
            return None  # a route's own activation: its failure is its own
        route = self.graph.nodes[inst.node].on_failure
        assert route is not None
        payload = NodeFailed(
            inst.node, inst.id, failure.error_type, failure.message, inst.payload, failure.cause
        )
        heir = Instance(f"{route}:{inst.seq}", route, inst.seq, inst.lineage, payload)
        heir.spawned = inst.spawned
        heir.joined = inst.joined
        fn = self.graph.nodes[route].fn
        memory: dict[str, Any] = {}
        ctx = NodeContext(route, heir.id, heir.lineage, 1, p.state, memory, p.step)
        start = Activated(payload)
        one_shot = type(fn) is OneShotEffect
        try:
            asked = fn.request(ctx, start) if one_shot else fn(ctx, start)  # type: ignore[attr-defined]
        except Exception:
            return None
        effect = asked if one_shot else _lone_within(asked)
        if not isinstance(effect, Effect) or not effect.within_step:
            return None
        heir_eid = f"{self.execution_id}/{heir.id}/e0"
        p.staged.memory[heir.id] = memory
        p.issued[heir.id] = 1
        p.asked[heir_eid] = (heir, _Shot(fn, ctx, effect) if one_shot else None)  # type: ignore[arg-type]
        if type(p.heirs) is not dict:
            p.heirs = {}
        p.heirs[eid] = (inst, heir)
        del p.early[eid]
        p.performed.append(result)  # the log keeps the failure, then the route's result
        return WithinRetry(EffectRequest(heir_eid, heir.id, route, effect), 0.0)

    def _heir_slot(self, p: _Pass, k: int, eid: str) -> tuple[Instance, str]:
        """The activation that answers batch index ``k``'s request ``eid`` after a hand-over
        within the superstep, and its request's id; its place in ``p.done`` is the heir's."""
        heir = p.heirs[eid][1]
        for i, item in enumerate(p.done):
            if item[0] == k:
                p.done[i] = (k, heir, item[2])
        return heir, f"{self.execution_id}/{heir.id}/e0"

    def _install_heirs(self, p: _Pass) -> None:
        """The hand-overs made within pass ``p``'s superstep take effect as it ends: each
        failed activation ends and its route's activation exists in its place (its event
        set aside with the superstep's, should it commit nothing), named in the outcome."""
        outcome = p.outcome
        queue = self.queue
        for inst, heir in p.heirs.values():
            self._end(inst)
            self.instances[heir.id] = heir
            event = (heir.id, Activated(heir.payload))
            # in the failed activation's place: set aside with the others should the
            # superstep hold, queued again should it fail
            p.batch = [event if item[0] == inst.id else item for item in p.batch]
            for i in range(p.queued):
                if queue[i][0] == inst.id:
                    queue[i] = event
            outcome.handed_over.append((heir.id, heir.payload))

    @staticmethod
    def _count_attempts(p: _Pass) -> None:
        """The attempts made within pass ``p`` count from here on (its superstep ended)."""
        for inst, attempt in p.retried.values():
            inst.attempt = attempt

    def _log(self, within: bool, performed: list[EffectCompleted]) -> None:
        """Log the superstep: one that delivered within-step results with those performed in
        it (a replay supplies them instead of performing anything; kept ones it rebuilds)."""
        if self.log_inputs:
            self.input_log.append(("superstep", tuple(performed)) if within else ("superstep",))

    def _keep(
        self,
        outcome: StepOutcome,
        got: dict[str, tuple[str, EffectCompleted]],
        staged: _Staged | None = None,
    ) -> StepOutcome:
        """Keep the within-step results of activations whose events are now held (delivered
        again later, they ask for the same effect ids), and only those. After a failed
        superstep (whose events stay queued, as `retry_failed` runs it again) keep those of
        every activation that did not fail, as its queued effect results would be, and show
        them all in ``failed_results``."""
        if self.failure is not None:
            failing = {inst.id for inst, _ in staged.failures} if staged is not None else set()
            self.failed_results = list(got.values())
            for eid, item in got.items():
                if item[0] not in failing and item[1].error is None:
                    self.kept[eid] = item
            return outcome
        if not self.held:  # nothing held: nothing to keep (the usual committed superstep)
            if self.kept:
                self.kept = {}
            return outcome
        if self.kept or got:
            held = {aid for aid, _ in self.held}
            kept = {eid: item for eid, item in self.kept.items() if item[0] in held}
            for eid, item in got.items():
                if item[0] in held and item[1].error is None:
                    kept[eid] = item
            self.kept = kept
        return outcome

    def _call_holding(
        self, p: _Pass, within: bool
    ) -> Generator[
        list[EffectRequest], Sequence[EffectCompleted], tuple[dict[int, Any], set[str], bool]
    ]:
        """Run the reducers of the retried (``holding``) activations' events in ``batch``
        first, to learn which settle in this superstep. Returns their results by batch index
        (reused, never run twice), the activations that settled, and whether the held events
        are released: every retried activation settled, or one failed for good (the whole
        superstep then fails, and runs again whole after `retry_failed`)."""
        batch, state, step, staged = p.batch, p.state, p.step, p.staged
        holding = {i.id for i in self.instances.values() if i.holding}
        results: dict[int, Any] = {}
        settled: set[str] = set()
        done: set[str] = set()  # no later event of theirs in this superstep is theirs to take
        pending: set[str] = set()
        doomed = False
        called: list[tuple[int, Instance, Any]] = []
        for k, (aid, event) in enumerate(batch):
            inst = self.instances.get(aid)
            if aid not in holding or inst is None or aid in done:
                continue
            result = self._call(inst, event, state, step, staged)
            results[k] = result
            called.append((k, inst, result))
            disposition = result.disposition if isinstance(result, Reaction) else None
            if not isinstance(disposition, RemainActive) and not (
                isinstance(disposition, SuspendActivation)
                and self.graph.nodes[inst.node].suspend_holds_step
            ):
                done.add(aid)
        if within:  # the retried activations' own within-step work decides if they settle
            asking = [
                item
                for item in called
                if isinstance(item[2], Reaction) and _asks_within(item[2].effects)
            ]
            if asking:
                results.update((yield from self._resolve(p, asking)))
        done.clear()
        for k, inst, _ in called:
            aid = inst.id
            if aid in done:
                continue
            result = results[k]
            disposition = result.disposition if isinstance(result, Reaction) else None
            if isinstance(disposition, RemainActive) or (
                isinstance(disposition, SuspendActivation)
                and self.graph.nodes[inst.node].suspend_holds_step
            ):
                pending.add(aid)  # still running, or interrupted again: it still holds
                continue
            done.add(aid)
            pending.discard(aid)
            if disposition is None or (
                isinstance(disposition, FailActivation)
                and not self._absorbs_failure(inst, disposition.failure)
            ):
                doomed = True
            elif isinstance(disposition, FailActivation) and self._holds_step(
                inst, disposition.failure
            ):
                pending.add(aid)  # it holds the superstep again
            else:
                settled.add(aid)
        released = doomed or (not pending and holding <= settled)
        return results, settled, released

    def _wait(
        self,
        waiting: list[tuple[str, Event]],
        queued: int,
        outcome: StepOutcome,
        record: TraceRecord | None,
    ) -> StepOutcome:
        """A superstep whose only events were retries (or resumed activations) that settled
        while others of their superstep still run or wait on interrupts: their events join
        the held ones; nothing commits. The outcome lists them as delivered and held."""
        for _ in range(queued):
            self.queue.popleft()
        self._add_waiting(waiting)
        # the settled events, and the within-step results their activations got
        ids = {aid for aid, _ in waiting}
        results = [
            d for d in outcome.delivered if d[0] in ids and isinstance(d[1], EffectCompleted)
        ]
        outcome.delivered[:] = [*waiting, *results]
        outcome.held = list(self.held)
        outcome.paused = any(i.holding and i.state == "suspended" for i in self.instances.values())
        if record is not None:
            record.dropped.append(f"{len(waiting)} settled retry event(s) held")
            self.trace.append(record)
        return outcome

    def _add_waiting(self, waiting: list[tuple[str, Event]]) -> None:
        self.held.extend(waiting)
        self._sort_held()
        for aid, _ in waiting:
            inst = self.instances.get(aid)
            if inst is not None:
                inst.holding = False

    def _hold(
        self,
        holds: list[tuple[Instance, Failure]],
        batch: list[tuple[str, Event]],
        queued: int,
        released: bool,
        waiting: list[tuple[str, Event]],
        staged: _Staged,
        outcome: StepOutcome,
        record: TraceRecord | None,
    ) -> StepOutcome:
        """Commit nothing: retry the failed activations of ``holds`` and keep the other
        events of ``batch`` (and ``waiting``) until they settle."""
        retried = {inst.id for inst, _ in holds}
        kept = self._set_aside(batch, retried, queued, released, waiting)
        instances = self.instances
        for aid, _ in waiting:
            if aid in instances:
                instances[aid].holding = False
        self.held = kept
        self._holding = True
        for inst, failure in holds:
            inst.holding = True
            inst.effects_issued = staged.issued.get(inst.id, inst.effects_issued)
            self._retry(inst, failure, outcome, record, staged.memory.get(inst.id))
            if record is not None:
                record.dispositions.append((inst.id, "FailActivation"))
        outcome.delivered.clear()
        if record is not None:
            record.dropped.append(
                f"{len(kept)} event(s) held for the retry of {', '.join(sorted(retried))}"
            )
            self.trace.append(record)
        return outcome

    def _pausing(
        self, staged: _Staged, batch: list[tuple[str, Event]], waiting: list[tuple[str, Event]]
    ) -> list[tuple[Instance, SuspendActivation, dict[str, Any]]]:
        """The suspensions that hold this superstep (``suspend_holds_step``): those of a
        superstep with more than one activation, or with events already held or waiting
        (a lone suspension holds nothing back: it commits as usual)."""
        nodes = self.graph.nodes
        found = [
            (inst, disposition, memory)
            for inst, disposition, memory, _ in staged.dispositions
            if isinstance(disposition, SuspendActivation) and nodes[inst.node].suspend_holds_step
        ]
        if not found:
            return []
        if self.held or waiting or any(i.holding for i, _, _ in found):
            return found
        return found if len({aid for aid, _ in batch}) > 1 else []

    def _pause(
        self,
        paused: list[tuple[Instance, SuspendActivation, dict[str, Any]]],
        batch: list[tuple[str, Event]],
        queued: int,
        released: bool,
        waiting: list[tuple[str, Event]],
        staged: _Staged,
        outcome: StepOutcome,
        record: TraceRecord | None,
    ) -> StepOutcome:
        """Commit nothing but the suspensions in ``paused``: the superstep's other events
        (and the held and ``waiting`` ones) wait until every suspended activation of it has
        been resumed and settled, then they are delivered again beside it and the superstep
        commits once, in canonical order. The outcome keeps the events delivered (what the
        finished ones did, for the caller's progress report) and names the held ones."""
        suspended = {inst.id for inst, _, _ in paused}
        kept = self._set_aside(batch, suspended, queued, released, waiting)
        instances = self.instances
        for aid, _ in kept:
            if aid in instances:
                instances[aid].holding = False
        self.held = kept
        self._sort_held()
        outcome.held = list(kept)
        outcome.paused = True
        self._holding = True
        for inst, disposition, memory in paused:
            inst.memory = memory
            inst.effects_issued = staged.issued.get(inst.id, inst.effects_issued)
            inst.state = "suspended"
            inst.interrupt = disposition.value
            inst.suspended_at = self.step
            inst.holding = True
            if record is not None:
                record.dispositions.append((inst.id, "SuspendActivation"))
        if record is not None:
            record.dropped.append(
                f"{len(kept)} event(s) held for the interrupt of {', '.join(sorted(suspended))}"
            )
            self.trace.append(record)
        return outcome

    def _set_aside(
        self,
        batch: list[tuple[str, Event]],
        excluded: set[str],
        queued: int,
        released: bool,
        waiting: list[tuple[str, Event]],
    ) -> list[tuple[str, Event]]:
        """Take this superstep's ``queued`` events off the queue without committing them and
        return those to hold: the held and ``waiting`` ones (unless ``released``), then the
        events of ``batch`` except those of ``excluded`` activations (the ones retried or
        suspended). A retry in progress is never held: its event goes back on the queue."""
        instances = self.instances
        kept = [] if released else [*self.held, *waiting]
        again: list[tuple[str, Event]] = []
        for aid, event in batch:
            inst = instances.get(aid)
            if inst is None or aid in excluded:
                continue
            (again if inst.holding and not released else kept).append((aid, event))
        for _ in range(queued):
            self.queue.popleft()
        self.queue.extendleft(reversed(again))
        if released:
            self._release()
        return kept

    def _release(self) -> None:
        self.held = []
        self._holding = False
        for inst in self.instances.values():
            inst.holding = False

    def _sort_held(self) -> None:
        """Keep the held events in canonical order (as the superstep will deliver them)."""
        if len(self.held) > 1:
            instances = self.instances
            self.held.sort(key=lambda item: _canonical_key(instances.get(item[0]), 0))

    def _still_holding(self) -> bool:
        self._holding = any(i.holding for i in self.instances.values())
        return self._holding

    def _commit_writes(self, writes: dict[str, list[Write]]) -> tuple[str, ...]:
        channels = self.graph.channels
        committed = self.values
        changed: dict[str, Any] = {}
        name = ""
        emptied = False
        try:
            for name in sorted(writes) if len(writes) > 1 else writes:
                value = changed[name] = channels[name].combine(
                    name, committed.get(name, MISSING), writes[name]
                )
                if value is MISSING:  # a strategy's writes left no value (an emptied topic)
                    emptied = True
        except SuperstepError:
            raise  # a conflict or a failed `Reducer` already names the channel and writers
        except Exception as e:  # another strategy raised: name its channel and writers
            raise ReducerError(name, [w for w, _ in writes[name]], e) from e
        live = self._ephemeral_live
        cleared = [n for n in live if n not in changed] if live else ()
        if changed or cleared:
            values = dict(committed)  # a new dict: snapshots handed out earlier stay intact
            values.update(changed)
            if emptied:
                for name in [n for n, v in changed.items() if v is MISSING]:
                    del values[name]
            versions = self.versions
            for name in cleared:
                values.pop(name, None)
                versions[name] = versions.get(name, 0) + 1
            if live or self._has_ephemeral:
                self._ephemeral_live = {n for n in changed if channels[n].ephemeral}
            for name in changed:
                versions[name] = versions.get(name, 0) + 1
            self.values = values
        if emptied:  # written, but no value to trigger or show (LangGraph's updated channels)
            return tuple(n for n, v in changed.items() if v is not MISSING)
        return tuple(changed)

    def _commit_input(self, updates: Mapping[str, Any]) -> tuple[str, ...]:
        for name in updates:
            if name not in self.graph.channels:
                raise UndeclaredChannelError(_INPUT_WRITER, name, list(self.graph.channels))
        written = self._commit_writes({k: [(_INPUT_WRITER, v)] for k, v in updates.items()})
        if self.record_trace:
            self.trace.append(TraceRecord(0, written=tuple(updates)))
        return written

    # --- applying a committed superstep ------------------------------------------------------

    def _apply(self, staged: _Staged, outcome: StepOutcome, record: TraceRecord | None) -> None:
        pending: list[tuple[str, tuple[int, ...], Any, int, str]] = staged.activations or []
        if self._spent:
            self._spent = {}
        failures = staged.failures
        failed = {inst.id: failure for inst, failure in failures} if failures else _NO_ERRORS
        instances = self.instances
        for aid, issued in staged.issued.items():  # within-step effects counted too
            if (owner := instances.get(aid)) is not None:
                owner.effects_issued = issued
        for inst, effect_request in staged.effects:
            inst.pending_effects.add(effect_request.effect_id)
            self.awaited[effect_request.effect_id] = inst.id
            outcome.effects.append(effect_request)
            if record is not None:
                record.effects.append(effect_request.effect_id)
        for inst, action in staged.timers:
            self._arm(inst.id, action.timer_id, action.delay, action.payload, outcome, record)
        for inst, disposition, memory, end_branch in staged.dispositions:
            inst.memory = memory
            if record is not None:
                record.dispositions.append((inst.id, type(disposition).__name__))
            if isinstance(disposition, RemainActive):
                continue
            if isinstance(disposition, CompleteActivation):
                self._end(inst)
                if inst.node in self.graph.ends:
                    self.outputs.append((inst.node, disposition.output))
                if not end_branch:
                    pending.extend(self._follow(inst, disposition.output))
            elif isinstance(disposition, BecomeInactive):
                self._end(inst)
            elif isinstance(disposition, SuspendActivation):
                inst.state = "suspended"
                inst.interrupt = disposition.value
                inst.suspended_at = self.step
            elif isinstance(disposition, FailActivation):
                pending.extend(self._handle_failure(inst, failed[inst.id], outcome, record))
        for node in staged.deactivations:
            for inst in [i for i in self.instances.values() if i.node == node]:
                self._end(inst)
        self._activate(pending, outcome, record, staged.publishes)

    def _activate(
        self,
        pending: list[tuple[str, tuple[int, ...], Any, int, str]],
        outcome: StepOutcome,
        record: TraceRecord | None,
        publishes: list[External],
    ) -> None:
        """The last part of applying a committed superstep (`_apply`, `_commit_lone`): queue
        the activations it requested (``pending``: control, edges, joins; the nodes its
        written channels trigger are added here) and route its ``publishes``, release what
        was deferred, then check the barriers of an execution gone quiet."""
        if outcome.written and self.graph.subscribers:
            pending.extend(self._triggered(outcome.written))
        for node, lineage, payload, spawn, source in (
            _coalesce(self.graph, pending) if len(pending) > 1 else pending
        ):
            if spawn == 1:  # a Spawn into a new child lineage
                self._lineages += 1
                lineage = (*lineage, self._lineages)
            spec = self.graph.nodes[node]
            if spec.defer and not (spawn != 0 and spec.defer_beside_spawns):
                if all(d[0] != node for d in self.deferred):
                    self.deferred.append((node, lineage, payload))
                continue
            aid = self._enqueue_activation(
                node,
                lineage,
                payload,
                spawn != 0,
                source if source in self.graph.joins_by_name else None,  # `_join_of`
            )
            if record is not None:
                record.activated.append(aid)
        for event in publishes:
            queued = self._route(event)
            if record is not None:
                record.activated.extend(a for a in queued if a not in record.activated)
        if self.deferred:
            self._release_deferred(record)
        if self.failure is None and not self.queue and not self.awaited:
            self._check_barriers(outcome, record)

    def _triggered(
        self, written: Iterable[str]
    ) -> list[tuple[str, tuple[int, ...], Any, int, str]]:
        """The activations a commit that changed ``written`` requests: each node triggered
        by one of those channels, once (in the root lineage, without payload)."""
        subscribers = self.graph.subscribers
        nodes = dict.fromkeys(n for ch in written for n in subscribers.get(ch, ()))
        return [(node, (), None, 0, "") for node in nodes]

    def _release_deferred(self, record: TraceRecord | None) -> None:
        """Queue the deferred activations whose wait is over: all of them when nothing is
        queued, awaited or suspended; those of ``defer_beside_spawns`` nodes already when
        the queue holds spawned activations only. The rest keep waiting, in order."""
        if self.held or self.awaited:
            return
        if any(i.state == "suspended" for i in self.instances.values()):
            return
        quiet = not self.queue
        if not quiet:
            instances = self.instances
            for aid, event in self.queue:
                inst = instances.get(aid)
                if not (isinstance(event, Activated) and inst is not None and inst.spawned):
                    return
        nodes = self.graph.nodes
        kept: list[tuple[str, tuple[int, ...], Any]] = []
        for node, lineage, payload in self.deferred:
            if not (quiet or nodes[node].defer_beside_spawns):
                kept.append((node, lineage, payload))
                continue
            aid = self._enqueue_activation(node, lineage, payload)
            if record is not None:
                record.activated.append(aid)
        self.deferred = kept

    def _follow(
        self, inst: Instance, output: Any, complete: Container[str | None] = ()
    ) -> list[tuple[str, tuple[int, ...], Any, int, str]]:
        """The activations ``inst`` completing requests: its successors, its branches'
        choices, and the targets of the joins it completes (``complete``: joins it is not
        credited to, as their barriers are complete already). An activation a join starts
        names that join as its source."""
        graph = self.graph
        lineage = inst.lineage
        aid = inst.id
        out: list[tuple[str, tuple[int, ...], Any, int, str]] = []
        for t in graph.successors.get(inst.node, ()):  # a loop: most nodes have one or none
            out.append((t, lineage, output, False, aid))
        for branch in graph.branches_of.get(inst.node, ()):
            try:
                chosen = branch.router(MappingProxyType(self.values), output)
            except Exception as e:  # the commit stands; the execution stops here, resumably
                self.failure = ExecutionFailure(
                    inst.node, inst.id, type(e).__name__, f"branch router failed: {e}", self.step
                )
                return out
            if isinstance(chosen, str):
                targets: Sequence[Any] = (chosen,)
            elif isinstance(chosen, (list, tuple)):
                targets = chosen
            elif chosen is None:
                targets = ()
            else:  # not a key: refuse it (a set, say, has no deterministic order)
                self.failure = ExecutionFailure(
                    inst.node,
                    inst.id,
                    "BranchError",
                    f"branch from {inst.node!r} (router {_name(branch.router)}) returned "
                    f"{chosen!r:.80} ({type(chosen).__name__}); a router must return one of "
                    f"its declared targets {list(branch.targets)}, a list of them, or None",
                    self.step,
                )
                return out
            for t in targets:
                if t not in branch.targets:
                    self.failure = ExecutionFailure(
                        inst.node,
                        inst.id,
                        "BranchError",
                        f"branch from {inst.node!r} chose {t!r}, which is not one of its "
                        f"declared targets {list(branch.targets)}",
                        self.step,
                    )
                    return out
                out.append((t, inst.lineage, output, False, inst.id))
        for join in graph.joins_of.get(inst.node, ()):
            if join.name not in complete:
                out.extend(self._credit(join, inst, output))
        return out

    def _credit(
        self, join: Join, inst: Instance, output: Any, *, succeeded: bool = True
    ) -> list[tuple[str, tuple[int, ...], Any, int, str]]:
        key = (join.name, inst.lineage)
        barrier = self.barriers.get(key)
        if barrier is None:
            if self._spent and key in self._spent:
                # A source completing again in the superstep whose completions filled and
                # fired this barrier: a superstep's completions are one set (LangGraph's
                # barrier channel), so it counts once, not towards the barrier's next round.
                return []
            barrier = self.barriers[key] = Barrier()
        if succeeded:
            barrier.completed[inst.node] = output
        else:
            barrier.failed.add(inst.node)
        out: list[tuple[str, tuple[int, ...], Any, int, str]] = []
        needed = join.fire.needed(len(join.sources))
        if isinstance(join.on_failure, ContinueWithSuccesses) and barrier.completed:
            # Failed sources count as resolved: fire with the successes once the policy can
            # be met by the sources that did not fail.
            needed = min(needed, len(join.sources) - len(barrier.failed))
        held = isinstance(join.on_failure, WaitForAllThenFail) and bool(barrier.failed)
        if not barrier.fired and not held and len(barrier.completed) >= needed:
            barrier.fired = True
            outputs = {s: barrier.completed[s] for s in join.sources if s in barrier.completed}
            out.append((join.target, inst.lineage, outputs, False, join.name))
        if len(barrier.completed) + len(barrier.failed) >= len(join.sources):
            del self.barriers[key]
            if barrier.fired:
                self._spent[key] = barrier
            if isinstance(join.on_failure, WaitForAllThenFail) and barrier.failed:
                self.failure = ExecutionFailure(
                    join.target,
                    inst.id,
                    "JoinFailedError",
                    f"join {join.name!r}: sources {', '.join(sorted(barrier.failed))} failed",
                    self.step,
                )
        return out

    def _handle_failure(
        self,
        inst: Instance,
        failure: Failure,
        outcome: StepOutcome,
        record: TraceRecord | None,
    ) -> list[tuple[str, tuple[int, ...], Any, int, str]]:
        if self._retry_left(inst, failure) or self._routed(inst, failure):
            self._retry(inst, failure, outcome, record)
            return []
        self._end(inst)
        out: list[tuple[str, tuple[int, ...], Any, int, str]] = []
        for join in self.graph.joins_of.get(inst.node, ()):
            if isinstance(join.on_failure, RouteFailuresTo):
                payload = JoinFailure(
                    join.name,
                    inst.node,
                    inst.id,
                    failure.error_type,
                    failure.message,
                    inst.payload,
                )
                out.append((join.on_failure.node, inst.lineage, payload, False, inst.id))
            if isinstance(
                join.on_failure, ContinueWithSuccesses | RouteFailuresTo | WaitForAllThenFail
            ):
                out.extend(self._credit(join, inst, None, succeeded=False))
        return out

    def _retry(
        self,
        inst: Instance,
        failure: Failure,
        outcome: StepOutcome,
        record: TraceRecord | None,
        memory: Mapping[str, Any] | None = None,
    ) -> None:
        """Start attempt+1 of ``inst`` afresh, after the backoff of the deciding policy (or,
        with no retry left, hand it to its node's failure route). ``memory``: what the failed
        attempt left (its staged memory, when it did not commit), else ``inst``'s; the new
        attempt keeps only its node's ``retry_keeps`` of it."""
        if self._routed(inst, failure):
            self._hand_over(inst, failure)
            return
        policy = self._retry_policy(inst, failure)
        assert policy is not None
        delay = policy.backoff(inst.attempt)
        inst.attempt += 1
        inst.memory = _kept_on_retry(
            self.graph.nodes[inst.node], inst.memory if memory is None else memory
        )
        # an attempt's effects keep the ids (idempotency keys) of the first attempt's: an
        # HTTP API told the same key twice applies the request once
        inst.effects_issued = 0
        for eid in inst.pending_effects:
            self.awaited.pop(eid, None)
        inst.pending_effects.clear()
        inst.state = "retrying"
        if delay > 0 or policy.jitter > 0:
            self._arm(inst.id, _RETRY_TIMER, delay, None, outcome, record, policy.jitter)
        else:
            inst.state = "active"
            self.queue.append((inst.id, Activated(inst.payload)))

    def _hand_over(self, inst: Instance, failure: Failure) -> None:
        """End ``inst`` and start an activation of its node's failure route in its place,
        with a `NodeFailed` payload: same lineage (its edges and joins are the route node's
        own), and, when ``inst`` held its superstep, holding it in its place, so the route's
        work commits in that superstep. The route's own failure is decided by the route
        node's settings."""
        route = self.graph.nodes[inst.node].on_failure
        assert route is not None
        payload = NodeFailed(
            inst.node, inst.id, failure.error_type, failure.message, inst.payload, failure.cause
        )
        holding = inst.holding
        inst.holding = False  # not a release: the route's activation holds in its place
        self._end(inst)
        self._seq += 1
        aid = f"{route}:{self._seq}"
        heir = Instance(aid, route, self._seq, inst.lineage, payload)
        heir.spawned = inst.spawned
        heir.joined = inst.joined
        heir.holding = holding
        self.instances[aid] = heir
        self.queue.append((aid, Activated(payload)))

    def _check_barriers(self, outcome: StepOutcome, record: TraceRecord | None) -> None:
        """At quiescence an unfired barrier whose join must not stay incomplete fails the
        execution loudly (its missing sources can no longer run)."""
        for (name, lineage), barrier in sorted(self.barriers.items()):
            join = self.graph.joins_by_name[name]
            if barrier.fired or join.on_incomplete == "keep":
                continue
            if self.instances or self.timers:
                return  # live instances may still complete a source
            missing = [
                s for s in join.sources if s not in barrier.completed and s not in barrier.failed
            ]
            self.failure = ExecutionFailure(
                join.target,
                "-",
                "UnsatisfiableJoinError",
                f"join {name!r} (lineage {lineage}) can never fire: sources "
                f"{', '.join(missing)} will not run",
                self.step,
            )
            if record is not None:
                record.failure = self.failure.message
            return
        for key in [k for k, b in self.barriers.items() if b.fired]:
            del self.barriers[key]

    # --- helpers -----------------------------------------------------------------------------

    def _join_of(self, source: str) -> str | None:
        """The join that requested an activation, when ``source`` names one (see `_credit`)."""
        return source if source in self.graph.joins_by_name else None

    def _enqueue_activation(
        self,
        node: str,
        lineage: tuple[int, ...],
        payload: Any,
        spawned: bool = False,
        joined: str | None = None,
    ) -> str:
        seq = self._seq = self._seq + 1
        aid = f"{node}:{seq}"
        inst = Instance(aid, node, seq, lineage, payload)
        if spawned:
            inst.spawned = True
        if joined is not None:
            inst.joined = joined
        self.instances[aid] = inst
        self.queue.append((aid, Activated(payload)))
        return aid

    def _route(self, event: External) -> list[str]:
        queued: list[str] = []
        for route in self.graph.routes_of.get(event.name, ()):
            if not route.predicate(event.payload):
                continue
            live = sorted(
                (
                    i
                    for i in self.instances.values()
                    if i.node == route.node and i.state == "active"
                ),
                key=_canonical,
            )
            if not live:
                self._seq += 1
                aid = f"{route.node}:{self._seq}"
                self.instances[aid] = Instance(aid, route.node, self._seq, (), None)
                live = [self.instances[aid]]
            for inst in live:
                self.queue.append((inst.id, event))
                queued.append(inst.id)
        return queued

    def _arm(
        self,
        aid: str,
        timer_id: str,
        delay: float | None,
        payload: Any,
        outcome: StepOutcome,
        record: TraceRecord | None,
        jitter: float = 0.0,
    ) -> None:
        self._timer_generation += 1
        generation = self._timer_generation
        if delay is None:
            self.timers.pop((aid, timer_id), None)
        else:
            self.timers[(aid, timer_id)] = generation
        outcome.timers.append(TimerRequest(aid, timer_id, generation, delay, payload, jitter))
        if record is not None:
            record.timers.append(
                f"{aid}/{timer_id}#{generation}" + ("" if delay is not None else " cancelled")
            )

    def _end(self, inst: Instance) -> None:
        self.instances.pop(inst.id, None)
        if inst.holding:  # ended while retried (deactivated): what it held runs without it
            inst.holding = False
            if not any(i.holding for i in self.instances.values()):
                self.queue.extend(self.held)
                self.held = []
        for eid in inst.pending_effects:
            self.awaited.pop(eid, None)
        for key in [k for k in self.timers if k[0] == inst.id] if self.timers else ():
            del self.timers[key]

    def _fail(
        self,
        node: str,
        aid: str,
        error_type: str,
        message: str,
        outcome: StepOutcome,
        record: TraceRecord | None,
    ) -> StepOutcome:
        self.failure = ExecutionFailure(node, aid, error_type, message, self.step + 1)
        if self.held:  # the held events belong to the failed superstep: it runs again whole
            self.queue.extendleft(reversed(self.held))
            self._release()
        if record is not None:
            record.failure = f"{node} ({aid}): {error_type}: {message}"
            self.trace.append(record)
        # The log keeps the failure as observed, not as a computation to repeat: a failed
        # superstep that `retry_failed` later commits failed because of something outside
        # (a file, a flaky service), so a replay must reproduce the failure, not re-run it.
        if self.input_log and self.input_log[-1][0] == "superstep" and len(self.input_log[-1]) < 3:
            logged = None if record is None else _record_copy(record)
            self.input_log[-1] = ("superstep", self.failure, logged)
        outcome.delivered.clear()
        return outcome

    def _note_dropped(self, why: str, record: TraceRecord | None = None) -> None:
        if record is not None:
            record.dropped.append(why)
        elif self.record_trace and self.trace:
            self.trace[-1].dropped.append(why)


def _copied(state: ExecutionState) -> ExecutionState:
    """A copy of ``state`` whose containers share nothing with it (values are shared).
    Built field by field: `dataclasses.replace` re-runs `__init__` through `fields()`, which
    costs more than the copying itself on every checkpoint."""
    return ExecutionState(
        state.graph,
        state.execution_id,
        dict(state.values),
        dict(state.versions),
        state.step,
        list(state.queue),
        [_instance_copy(i) for i in state.instances],
        dict(state.awaited),
        list(state.timers),
        [
            (name, lineage, Barrier(dict(b.completed), set(b.failed), b.fired))
            for name, lineage, b in state.barriers
        ],
        list(state.outputs),
        list(state.deferred),
        state.failure,
        state.counters,
        list(state.ephemeral_live),
        list(state.held),
        dict(state.kept),
    )


def _name(fn: Any) -> str:
    return str(getattr(fn, "__name__", None) or repr(fn))


def _record_copy(record: TraceRecord) -> TraceRecord:
    """A copy sharing no list with ``record`` (a later drop is noted in the trace's last
    record, which must not change the logged copy)."""
    return TraceRecord(
        record.step,
        list(record.delivered),
        list(record.dispositions),
        record.written,
        list(record.activated),
        list(record.effects),
        list(record.timers),
        list(record.dropped),
        record.failure,
    )


def _instance_copy(i: Instance) -> Instance:
    return Instance(
        i.id,
        i.node,
        i.seq,
        i.lineage,
        i.payload,
        i.attempt,
        i.state,
        dict(i.memory),
        i.effects_issued,
        set(i.pending_effects),
        i.interrupt,
        i.suspended_at,
        i.spawned,
        i.holding,
        i.joined,
    )


def _canonical(inst: Instance) -> tuple[bool, str, int]:
    # Spawned activations (fan-out items) keep the order they were spawned in, whatever
    # their node; they follow the activations that edges and `Activate` started.
    return (inst.spawned, "" if inst.spawned else inst.node, inst.seq)


def _canonical_key(inst: Instance | None, fifo: int) -> tuple[bool, str, int, int]:
    if inst is None:
        return (False, "", 0, fifo)
    return (inst.spawned, "" if inst.spawned else inst.node, inst.seq, fifo)


def _settle(shot: _Shot, result: EffectCompleted) -> Any:
    """A one-shot activation's reaction to its effect's ``result``, in the context of the
    attempt that asked; what a reducer bug raises fails the activation."""
    try:
        return shot.node.settle(shot.ctx, result)
    except Exception as e:
        return e


def _lone_within(reaction: Any) -> Effect | None:
    """The one within-step effect a reaction asks for when it does nothing else (no
    update, control or other effect, and waits), else None."""
    if not isinstance(reaction, Reaction) or not isinstance(reaction.disposition, RemainActive):
        return None
    effects = reaction.effects
    if len(effects) != 1 or reaction.updates or reaction.control:
        return None
    effect = effects[0]
    return effect if effect.within_step else None


def _asks_within(effects: Iterable[Effect]) -> bool:
    """Whether any of ``effects`` is a within-step one (in C: this runs for every reaction,
    and a generator for `any` cost as much as the test)."""
    return True in map(_WITHIN_STEP, effects)


_WITHIN_STEP = attrgetter("within_step")


def _add(items: list[Any], item: Any) -> list[Any]:
    """``items`` with ``item`` appended: in place, or, while it is the shared empty start
    (`_NONE`), as a new list."""
    if items:
        items.append(item)
        return items
    return [item]


def _pairs(updates: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> list[tuple[str, Any]]:
    # exact types first: an ABC check (`Mapping`) costs several times a plain one, per staging
    if type(updates) is list:
        return updates  # read only by the callers
    if isinstance(updates, (dict, Mapping)):
        return list(updates.items())
    return list(updates)


def _coalesce(
    graph: CompiledGraph, pending: list[tuple[str, tuple[int, ...], Any, int, str]]
) -> list[tuple[str, tuple[int, ...], Any, int, str]]:
    """Merge `Activate`s of a coalescing node requested in one superstep into one activation
    in the requesters' common lineage (`Spawn`s never merge)."""
    if len(pending) < 2:
        return pending  # nothing to merge with
    out: list[tuple[str, tuple[int, ...], Any, int, str]] = []
    merged: dict[str, int] = {}
    for item in pending:
        node, lineage, _payload, spawn, _source = item
        if spawn or not graph.nodes[node].coalesce:
            out.append(item)
            continue
        at = merged.get(node)
        if at is None:
            merged[node] = len(out)
            out.append(item)
        else:
            prev = out[at]
            # a join's request names the join: kept when merged (see `Instance.joined`)
            source = item[4] if item[4] in graph.joins_by_name else prev[4]
            out[at] = (node, _common_prefix(prev[1], lineage), prev[2], False, source)
    return out


def _common_prefix(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return a[:n]


def _kept_on_retry(spec: NodeSpec, memory: Mapping[str, Any]) -> dict[str, Any]:
    """The memory an activation's next attempt starts with: the keys its node keeps across
    attempts (`NodeSpec.retry_keeps`), nothing else."""
    keeps = spec.retry_keeps
    if not keeps:
        return {}
    return {key: memory[key] for key in keeps if key in memory}
