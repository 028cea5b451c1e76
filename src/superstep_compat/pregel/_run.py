"""One invocation of a compiled façade graph: load the thread, apply the input, drive the
engine with the host, and turn committed supersteps into LangGraph's steps, stream events and
checkpoints.

A LangGraph step is two engine supersteps: one that activates the step's tasks (each asks
for one effect: run the task), and one that delivers the task results and commits their
writes atomically. This module schedules nothing itself: which node runs when is the
engine's decision; here we only observe, record and stop at breakpoints.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import AsyncIterator, Generator, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from superstep_compat._internal._constants import START
from superstep_compat.checkpoint.base import (
    BaseCheckpointSaver,
    CheckpointRecord,
    TaskRecord,
    config_of,
)
from superstep_compat.errors import (
    EmptyInputError,
    ErrorCode,
    GraphInterrupt,
    GraphRecursionError,
    create_error_message,
)
from superstep_compat.pregel._task import (
    CHILD_KEY,
    ChildLink,
    RunContext,
    TaskOutcome,
    _now,
    task_uuid,
)
from superstep_compat.types import Command, Interrupt
from superstep_core.host import AsyncHost, Host
from superstep_core.node import Activated, EffectCompleted, External
from superstep_core.runtime import Execution, StepOutcome

if TYPE_CHECKING:
    from superstep_compat.pregel._compile import CompiledStateGraph

__all__ = ["INPUT_EVENT", "GraphRun", "new_checkpoint_id"]

INPUT_EVENT = "__input__"
DEFAULT_RECURSION_LIMIT = int(os.environ.get("LANGGRAPH_DEFAULT_RECURSION_LIMIT", "10007"))
_id_lock = threading.Lock()
_last_id = [0]


def new_checkpoint_id() -> str:
    """A uuid-shaped, time-ordered id: later calls sort after earlier ones."""
    with _id_lock:
        now = max(time.time_ns() // 1000, _last_id[0] + 1)
        _last_id[0] = now
    t = f"{now:015x}"  # 15 hex digits of microseconds, all kept: ids sort by time
    r = uuid.uuid4().hex
    return f"{t[:8]}-{t[8:12]}-6{t[12:15]}-8{r[:3]}-{r[3:15]}"


Event = tuple[tuple[str, ...], str, Any]
"""(namespace, stream mode, data)."""


class GraphRun:
    """Drives one ``invoke``/``stream`` call. Iterate `events()` (or `aevents()`)."""

    def __init__(
        self,
        graph: CompiledStateGraph,
        input: Any,
        config: Mapping[str, Any],
        *,
        modes: Sequence[str],
        context: Any = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        subgraphs: bool = False,
    ) -> None:
        self.graph = graph
        self.input = input
        self.config = dict(config)
        self.link: ChildLink | None = (self.config.get("configurable") or {}).get(CHILD_KEY)
        self.subgraphs = subgraphs or (self.link is not None and self.link.subgraphs)
        self.modes = frozenset(modes) | (self.link.modes if self.link is not None else frozenset())
        self.context = context
        self.before = _names(interrupt_before, graph.interrupt_before_nodes)
        self.after = _names(interrupt_after, graph.interrupt_after_nodes)
        configurable = self.config.get("configurable") or {}
        self.thread_id: str | None = configurable.get("thread_id")
        self.ns: str = configurable.get("checkpoint_ns", "") or ""
        self.saver: BaseCheckpointSaver | None = graph.saver_for(self.config)
        if self.saver is None and self.link is not None and graph.checkpointer is None:
            self.saver = self.link.saver  # a subgraph keeps its checkpoints in the parent's saver
        if self.saver is not None and self.thread_id is None:
            raise ValueError(
                "Checkpointer requires one or more of the following 'configurable' keys: "
                "thread_id, checkpoint_ns, checkpoint_id"
            )
        limit = self.config.get("recursion_limit", DEFAULT_RECURSION_LIMIT)
        if limit < 1:
            raise ValueError("recursion_limit must be at least 1")
        self.limit: int = limit
        self.pending: list[Event] = []
        self._pending_lock = threading.Lock()
        self.interrupts: list[Interrupt[Any]] = []
        self._committed: Mapping[str, Any] | None = None
        self._last_values: dict[str, Any] | None = None
        self.record: CheckpointRecord | None = None
        self.step = -2  # a new thread's input checkpoint is step -1
        self.async_mode = False
        # Outcomes of tasks that ran inline in their node's reducer (see `_node.task_node`),
        # taken by the observer of the superstep they ran in.
        self.inline_results: list[tuple[str, TaskOutcome]] = []
        self.failed_results: list[tuple[str, TaskOutcome]] = []

    # --- stream plumbing -----------------------------------------------------------------

    def _emit_transient(self, mode: str, data: Any, ns: tuple[str, ...] = ()) -> None:
        with self._pending_lock:
            self.pending.append((ns, mode, data))

    def _drain(self) -> list[Event]:
        with self._pending_lock:
            out, self.pending = self.pending, []
        return out

    # --- setting up ----------------------------------------------------------------------

    def _run_context(self) -> RunContext:
        return RunContext(
            config=self.config,
            context=self.context,
            store=self.graph.store,
            step=self.step + 1,
            stop=self.stop,
            emit=self._emit_transient,
            stream_modes=self.modes,
            checkpoint_ns=self.ns,
            saver=self.saver,
            subgraphs=self.subgraphs,
            cache=self.graph.cache,
        )

    def _prepare(self) -> tuple[Execution, list[Event]]:
        graph = self.graph
        events: list[Event] = []
        requested_id = (self.config.get("configurable") or {}).get("checkpoint_id")
        record = None
        if self.saver is not None and self.thread_id is not None:
            record = self.saver.load(self.thread_id, self.ns, requested_id)
        execution_id = self.thread_id or "run"
        if record is not None and record.engine is not None:
            ex = Execution.restore(graph.engine, record.engine, record_trace=False)
            self.step = record.step
            self.record = record
        else:
            ex = Execution(graph.engine, execution_id, record_trace=False)
        inp = self.input
        if self.link is not None and self.link.resume and record is not None and ex.interrupts:
            inp = Command(resume=self.link.resume[-1])  # the parent's answer to our interrupt
        if isinstance(inp, Command) and inp.resume is not None:
            self._resume(ex, inp.resume)
            if inp.update is not None or inp.goto:
                ex.send(External(INPUT_EVENT, Command(update=inp.update, goto=inp.goto)))
        elif isinstance(inp, Command):
            ex.send(External(INPUT_EVENT, inp))
        elif inp is None:
            if record is None:
                raise EmptyInputError("Received no input for __start__")
            latest = self.saver.load(record.thread_id, self.ns, None) if self.saver else None
            replaying = latest is not None and latest.checkpoint_id != record.checkpoint_id
            if requested_id is not None and replaying and (record.next or ex.queue):
                events.extend(self._checkpoint(ex, "fork", next_=record.next, values=record.values))
        else:
            events.extend(self._checkpoint(ex, "input", next_=(START,), values=self._values(ex)))
            ex.send(External(INPUT_EVENT, inp))
        return ex, events

    @property
    def stop(self) -> int:
        return self.start_step + self.limit + 1

    def _resume(self, ex: Execution, value: Any) -> None:
        suspended = [(aid, intr) for aid, intr in ex.interrupts for intr in _as_list(intr)]
        if not suspended:
            return  # LangGraph ignores a resume when nothing is pending
        if (
            isinstance(value, Mapping)
            and value
            and all(any(getattr(i, "id", None) == k for _, i in suspended) for k in value)
        ):
            by_activation: dict[str, list[Any]] = {}
            for aid, intr in suspended:
                if intr.id in value:
                    by_activation.setdefault(aid, []).append(value[intr.id])
            for aid, answers in by_activation.items():
                ex.resume(answers[0], aid)
            return
        activations = {aid for aid, _ in suspended}
        if len(activations) > 1:
            raise RuntimeError(
                "When there are multiple pending interrupts, you must specify the interrupt id "
                "when resuming. Docs: https://docs.langchain.com/oss/python/langgraph/"
                "interrupts#handling-multiple-interrupts."
            )
        ex.resume(value, next(iter(activations)))

    # --- the loop --------------------------------------------------------------------------

    def events(self) -> Iterator[Event]:
        """Run to the end (or a breakpoint), yielding (namespace, mode, data) events. A
        subgraph's run also forwards them to its parent's stream, and raises
        `GraphInterrupt` when it stops on an interrupt, so the parent's task suspends."""
        for event in self._events():
            self._forward(event)
            yield event
        if self.link is not None and self.interrupts:
            raise GraphInterrupt(tuple(self.interrupts))

    async def aevents(self) -> AsyncIterator[Event]:
        """`events` on asyncio: coroutine tasks are awaited on the running loop."""
        async for event in self._aevents():
            self._forward(event)
            yield event
        if self.link is not None and self.interrupts:
            raise GraphInterrupt(tuple(self.interrupts))

    def _forward(self, event: Event) -> None:
        link = self.link
        if link is None or link.emit is None or not link.subgraphs:
            return
        ns, mode, data = event
        if mode in link.modes:
            link.emit(mode, data, ns or tuple(link.ns.split("|")))  # type: ignore[call-arg]

    def _events(self) -> Iterator[Event]:
        ex, events = self._prepare()
        self.start_step = self.step
        yield from events
        host = Host(max_workers=8)
        try:
            for outcome in self._guarded(host.iterate(ex), ex):
                yield from self._drain()
                stop = yield from self._after_superstep(ex, outcome)
                if stop:
                    break
            yield from self._drain()
            if ex.failure is not None:
                yield from self._task_results(self._failed_results(ex))
                self._raise_failure(ex)
            self._finish(ex)
        finally:
            host.close()

    async def _aevents(self) -> AsyncIterator[Event]:
        ex, events = self._prepare()
        self.start_step = self.step
        for e in events:
            yield e
        from superstep_compat.pregel import _node

        host = AsyncHost()
        self.async_mode = True
        token = _node.current_run_context.set(self)
        try:
            async for outcome in host.iterate(ex):
                _node.current_run_context.set(self)
                for e in self._drain():
                    yield e
                gen = self._after_superstep(ex, outcome)
                stop = False
                try:
                    while True:
                        yield next(gen)
                except StopIteration as done:
                    stop = bool(done.value)
                if stop:
                    break
        finally:
            _reset(_node.current_run_context, token)
        for e in self._drain():
            yield e
        if ex.failure is not None:
            for e in self._task_results(self._failed_results(ex)):
                yield e
            self._raise_failure(ex)
        self._finish(ex)

    def _guarded(self, steps: Iterator[StepOutcome], ex: Execution) -> Iterator[StepOutcome]:
        from superstep_compat.pregel import _node

        token = _node.current_run_context.set(self)
        try:
            for outcome in steps:
                _node.current_run_context.set(self)
                yield outcome
        finally:
            _reset(_node.current_run_context, token)

    def task_context(self) -> RunContext:
        """The run context handed to the tasks of the superstep being built."""
        return self._run_context()

    def _after_superstep(self, ex: Execution, outcome: StepOutcome) -> Generator[Event, None, bool]:
        """Observe one committed superstep; returns True (as the generator's value) to stop."""
        if not outcome.committed:
            return False  # a failed superstep: `_failed_results` reports its tasks
        results = self._take_inline()
        for aid, ev in outcome.delivered:
            if isinstance(ev, EffectCompleted) and isinstance(ev.result, TaskOutcome):
                results.append((aid, ev.result))
        if not results:
            return False
        modes = self.modes
        interrupted = [(aid, r) for aid, r in results if r.interrupts]
        completed = [(aid, r) for aid, r in results if not r.interrupts and r.error is None]
        yield from self._task_results(results)
        if "updates" in modes:
            for aid, result in completed:
                name = _node_of(aid)
                if name != START:
                    chunk = {name: result.update}
                    if result.cached:
                        chunk["__metadata__"] = {"cached": True}
                    yield ((), "updates", chunk)
        if interrupted:
            for _, result in interrupted:
                self.interrupts.extend(result.interrupts)
            if "updates" in modes:
                yield ((), "updates", {"__interrupt__": tuple(self.interrupts)})
            self._record_interrupts(ex, interrupted)
            if "values" in modes and self.last_values is not None:
                yield ((), "values", {**self.last_values, "__interrupt__": tuple(self.interrupts)})
            return True
        self.step += 1
        self._committed = ex.values  # a new dict per commit: holding it copies nothing
        self._last_values = None
        next_: tuple[str, ...] | None = None
        if self.saver is not None:
            next_ = self._next(ex)
            yield from self._checkpoint(
                ex, "loop", next_=next_, values=self.last_values or {}, ran=completed
            )
        if "values" in modes and outcome.written:
            yield ((), "values", self.last_values)
        if self.after or self.before:
            next_ = self._next(ex) if next_ is None else next_
            names_ran = {_node_of(aid) for aid, _ in completed}
            if _hit(names_ran, self.after) and next_:
                if "updates" in modes:
                    yield ((), "updates", {"__interrupt__": ()})
                return True
            if _hit(set(next_), self.before):
                if "updates" in modes:
                    yield ((), "updates", {"__interrupt__": ()})
                return True
        if self.step >= self.stop:  # LangGraph checks the budget before looking for tasks
            raise GraphRecursionError(
                create_error_message(
                    message=(
                        f"Recursion limit of {self.limit} reached without hitting a stop "
                        "condition. You can increase the limit by setting the "
                        "`recursion_limit` config key."
                    ),
                    error_code=ErrorCode.GRAPH_RECURSION_LIMIT,
                )
            )
        return False

    @property
    def last_values(self) -> dict[str, Any] | None:
        """The state channels after the last committed step (None before any), built on
        first use: a run that neither checkpoints nor streams values never builds them."""
        if self._last_values is None and self._committed is not None:
            keys = self.graph.state_channels
            committed = self._committed
            self._last_values = {k: committed[k] for k in keys if k in committed}
        return self._last_values

    def _finish(self, ex: Execution) -> None:
        """A run that committed no step still answers with the thread's current values."""
        if self._committed is None:
            self._committed = ex.values

    def _take_inline(self) -> list[tuple[str, TaskOutcome]]:
        taken, self.inline_results = self.inline_results, []
        return taken

    def _failed_results(self, ex: Execution) -> list[tuple[str, TaskOutcome]]:
        """The outcomes of the superstep that failed (still queued: it did not commit)."""
        self.failed_results = self._take_inline()
        self.failed_results.extend(
            (aid, ev.result)
            for aid, ev in ex.queue
            if isinstance(ev, EffectCompleted) and isinstance(ev.result, TaskOutcome)
        )
        return self.failed_results

    def _raise_failure(self, ex: Execution) -> None:
        failure = ex.failure
        assert failure is not None
        error: BaseException | None = None
        for aid, result in self.failed_results:
            if aid == failure.activation_id and result.error:
                error = result.error
        if error is None:
            error = ex.last_error
        self._record_failure(ex, error)
        if error is not None:
            raise error
        raise RuntimeError(f"{failure.node}: {failure.error_type}: {failure.message}")

    # --- state views and checkpoints ------------------------------------------------------

    def _values(self, ex: Execution) -> dict[str, Any]:
        """Every state channel with a value (the ``values`` stream and snapshots show them
        all; only ``invoke``'s result is narrowed to the output schema)."""
        values = ex.values
        return {k: values[k] for k in self.graph.state_channels if k in values}

    def _next(self, ex: Execution) -> tuple[str, ...]:
        return pending_tasks(ex, self.graph.node_order)

    def _checkpoint(
        self,
        ex: Execution,
        source: str,
        *,
        next_: tuple[str, ...],
        values: dict[str, Any],
        ran: Sequence[tuple[str, TaskOutcome]] = (),
    ) -> list[Event]:
        """Save a checkpoint (when the run has a saver) and return its stream events."""
        if source in ("input", "fork"):
            self.step += 1
        if self.saver is None or self.thread_id is None:
            return []
        parent = self.record
        if parent is not None and ran:
            results = {_node_of(aid): r.update for aid, r in ran}
            for task in parent.tasks:
                if task.name in results:
                    task.result = results[task.name]
            self.saver.save(parent)
        checkpoint_id = new_checkpoint_id()
        metadata = {
            k: v
            for k, v in (self.config.get("metadata") or {}).items()
            if not str(k).startswith("langgraph_")
        }
        metadata.update(source=source, step=self.step, parents={})
        record = CheckpointRecord(
            thread_id=self.thread_id,
            checkpoint_ns=self.ns,
            checkpoint_id=checkpoint_id,
            parent_id=None if parent is None else parent.checkpoint_id,
            step=self.step,
            source=source,
            values=dict(values),
            next=next_,
            tasks=[
                TaskRecord(
                    str(uuid.uuid5(uuid.NAMESPACE_URL, f"{checkpoint_id}/{n}")),
                    n,
                    ("__pregel_pull", n),
                )
                for n in next_
            ],
            metadata=metadata,
            created_at=datetime.now(UTC).isoformat(),
            engine=ex.snapshot(),
            ran=tuple(sorted({_node_of(aid) for aid, _ in ran})),
        )
        self.saver.save(record)
        self.record = record
        return self._checkpoint_events(record, parent)

    def _checkpoint_events(
        self, record: CheckpointRecord, parent: CheckpointRecord | None
    ) -> list[Event]:
        if "checkpoints" not in self.modes and "debug" not in self.modes:
            return []
        payload = {
            "config": config_of(record.thread_id, record.checkpoint_ns, record.checkpoint_id),
            "parent_config": None
            if parent is None
            else config_of(parent.thread_id, parent.checkpoint_ns, parent.checkpoint_id),
            "values": dict(record.values),
            "metadata": dict(record.metadata),
            "next": list(record.next),
            "tasks": [
                {"id": t.id, "name": t.name, "interrupts": tuple(t.interrupts), "state": None}
                for t in record.tasks
            ],
        }
        out: list[Event] = []
        if "checkpoints" in self.modes:
            out.append(((), "checkpoints", payload))
        if "debug" in self.modes:
            out.append(
                (
                    (),
                    "debug",
                    {
                        "step": record.step,
                        "timestamp": record.created_at,
                        "type": "checkpoint",
                        "payload": payload,
                    },
                )
            )
        return out

    def _task_results(self, results: Sequence[tuple[str, TaskOutcome]]) -> Iterator[Event]:
        if "tasks" not in self.modes and "debug" not in self.modes:
            return
        ctx = self._run_context()
        for aid, r in results:
            if _node_of(aid) == START:
                continue
            payload = {
                "id": task_uuid(ctx, aid),
                "name": _node_of(aid),
                "error": r.error,
                "result": r.update if r.error is None and not r.interrupts else {},
                "interrupts": [
                    {"value": i.value, "id": i.id, "response_schema": None} for i in r.interrupts
                ],
            }
            if r.error is None and not r.interrupts and payload["result"] is None:
                payload["result"] = {}
            if "tasks" in self.modes:
                yield ((), "tasks", payload)
            if "debug" in self.modes:
                yield (
                    (),
                    "debug",
                    {
                        "step": self.step + 1,
                        "timestamp": _now(),
                        "type": "task_result",
                        "payload": payload,
                    },
                )

    def _record_interrupts(
        self, ex: Execution, interrupted: Sequence[tuple[str, TaskOutcome]]
    ) -> None:
        record = self.record
        if self.saver is None or record is None:
            return
        by_name = {_node_of(aid): r for aid, r in interrupted}
        for task in record.tasks:
            if task.name in by_name:
                task.interrupts = tuple(by_name[task.name].interrupts)
                task.state_ns = by_name[task.name].subgraph_ns
        record.interrupts = tuple(self.interrupts)
        record.engine = ex.snapshot()
        self.saver.save(record)

    def _record_failure(self, ex: Execution, error: BaseException | None) -> None:
        record = self.record
        if self.saver is None or record is None or error is None:
            return
        failed = _node_of(ex.failure.activation_id) if ex.failure else ""
        for task in record.tasks:
            if task.name == failed:
                task.error = repr(error)
        # The engine state stays the one from before the failed step (which did not commit):
        # continuing the thread runs that step again.
        self.saver.save(record)


