"""Durable executions: an execution that survives its process, on any LangGraph
`BaseCheckpointSaver` (`superstep_core.host.thread_checkpoints` maps it onto checkpoints).

After every committed superstep a `DurableExecution` writes a checkpoint whose ``new_versions``
name only the channels whose version changed (see `superstep_core.persistence.durable`), with
the rest of the execution in its header channel. Every input is in the thread's input log no
later than the checkpoint that covers it (the record a superstep logged is committed with its
checkpoint; later ones are pending writes of the latest checkpoint), and every completed
effect's result is recorded in the ledger (a pending write) as soon as it completes, before the
superstep that consumes it commits. A `DurableExecution` is driven by the host's own loop
(`Host.run`): an effect declared ``within_step`` is performed inside the superstep that asked
for it, whose input-log record carries its result, so that superstep is one checkpoint; a
process that dies mid-superstep leaves the last checkpoint as it was, and the superstep runs
again on recovery, its recorded effects answered from the ledger. `DurableRunner.recover` rebuilds
an execution from the latest checkpoint, applies the inputs logged after it, performs the
effects whose results never arrived (a result in the ledger is replayed, never performed
again) and continues. `DurableRunner.replay` rebuilds a thread from its input log alone and
checks it against every stored checkpoint; `fork` starts a new thread from any checkpoint.
Human edits are audited: the actor must be in an allow-list, and the actor, permission and a
timestamp from the host's wall clock are committed with the edit and listed in `history`.

A superstep that fails commits nothing, so it writes no checkpoint: its failure goes to the
input log (a replay or a recovery applies it from there rather than running the superstep
again, which after a retry would succeed) and is noted on the last checkpoint as an
``__error__`` pending write, for `history`; `DurableExecution.retry_failed` runs it again.

With ``leases`` (a `LeaseStore`), a thread has one owner at a time: `DurableRunner.start`,
`recover` and `fork` take the thread's lease before anything is written or performed (a second
process is refused with `LeaseHeldError` naming the owner), it is renewed while the execution
is driven, checked before every batch of effects, and released by `DurableExecution.close`.

Every call that reads or writes the saver has an async twin (``astart``, ``arecover``,
``afork``, ``areplay``, ``ahistory``, ...), written once with it as a twin core
(`superstep_core.twin`); the async lane's executions are `AsyncDurableExecution`s, driven on
an `AsyncHost`, which await the saver's async methods. Either lane reaches a saver through the
half of the protocol it implements (`superstep_core.host.saver_io`), so async-only and
sync-only savers hold threads as well; leases stay synchronous.

Effects of kind ``"call"`` (a callable request) cannot be stored; after a crash they can only
be recovered from the ledger. A failed effect is not recorded in the ledger, so a crash before
the next checkpoint performs it again.

Must never import: the llm layer, compat.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from langgraph.checkpoint.base import BaseCheckpointSaver

from superstep_core.graph import CompiledGraph
from superstep_core.host.clock import Clock
from superstep_core.host.durable_execution import (
    AsyncDurableExecution,
    DurableCore,
    DurableExecution,
    Permission,
    _digest,
)
from superstep_core.host.durable_records import (
    HistoryEntry,
    PermissionDeniedError,
    RecoveryError,
    ReplayReport,
    StoreLedger,
    UnknownThreadError,
)
from superstep_core.host.effects import Handler
from superstep_core.host.lease import DEFAULT_TTL, HeldLease, LeaseStore
from superstep_core.host.saver_io import SaverLoopError
from superstep_core.host.thread_checkpoints import StoredStep, ThreadCheckpoints
from superstep_core.persistence import Codec
from superstep_core.persistence.durable import (
    ChannelWriter,
    StepHeader,
    decode_header,
    decode_inputs,
    join_values,
    known_from,
)
from superstep_core.persistence.replay import apply_input, replay
from superstep_core.runtime import Execution, ExecutionState, StepOutcome
from superstep_core.twin import Twin, adrive, drive, twins

__all__ = [
    "AsyncDurableExecution",
    "DurableExecution",
    "DurableRunner",
    "HistoryEntry",
    "PermissionDeniedError",
    "RecoveryError",
    "ReplayReport",
    "SaverLoopError",
    "StoreLedger",
    "UnknownThreadError",
    "aresume_from_saver",
    "resume_from_saver",
]

DX = TypeVar("DX", bound=DurableCore)
"""The lane's durable execution: `DurableExecution` or `AsyncDurableExecution`."""


