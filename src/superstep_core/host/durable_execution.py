"""The durable execution of one thread: drives an `Execution` with a host and, after every
committed superstep, writes its checkpoint, logs its inputs and records its effects' results
(the format and the guarantees are described in `superstep_core.host.durable`, whose
`DurableRunner` creates, recovers and forks these).

Two lanes over one core (`DurableCore`, whose methods are twin cores, see
`superstep_core.twin`): `DurableExecution` drives its execution with a threaded `Host` and
calls the saver plainly; `AsyncDurableExecution` (made by the runner's ``astart``,
``arecover``, ``afork``) drives it with an `AsyncHost` on the caller's event loop and awaits
the saver's async methods, for async savers (``AsyncSqliteSaver``, ``AsyncPostgresSaver``,
async-only community savers) used from their own loop.

Must never import: the llm layer, compat.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from superstep_core.host.aio import AsyncHost
from superstep_core.host.clock import WallClock
from superstep_core.host.durable_records import PermissionDeniedError, RecoveryError, StoreLedger
from superstep_core.host.lease import HeldLease
from superstep_core.host.sync import Host
from superstep_core.host.thread_checkpoints import StoredStep, ThreadCheckpoints
from superstep_core.node import Effect, External
from superstep_core.persistence.durable import (
    ChannelWriter,
    StepHeader,
    encode_header,
    encode_inputs,
    trace_digest,
    without_values,
)
from superstep_core.runtime import EffectRequest, Execution, Status, StepOutcome, TimerRequest
from superstep_core.twin import Block, Twin, adrive, async_of, drive, plain_of

if TYPE_CHECKING:  # the runner creates executions; only its type is named here
    from superstep_core.host.durable import DurableRunner


Permission = str | Collection[str]
"""What an actor may edit: ``"*"`` (every channel) or the names of the channels."""


class DurableCore:
    """What `DurableExecution` and `AsyncDurableExecution` share, written once: an
    `Execution` bound to a thread of a store, its recording (checkpoints, input log, ledger,
    failures) and the cores of its driving methods; each lane adds its host and one line per
    method. Not thread-safe."""

    _host: Host | AsyncHost

    def __init__(
        self,
        runner: DurableRunner,
        execution: Execution,
        thread_id: str,
        *,
        writer: ChannelWriter,
        header: StepHeader | None = None,
        loaded: StoredStep | None = None,
        metadata: Mapping[str, Any] | None = None,
        lease: HeldLease | None = None,
    ) -> None:
        self.runner = runner
        self.lease = lease
        self.execution = execution
        self.thread_id = thread_id
        self.saver = runner.saver
        self.codec = runner.codec
        self.metadata = dict(metadata or {})
        self.checkpoint_bytes: list[int] = []  # header + blob bytes of each checkpoint written
        self.checkpoints = ThreadCheckpoints(runner.saver, thread_id)
        self._writer = writer
        self._requests: dict[str, EffectRequest] = {}
        self._armed: dict[tuple[str, str], TimerRequest] = {}
        self._inputs = 0
        # (step, id, parent id) of the latest checkpoint written or loaded
        self._last: tuple[int, str, str | None] | None = None
        if loaded is not None:
            self.checkpoints.follow(loaded)
            self._last = (loaded.step, loaded.checkpoint_id, loaded.parent_id)
        ledger = StoreLedger(
            self.checkpoints, runner.codec, loaded.effects if loaded is not None else None
        )
        self._host = self._make_host(ledger)
        self._host.on_perform = self._before_perform
        # the host's loop arms and fires this execution's timers; a recovery arms the
        # recorded deadlines here first
        self._timers = self._host.timers(execution.execution_id)
        if header is not None:
            self._requests = {r.effect_id: r for r in header.requests}
            self._armed = {(t.activation_id, t.timer_id): t for t in header.timers}
            if len(header.deadlines) == len(header.timers):
                for timer, due in zip(header.timers, header.deadlines, strict=True):
                    self._timers.arm(timer, due)  # absolute: a restart fires what remains
            else:  # a header from before deadlines were recorded
                self._timers.apply(list(header.timers), self._host.clock.now())
            self._inputs = header.inputs

    def _make_host(self, ledger: StoreLedger) -> Host | AsyncHost:
        """The lane's host, its ``on_step`` the lane's spelling of `_committed`."""
        raise NotImplementedError

    def _host_call(self, call: Any) -> Block:
        """``call`` (a method of the lane's host, arguments bound) as a block: the threaded
        host's returns its value, the asyncio host's a coroutine, so the same call serves
        as both spellings (each lane's host is driven only by its own driver)."""
        return Block(call, call)

    # --- driving (the cores; each lane's public methods drive them) ------------------------

    @property
    def status(self) -> Status:
        return self.execution.status

    def _run(self, *, until: float | None = None, steps: int | None = None) -> Twin[Execution]:
        """Drive the execution like `Host.run` (the same loop: within-step effects performed
        inside their superstep, whose input-log entry records their results), checkpointing
        every superstep. ``steps``: return after that many supersteps (and the effects they
        requested) even if more could run (a step mode; ``0`` only performs lost effects and
        fires due timers; ``None``: no limit). A suspended execution still receives its
        timers that are already due (an interrupt with a deadline), but is not waited on for
        later ones."""
        yield from self._catch_up()
        yield self._host_call(partial(self._host.run, self.execution, until=until, steps=steps))
        yield from self._flush_inputs()
        return self.execution

    def _resume(
        self, value: Any, activation_id: str | None = None, *, expected_step: int | None = None
    ) -> Twin[Execution]:
        """Answer an interrupt (see `Execution.resume`; a stale ``expected_step`` raises
        `StaleResumeError` and changes nothing), log the answer, then `run`."""
        self.execution.resume(value, activation_id, expected_step=expected_step)
        yield from self._flush_inputs()
        return (yield from self._run())

    def _send(self, event: External, *, run: bool = True) -> Twin[Execution]:
        """Route an external event, log it, then `run` (unless ``run=False``)."""
        self.execution.send(event)
        yield from self._flush_inputs()
        return (yield from self._run()) if run else self.execution

    def _retry_failed(self) -> Twin[Execution]:
        """Clear a failure, log that, and run the failed superstep again."""
        self.execution.retry_failed()
        yield from self._flush_inputs()
        return (yield from self._run())

    def _edit(
        self,
        updates: Mapping[str, Any] | Iterable[tuple[str, Any]],
        *,
        actor: str,
        as_node: str | None = None,
        activate: Iterable[str] = (),
        timestamp: datetime | None = None,
    ) -> Twin[tuple[str, ...]]:
        """Commit ``updates`` as an audited superstep by ``actor`` (see `Execution.edit`).
        Raises `PermissionDeniedError` when the actor is not in the runner's allow-list or
        may not write one of the channels; then nothing changes. ``timestamp`` defaults to
        the runner's wall clock. Call `run` afterwards if the edit activated nodes."""
        pairs = list(updates.items()) if isinstance(updates, Mapping) else list(updates)
        permission = self._permission(actor, [c for c, _ in pairs])
        when = (timestamp or self.runner.wall_clock()).isoformat()
        ex = self.execution
        ex.input_log.append(("audit", actor, permission, when))
        try:
            written = ex.edit(pairs, writer=f"human:{actor}", as_node=as_node, activate=activate)
        except Exception:
            ex.input_log.pop()
            raise
        audit = {"actor": actor, "permission": permission, "timestamp": when}
        yield from self._checkpoint("edit", written=written, audit=audit)
        return written

    def _close(self) -> Twin[None]:
        """Close the execution: shut the lane's host down (`_close_host`) and release the
        thread's lease (idempotent); the async lane releases it off its loop."""
        self._close_host()
        if self.lease is not None:
            lease, self.lease = self.lease, None
            yield from lease._exit()

    def _close_host(self) -> None:
        """Shut the lane's host down (the threaded host's pool; nothing for the asyncio one)."""

    def _check_lease(self) -> None:
        if self.lease is not None:
            self.lease.check()

    # --- recording -------------------------------------------------------------------------

    def _permission(self, actor: str, channels: list[str]) -> str | list[str]:
        allowed = self.runner.permissions.get(actor)
        if allowed is None:
            actors = ", ".join(sorted(self.runner.permissions)) or "(none)"
            raise PermissionDeniedError(
                f"actor {actor!r} may not edit thread {self.thread_id!r}: not in the "
                f"allow-list (allowed actors: {actors})"
            )
        if isinstance(allowed, str):
            if allowed != "*":
                raise ValueError(f"permission of {actor!r} must be '*' or channel names")
            return "*"
        for channel in channels:
            if channel not in allowed:
                raise PermissionDeniedError(
                    f"actor {actor!r} may not edit channel {channel!r} of thread "
                    f"{self.thread_id!r}; they may edit: {', '.join(sorted(allowed)) or '(none)'}"
                )
        return sorted(allowed)

    def _committed(self, ex: Execution, outcome: StepOutcome) -> Twin[None]:
        """The host's ``on_step``: after each superstep (its timers armed by the host's
        loop), before its effects are performed, checkpoint it, or log it when it was held
        for a retry, or record its failure."""
        self._note(outcome, arm=False)
        if outcome.committed:
            yield from self._checkpoint("loop", outcome)
        elif ex.failure is None:  # held for a retry: the log keeps the superstep
            yield from self._flush_inputs()
        else:
            yield from self._record_failure()
        if self.runner.on_step is not None:
            self.runner.on_step(ex, outcome)
        self._check_lease()  # a process that lost the thread goes no further

    def _before_perform(self, requests: list[EffectRequest]) -> None:
        """The host's ``on_perform``: no effect (within-step ones included) is performed by a
        process that lost the thread's lease."""
        self._check_lease()

    def _note(self, outcome: StepOutcome, *, arm: bool = True) -> None:
        for request in outcome.effects:
            self._requests[request.effect_id] = request
        for timer in outcome.timers:
            key = (timer.activation_id, timer.timer_id)
            if timer.delay is None:
                self._armed.pop(key, None)
            else:
                self._armed[key] = timer
        if arm:  # a superstep applied from the log; the host's loop arms its own
            self._timers.apply(outcome.timers, self._host.clock.now())

    def _take_inputs(self) -> tuple[int, bytes] | None:
        """The inputs logged since the last flush as one input-log record ``(seq, bytes)``, or
        ``None``; the saver is to hold them, so the in-memory log is cleared."""
        log = self.execution.input_log
        if not log:
            return None
        record = (self._inputs, encode_inputs(log, self.codec))
        self._inputs += 1
        log.clear()
        return record

    def _flush_inputs(self) -> Twin[None]:
        """Write the inputs logged since the last flush as a pending write of the latest
        checkpoint (between supersteps: an answer, an event, delivered results)."""
        record = self._take_inputs()
        if record is not None:
            yield from self.checkpoints._log_input(*record)

    def _record_failure(self) -> Twin[None]:
        """A superstep failed and committed nothing. Its failure goes to the input log (which
        recovery applies after the last checkpoint, so that checkpoint is left as committed)
        and is noted on that checkpoint as an ``__error__`` pending write, for `history`."""
        record = self._take_inputs()
        failure = self.execution.failure
        if record is None or self._last is None or failure is None:  # pragma: no cover
            return
        yield from self.checkpoints._log_input(*record)
        noted = {
            "step": failure.step,
            "node": failure.node,
            "activation_id": failure.activation_id,
            "error_type": failure.error_type,
            "message": failure.message,
        }
        yield from self.checkpoints._record_failure(record[0], noted)

    def _checkpoint(
        self,
        source: str,
        outcome: StepOutcome | None = None,
        *,
        written: tuple[str, ...] = (),
        audit: Mapping[str, Any] | None = None,
    ) -> Twin[None]:
        record = self._take_inputs()
        ex = self.execution
        state = ex.snapshot()
        stored, blobs, layout = self._writer.split(state.values, state.versions)
        self._requests = {e: self._requests[e] for e in state.awaited if e in self._requests}
        armed = {k: t for k, t in self._armed.items() if ex.timers.get(k) == t.generation}
        self._armed = armed
        deadlines = [self._timers.deadline(*key) for key in armed]
        header = StepHeader(
            without_values(state),
            tuple(_storable(r) for r in self._requests.values()),
            tuple(armed.values()),
            self._inputs,
            layout,
            tuple(d for d in deadlines if d is not None) if None not in deadlines else (),
        )
        data = encode_header(header, self.codec)
        changed = list(outcome.written if outcome is not None else written)
        metadata = {
            **self.metadata,
            "source": source,
            "step": ex.step,
            "status": ex.status.value,
            "written": changed,
            "trace": _digest(ex, source),
            "execution_id": ex.execution_id,
            **(audit or {}),
        }
        last = self._last
        if last is None:
            parent = None
        else:  # the same superstep again replaces its checkpoint, under the same parent
            parent = last[2] if last[0] == ex.step else last[1]
        cid = yield from self.checkpoints._put(
            ex.step,
            parent,
            data,
            stored,
            blobs,
            metadata,
            ts=self.runner.wall_clock().isoformat(),
            written=changed,
            input_record=record,
        )
        self.checkpoint_bytes.append(len(data) + sum(len(b) for b in blobs.values()))
        self._last = (ex.step, cid, parent)

    def _catch_up(self) -> Twin[None]:
        """Perform (or replay from the ledger) the awaited effects whose results never
        arrived: after a recovery, those of the superstep the process died in."""
        ex = self.execution
        todo: list[EffectRequest] = []
        for effect_id in list(ex.awaited):
            request = self._requests.get(effect_id)
            if request is None or (
                request.effect.kind == "call" and request.effect.request is None
            ):
                recorded = self._host.ledger.recorded(effect_id) if self._host.ledger else None
                if recorded is None:
                    raise RecoveryError(
                        f"thread {self.thread_id!r}: effect {effect_id} has no recorded result "
                        f"and its request was not stored (effects of kind 'call' cannot be "
                        f"performed again after a crash; give the effect a handler kind)"
                    )
                request = EffectRequest(effect_id, ex.awaited[effect_id], "", Effect("ledger"))
            todo.append(request)
        if not todo:
            return
        self._check_lease()
        # in request order, as the uninterrupted run delivered them; the host's ledger lookup
        # replays a recorded result instead of performing the effect again
        perform = partial(self._host.perform, ex.execution_id, todo)
        for result in (yield self._host_call(perform)):
            ex.deliver(result)


class DurableExecution(DurableCore):
    """An `Execution` bound to a thread of a store, driven on threads (a `Host`) with the
    saver called plainly: drive it with `run`, answer interrupts with `resume`, send events
    with `send`, edit it with `edit`. Not thread-safe. (`AsyncDurableExecution`: the same on
    asyncio.)"""

    _host: Host

    def _make_host(self, ledger: StoreLedger) -> Host:
        runner = self.runner
        return Host(
            runner.handlers,
            clock=runner.clock or WallClock(),
            max_workers=runner.max_workers,
            ledger=ledger,
            max_supersteps=None,  # a durable thread may listen for as long as it likes
            on_step=lambda ex, outcome: drive(self._committed(ex, outcome)),
        )

    run = plain_of(DurableCore._run)
    resume = plain_of(DurableCore._resume)
    send = plain_of(DurableCore._send)
    retry_failed = plain_of(DurableCore._retry_failed)
    edit = plain_of(DurableCore._edit)

    def _close_host(self) -> None:
        self._host.close()

    close = plain_of(DurableCore._close)

    def __enter__(self) -> DurableExecution:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncDurableExecution(DurableCore):
    """`DurableExecution` on asyncio (made by `DurableRunner.astart`, ``arecover``,
    ``afork``): the same methods as coroutines (``await dx.run()``; ``async with``), an
    `AsyncHost` performing the effects on the caller's loop (plain handlers in its default
    executor, at most the runner's ``max_workers`` at once), and every checkpoint, input-log
    record and ledger entry awaited through the saver's async methods. Not task-safe."""

    _host: AsyncHost

    def _make_host(self, ledger: StoreLedger) -> AsyncHost:
        runner = self.runner
        return AsyncHost(
            runner.handlers,
            clock=runner.clock or WallClock(),
            max_concurrency=runner.max_workers,
            ledger=ledger,
            max_supersteps=None,
            on_step=lambda ex, outcome: adrive(self._committed(ex, outcome)),
        )

    run = async_of(DurableCore._run)
    resume = async_of(DurableCore._resume)
    send = async_of(DurableCore._send)
    retry_failed = async_of(DurableCore._retry_failed)
    edit = async_of(DurableCore._edit)

    close = async_of(DurableCore._close)

    async def __aenter__(self) -> AsyncDurableExecution:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _storable(request: EffectRequest) -> EffectRequest:
    if request.effect.kind == "call":  # a callable cannot be stored
        return replace(request, effect=Effect("call", None, request.effect.tag))
    return request


def _digest(ex: Execution, source: str) -> str:
    return trace_digest(ex.trace[-1]) if source in ("loop", "edit") and ex.trace else ""