def pending_tasks(ex: Execution, order: Mapping[str, int]) -> tuple[str, ...]:
    """A snapshot's ``next``: one node name per pending task (two `Send` tasks to a node list
    it twice), in ``add_node`` order as LangGraph lists them."""
    names = [_node_of(aid) for aid, ev in ex.queue if isinstance(ev, Activated | EffectCompleted)]
    names.extend(node for node, _, _ in ex.deferred)
    names.extend(i.node for i in ex.instances.values() if i.state != "active")
    return tuple(sorted(names, key=lambda n: (order.get(n, len(order)), n)))


def _hit(names: set[str] | frozenset[str], breakpoints: frozenset[str]) -> bool:
    """Whether any of ``names`` is a breakpoint (``"*"``: every node)."""
    return bool(names) and ("*" in breakpoints or bool(names & breakpoints))


def _reset(var: Any, token: Any) -> None:
    # An async generator may be finalised in another context (e.g. by astream_events):
    # the token then cannot be used, and the context it belonged to is gone anyway.
    try:
        var.reset(token)
    except ValueError:
        var.set(None)


def _node_of(activation_id: str) -> str:
    return activation_id.rsplit(":", 1)[0]


def _names(given: Sequence[str] | str | None, default: frozenset[str]) -> frozenset[str]:
    if given is None:
        return default
    if given == "*":
        return frozenset({"*"})
    return frozenset(given)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, tuple | list) else [value]