class DurableRunner:
    """Starts, recovers, replays and forks durable executions on ``saver`` (any LangGraph
    `BaseCheckpointSaver`: `SqliteCheckpointSaver`, `PostgresCheckpointSaver`, `InMemorySaver`,
    LangGraph's official savers, a community saver).

    ``handlers``, ``max_workers`` as for `Host`; ``clock``: the host's clock (default
    `WallClock`: timer deadlines are recorded on it and stay absolute across a restart);
    ``codec``: how values become bytes
    (default: `Codec()` on the default registry); ``wall_clock``: the timestamps of audited
    edits (default: UTC now); ``permissions``: the edit allow-list, actor -> `Permission`;
    ``on_step(ex, outcome)``: called after each superstep's checkpoint (progress reports);
    ``leases``: where threads are leased (see the module docstring; ``None``: no leases, the
    caller guarantees one owner), as ``owner`` (default: `process_owner()`) for ``lease_ttl``
    seconds at a time.

    Each method that reads or writes the saver has a coroutine twin, ``a<name>``: its
    saver calls awaited, and ``astart``, ``arecover`` and ``afork`` returning an
    `AsyncDurableExecution` (on an event loop an async saver is bound to, use these; a plain
    call there that only the loop could answer raises `SaverLoopError`).
    """

    def __init__(
        self,
        saver: BaseCheckpointSaver[Any],
        handlers: Mapping[str, Handler] | None = None,
        *,
        codec: Codec | None = None,
        clock: Clock | None = None,
        wall_clock: Callable[[], datetime] | None = None,
        max_workers: int = 8,
        permissions: Mapping[str, Permission] | None = None,
        on_step: Callable[[Execution, StepOutcome], None] | None = None,
        leases: LeaseStore | None = None,
        owner: str | None = None,
        lease_ttl: float = DEFAULT_TTL,
    ) -> None:
        self.saver = saver
        self.leases = leases
        self.owner = owner
        self.lease_ttl = lease_ttl
        self.handlers: dict[str, Handler] = dict(handlers or {})
        self.codec = codec or Codec()
        self.clock = clock
        self.wall_clock = wall_clock or (lambda: datetime.now(UTC))
        self.max_workers = max_workers
        self.permissions: dict[str, Permission] = dict(permissions or {})
        self.on_step = on_step

    def _exists(self, thread_id: str) -> Twin[bool]:
        """Whether the saver holds an engine thread ``thread_id`` (a thread a LangGraph graph
        wrote, in the same saver, is not one; `start` and `fork` refuse its id too)."""
        return (yield from ThreadCheckpoints(self.saver, thread_id)._is_engine_thread())

    exists, aexists = twins(_exists)

    def _taken(self, thread_id: str) -> Twin[bool]:
        return (yield from ThreadCheckpoints(self.saver, thread_id)._exists())

    def start(
        self,
        graph: CompiledGraph,
        thread_id: str,
        *,
        payload: Any = None,
        updates: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> DurableExecution:
        """A new execution on a new thread (its id is the thread id), checkpointed at step 0.
        ``metadata`` (JSON-able) is kept on every checkpoint. Raises ``ValueError`` when the
        thread exists, `LeaseHeldError` when another owner holds its lease."""
        return drive(self._start(DurableExecution, graph, thread_id, payload, updates, metadata))

    async def astart(
        self,
        graph: CompiledGraph,
        thread_id: str,
        *,
        payload: Any = None,
        updates: Mapping[str, Any] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> AsyncDurableExecution:
        """`start` on asyncio: the saver's async methods awaited, an `AsyncDurableExecution`
        returned."""
        core = self._start(AsyncDurableExecution, graph, thread_id, payload, updates, metadata)
        return await adrive(core)

    def _start(
        self,
        lane: type[DX],
        graph: CompiledGraph,
        thread_id: str,
        payload: Any,
        updates: Mapping[str, Any] | None,
        metadata: Mapping[str, Any] | None,
    ) -> Twin[DX]:
        dx: DX = yield from self._leased(
            thread_id, self._started, lane, graph, thread_id, payload, updates, metadata
        )
        return dx

    def _started(
        self,
        lease: HeldLease | None,
        lane: type[DX],
        graph: CompiledGraph,
        thread_id: str,
        payload: Any,
        updates: Mapping[str, Any] | None,
        metadata: Mapping[str, Any] | None,
    ) -> Twin[DX]:
        if (yield from self._taken(thread_id)):
            raise ValueError(f"thread {thread_id!r} already exists: recover it or pick a new id")
        ex = Execution.start(graph, thread_id, payload=payload, updates=updates)
        writer = ChannelWriter(graph.channels, self.codec)
        dx = lane(self, ex, thread_id, writer=writer, metadata=metadata, lease=lease)
        yield from dx._checkpoint("input", written=tuple(updates or ()))
        return dx

    def recover(self, graph: CompiledGraph, thread_id: str) -> DurableExecution:
        """The thread's execution as its process left it: the latest checkpoint, plus the
        inputs logged after it (supersteps among them run again, deterministically, and are
        checkpointed). Call `DurableExecution.run` to continue. Raises `UnknownThreadError`,
        `RecoveryError`, or `LeaseHeldError` when another owner holds the thread."""
        return drive(self._recover(DurableExecution, graph, thread_id))

    async def arecover(self, graph: CompiledGraph, thread_id: str) -> AsyncDurableExecution:
        """`recover` on asyncio (see `astart`)."""
        return await adrive(self._recover(AsyncDurableExecution, graph, thread_id))

    def _recover(self, lane: type[DX], graph: CompiledGraph, thread_id: str) -> Twin[DX]:
        dx: DX = yield from self._leased(thread_id, self._recovered, lane, graph, thread_id)
        return dx

    def _recovered(
        self, lease: HeldLease | None, lane: type[DX], graph: CompiledGraph, thread_id: str
    ) -> Twin[DX]:
        loaded = yield from self._load(thread_id)
        header, state = self._state(loaded)
        ex = self._restore(graph, state, thread_id)
        known = known_from(state.values, state.versions, _stored_names(loaded), header.layout)
        writer = ChannelWriter(graph.channels, self.codec, known)
        metadata = {k: v for k, v in loaded.metadata.items() if k not in _OWN_KEYS}
        dx = lane(
            self,
            ex,
            thread_id,
            writer=writer,
            header=header,
            loaded=loaded,
            metadata=metadata,
            lease=lease,
        )
        for seq, data in loaded.inputs:
            if seq < header.inputs:
                continue
            audit: dict[str, Any] | None = None
            last = ""
            outcome: StepOutcome | None = None
            for entry in decode_inputs(data, self.codec):
                if entry[0] == "audit":
                    audit = dict(zip(("actor", "permission", "timestamp"), entry[1:], strict=True))
                result = apply_input(ex, entry)
                if result is not None:
                    outcome = result
                    dx._note(result)
                last = entry[0]
            ex.input_log.clear()  # already in the store
            dx._inputs = seq + 1
            if last == "superstep" and outcome is not None and outcome.committed:
                yield from dx._checkpoint("loop", outcome)
            elif last == "edit":
                yield from dx._checkpoint("edit", audit=audit)
        return dx

    def fork(
        self,
        graph: CompiledGraph,
        thread_id: str,
        checkpoint_id: str,
        new_thread_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> DurableExecution:
        """A new thread continuing from checkpoint ``checkpoint_id`` of ``thread_id`` (the
        execution is renamed after the new thread). Raises `UnknownThreadError`,
        ``ValueError`` when the new thread exists, or `LeaseHeldError`."""
        lane = DurableExecution
        return drive(self._fork(lane, graph, thread_id, checkpoint_id, new_thread_id, metadata))

    async def afork(
        self,
        graph: CompiledGraph,
        thread_id: str,
        checkpoint_id: str,
        new_thread_id: str,
        *,
        metadata: Mapping[str, Any] | None = None,
    ) -> AsyncDurableExecution:
        """`fork` on asyncio (see `astart`)."""
        lane = AsyncDurableExecution
        return await adrive(
            self._fork(lane, graph, thread_id, checkpoint_id, new_thread_id, metadata)
        )

    def _fork(
        self,
        lane: type[DX],
        graph: CompiledGraph,
        thread_id: str,
        checkpoint_id: str,
        new_thread_id: str,
        metadata: Mapping[str, Any] | None,
    ) -> Twin[DX]:
        dx: DX = yield from self._leased(
            new_thread_id,
            self._forked,
            lane,
            graph,
            thread_id,
            checkpoint_id,
            new_thread_id,
            metadata,
        )
        return dx

    def _forked(
        self,
        lease: HeldLease | None,
        lane: type[DX],
        graph: CompiledGraph,
        thread_id: str,
        checkpoint_id: str,
        new_thread_id: str,
        metadata: Mapping[str, Any] | None,
    ) -> Twin[DX]:
        if (yield from self._taken(new_thread_id)):
            raise ValueError(f"thread {new_thread_id!r} already exists: pick a new id")
        loaded = yield from self._load(thread_id, checkpoint_id)
        header, state = self._state(loaded)
        ex = self._restore(graph, state, new_thread_id)
        writer = ChannelWriter(graph.channels, self.codec)
        base = {k: v for k, v in loaded.metadata.items() if k not in _OWN_KEYS}
        header = replace(header, inputs=0)
        dx = lane(
            self,
            ex,
            new_thread_id,
            writer=writer,
            header=header,
            metadata={**base, **(metadata or {})},
            lease=lease,
        )
        ex.input_log.append(("fork", thread_id, loaded.checkpoint_id))
        yield from dx._checkpoint("fork")
        return dx

    def _replay(self, graph: CompiledGraph, thread_id: str) -> Twin[ReplayReport]:
        """Rebuild the thread from its input log alone (nothing is performed) and compare it
        with every stored checkpoint: state and trace digest at each superstep."""
        checkpoints = yield from self._history(thread_id)
        execution_id = str(checkpoints[-1].metadata.get("execution_id", thread_id))
        log: dict[int, bytes] = {}
        for checkpoint in checkpoints:
            for seq, data in checkpoint.inputs:
                log.setdefault(seq, data)
        entries = [e for _, d in sorted(log.items()) for e in decode_inputs(d, self.codec)]
        seen: dict[int, tuple[ExecutionState, str]] = {}

        def hook(ex: Execution, kind: str, outcome: StepOutcome | None) -> None:
            if outcome is not None and not outcome.committed:
                return  # a failed superstep left the last checkpoint as it was
            source = {"superstep": "loop", "edit": "edit"}.get(kind, kind)
            seen[ex.step] = (ex.snapshot(), _digest(ex, source))

        base: ExecutionState | None = None
        if entries and entries[0][0] == "fork":
            _, source_thread, source_id = entries[0]
            base = self._state((yield from self._load(source_thread, source_id)))[1]
            entries = entries[1:]
        try:
            ex = replay(graph, entries, execution_id, state=base, on_step=hook)
        except ValueError as e:
            return ReplayReport(False, len(entries), len(checkpoints), [str(e)], None)
        mismatches: list[str] = []
        for checkpoint in checkpoints:
            stored = self._state(checkpoint)[1]
            got = seen.get(checkpoint.step)
            if got is None:
                mismatches.append(f"superstep {checkpoint.step}: not reached by the replay")
            elif got[0] != stored:
                mismatches.append(f"superstep {checkpoint.step}: state differs")
            elif got[1] != checkpoint.metadata.get("trace", ""):
                mismatches.append(f"superstep {checkpoint.step}: trace differs")
        return ReplayReport(not mismatches, len(entries), len(checkpoints), mismatches, ex)

    replay, areplay = twins(_replay)

    def _listed(self, thread_id: str) -> Twin[builtins.list[HistoryEntry]]:
        """The thread's checkpoints, oldest first, each followed by the supersteps that failed
        on top of it (status ``"failed"``, nothing written, ``failure`` set). Raises
        `UnknownThreadError`."""
        out: list[HistoryEntry] = []
        for c in (yield from self._history(thread_id)):
            m = c.metadata
            out.append(
                HistoryEntry(
                    c.step,
                    c.checkpoint_id,
                    str(m.get("source", "")),
                    str(m.get("status", "")),
                    tuple(m.get("written", ())),
                    m.get("actor"),
                    m.get("permission"),
                    m.get("timestamp"),
                    m,
                )
            )
            for f in c.failures:
                failure = f"node {f['node']!r} failed: {f['error_type']}: {f['message']}"
                out.append(
                    HistoryEntry(
                        f["step"],
                        c.checkpoint_id,
                        "loop",
                        "failed",
                        (),
                        metadata=f,
                        failure=failure,
                    )
                )
        return out

    history, ahistory = twins(_listed, "history")

    def _latest_metadata(self, thread_id: str) -> Twin[Mapping[str, Any]]:
        """The metadata of the thread's latest checkpoint. Raises `UnknownThreadError`."""
        return (yield from self._load(thread_id)).metadata

    latest_metadata, alatest_metadata = twins(_latest_metadata)

    def _load_state(self, thread_id: str, checkpoint_id: str | None = None) -> Twin[ExecutionState]:
        """The `ExecutionState` stored at a checkpoint (the latest by default)."""
        return self._state((yield from self._load(thread_id, checkpoint_id)))[1]

    load_state, aload_state = twins(_load_state)

    # --- loading ---------------------------------------------------------------------------

    def _leased(self, thread_id: str, build: Callable[..., Twin[DX]], *args: Any) -> Twin[DX]:
        """``build(lease, *args)``, the core that builds an execution, under the thread's
        lease (None without ``leases``): on success the execution owns the lease until
        `DurableExecution.close`; if building fails it is released. Taken and released
        through the lease's own core, so the async lane never blocks its loop on them."""
        if self.leases is None:
            return (yield from build(None, *args))
        held = HeldLease(self.leases, thread_id, self.owner, self.lease_ttl)
        yield from held._enter()
        try:
            return (yield from build(held, *args))
        except GeneratorExit:  # closed unfinished (no driver does that): release in place
            drive(held._exit())
            raise
        except BaseException:
            yield from held._exit()
            raise

    def _load(self, thread_id: str, checkpoint_id: str | None = None) -> Twin[StoredStep]:
        try:
            loaded = yield from ThreadCheckpoints(self.saver, thread_id)._load(checkpoint_id)
        except ValueError as e:
            raise RecoveryError(f"thread {thread_id!r}: {e}") from None
        if loaded is None:
            what = f"checkpoint {checkpoint_id!r} of thread" if checkpoint_id else "thread"
            raise UnknownThreadError(f"no {what} {thread_id!r} in the store")
        return loaded

    def _history(self, thread_id: str) -> Twin[builtins.list[StoredStep]]:
        try:
            checkpoints = yield from ThreadCheckpoints(self.saver, thread_id)._history()
        except ValueError as e:
            raise RecoveryError(f"thread {thread_id!r}: {e}") from None
        if not checkpoints:
            raise UnknownThreadError(f"no thread {thread_id!r} in the store")
        return checkpoints

    def _state(self, loaded: StoredStep) -> tuple[StepHeader, ExecutionState]:
        header = decode_header(loaded.header, self.codec)
        values = join_values(loaded.values, header.layout, self.codec)
        return header, replace(header.state, values=values)

    def _restore(self, graph: CompiledGraph, state: ExecutionState, execution_id: str) -> Execution:
        try:
            return Execution.restore(graph, state, execution_id=execution_id)
        except ValueError as e:
            raise RecoveryError(f"thread {execution_id!r}: {e}") from e


_OWN_KEYS = frozenset(
    {
        "source",
        "step",
        "status",
        "written",
        "trace",
        "execution_id",
        "actor",
        "permission",
        "timestamp",
        "failures",
        "parents",
    }
)


def _stored_names(loaded: StoredStep) -> dict[str, int]:
    """What a `ChannelWriter` needs of a loaded checkpoint: the stored names (channels and
    segments) it holds. Their versions are the saver's; the writer only compares the engine's
    channel versions, which come from the state."""
    return dict.fromkeys(loaded.values, 0)


def resume_from_saver(
    graph: CompiledGraph,
    saver: BaseCheckpointSaver[Any],
    thread_id: str,
    handlers: Mapping[str, Handler] | None = None,
    **options: Any,
) -> Execution:
    """Recover ``thread_id`` from ``saver`` and run it on (see `DurableRunner.recover`); the
    execution is closed (its lease released) however the run ends. ``options``: the
    `DurableRunner`'s."""
    return drive(_resumed(DurableExecution, graph, saver, thread_id, handlers, options))


async def aresume_from_saver(
    graph: CompiledGraph,
    saver: BaseCheckpointSaver[Any],
    thread_id: str,
    handlers: Mapping[str, Handler] | None = None,
    **options: Any,
) -> Execution:
    """`resume_from_saver` on asyncio: recovered with `DurableRunner.arecover` and run as an
    `AsyncDurableExecution` (the saver's async methods awaited, effects on this loop)."""
    return await adrive(_resumed(AsyncDurableExecution, graph, saver, thread_id, handlers, options))


def _resumed(
    lane: type[DX],
    graph: CompiledGraph,
    saver: BaseCheckpointSaver[Any],
    thread_id: str,
    handlers: Mapping[str, Handler] | None,
    options: Mapping[str, Any],
) -> Twin[Execution]:
    """The core of `resume_from_saver` and `aresume_from_saver`."""
    runner = DurableRunner(saver, handlers, **options)
    dx = yield from runner._recover(lane, graph, thread_id)
    try:
        return (yield from dx._run())
    finally:
        yield from dx._close()
