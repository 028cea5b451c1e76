"""Where `@task` calls run: the call scope of one entrypoint (or graph node) execution.

The path of one call (start, attempt, settle) is `superstep_compat.func._call`. A `@task`
call is a nested effect of the node task's effect (`superstep_core.host.nested`): the run's
host performs it, on its worker threads (a sync task) or on the caller's event loop (an async
one), retries it on the host's clock with the engine's `RetryPolicy` (the first of
the task's policies whose ``retry_on`` matches decides, as in LangGraph; jitter from the host's
random source), and records its result in the ledger before the caller's future resolves.

The ledger a call is recorded in is its `RootScope`: every call is keyed by its position in
the call tree, ``"<parent key>/<n>:<name>"`` (deterministic for a deterministic program), and
its effect id is the task id derived from that key. A recorded result goes into the node
task's memo, which the façade keeps in the engine activation's memory (so an entrypoint that
re-runs after an `interrupt()` gets it back without calling the task again), and, with a
checkpointer, is saved at once as a pending write of the current checkpoint (`TaskJournal`,
LangGraph's shape: the task id's ``__return__`` write); a run continued after its process
died finds it there.

`interrupt()` answers are matched to slots, not to a running count: a slot is the key of the
scope that called `interrupt()` plus the call's index within that scope; the slot of each
interrupt that reached the caller is appended to the memo's slot list, and the n-th
`Command(resume=...)` answers the n-th slot. Tasks running in parallel therefore never
steal each other's answers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
import threading
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

from superstep_compat._internal._constants import PENDING_INTERRUPTS as PENDING_KEY
from superstep_compat._internal.context import task_context_var
from superstep_compat.errors import GraphBubbleUp, GraphInterrupt
from superstep_compat.func._journal import TaskJournal
from superstep_compat.pregel._lgcheckpoint import lg_task_id
from superstep_compat.pregel._lgnames import PULL, PUSH
from superstep_compat.pregel._task_context import RunContext, _now, _TaskContext, task_uuid
from superstep_compat.pregel._task_support import attempt_observer
from superstep_compat.types import Interrupt, interrupt_id_from_ns
from superstep_core.host import NestedEffects
from superstep_core.node import EffectCompleted
from superstep_core.persistence import Codec

if TYPE_CHECKING:
    from superstep_compat.runtime import ExecutionInfo

log = logging.getLogger(__name__)

__all__ = [
    "OUTSIDE_RUN_MESSAGE",
    "CallScope",
    "RootScope",
    "call_namespace",
    "current_scope",
    "interrupts_of",
    "scope_var",
]

T = TypeVar("T")

OUTSIDE_RUN_MESSAGE = "Called get_config outside of a runnable context"
SLOTS_KEY = "__interrupt_slots__"
_codec = Codec()
_ABSENT = object()
_PRUNE_AT = 32


class RootScope(_TaskContext):
    """The task-call bookkeeping of one node task: memo, interrupt slots, futures in flight.

    It is also the `interrupt()` hook of the entrypoint body (scope key ``""``).
    """

    def __init__(
        self,
        resume: Sequence[Any],
        ns: str,
        run: RunContext,
        node: str,
        memo: dict[str, Any] | None,
        *,
        durable: bool,
        cache: Any = None,
        journal: TaskJournal | None = None,
        unslotted: bool = False,
    ) -> None:
        """``unslotted``: an answer no slot has goes to the first interrupt without one
        (`answer`): the entrypoint's task, whose answers all come through its resume; a
        graph node's calls share theirs with the node's own interrupts."""
        super().__init__(resume, ns, run, node)
        self.unslotted = unslotted
        self.memo = dict(memo or {})
        self.durable = durable
        self.cache = cache
        self.journal = journal
        # The host's performer of nested effects (a run outside a host, such as a branch
        # function evaluated for `update_state`, gets one on the run's clock of its own).
        self.nested = run.nested or NestedEffects(run.clock, run.rng)
        self.lock = threading.Lock()
        self.futures: list[concurrent.futures.Future[Any]] = []
        self._prune_at = _PRUNE_AT  # `track`: the length at which finished ones are dropped
        self.raised: dict[str, str] = {}
        self.body = CallScope(self, "")
        self._ids: dict[str, str] = {}  # call key -> task id (`task_id`, asked repeatedly)
        modes = run.stream_modes
        self.streams_tasks = run.emit is not None and ("tasks" in modes or "debug" in modes)
        # told each attempt of each task call (`CONFIG_KEY_ATTEMPT_OBSERVER`), if the run has one
        self.attempt_observer = attempt_observer(run)

    def end(self) -> None:
        """Let go of the body scope (whose link back to this one makes a reference cycle),
        so that the scopes, their futures and results are freed by reference counting, not
        left for the collector: once the function and its task calls have ended, or at once
        where the caller keeps the body itself (a graph node's calls, `_adopt`). Reading
        ``body`` or calling `interrupt` afterwards is an AttributeError."""
        del self.body

    # --- interrupts ----------------------------------------------------------------------

    def interrupt(self, value: Any, response_schema: Any) -> Any:
        return self.body.interrupt(value, response_schema)

    def _interrupt_ns(self, slot: str) -> str:
        """What LangGraph derives the id of the interrupt at ``slot`` (``<call key>#<n>``)
        from: the namespace of the task that asks (the entrypoint's task, under the graph's
        namespace; a `@task` call's is its caller's with ``|<name>:<call's task id>``),
        suffixed by how many answers that task already has (``n``; none for the first)."""
        key, _, nth = slot.rpartition("#")
        ns = self.call_ns(key)
        return f"{ns}|{nth}" if nth != "0" else ns

    def call_ns(self, key: str) -> str:
        """LangGraph's namespace of the task that runs call ``key`` (``""``: the entrypoint's
        own task, under the graph's namespace; a `@task` call's is its caller's with
        ``|<name>:<call's task id>``)."""
        graph_ns = self.run.checkpoint_ns
        parts = [graph_ns, self.ns] if graph_ns else [self.ns]
        if key:
            steps = key.split("/")
            for depth, step in enumerate(steps, 1):  # each call nests under its caller
                parts.append(f"{step.split(':', 1)[1]}:{self.task_id('/'.join(steps[:depth]))}")
        return "|".join(parts)

    def answer(self, slot: str) -> tuple[bool, Any]:
        """(True, answer) when ``slot`` was surfaced before and has been answered. An
        answer no slot has (the task was rebuilt from a checkpoint LangGraph wrote, which
        keeps no slots: its answers were given to no interrupt in particular) goes to the
        first interrupt without one, as LangGraph's ``__resume__`` of no task does; the
        slot is noted so that the function's next run finds it again."""
        with self.lock:
            slots: list[str] = self.memo.get(SLOTS_KEY, [])
            if slot in slots:
                index = slots.index(slot)
                if index < len(self.resume):
                    return True, self.resume[index]
            elif self.unslotted and len(slots) < len(self.resume):
                self.memo[SLOTS_KEY] = [*slots, slot]
                return True, self.resume[len(slots)]
        return False, None

    def raise_interrupt(self, slot: str, value: Any) -> GraphInterrupt:
        interrupt: Interrupt[Any] = Interrupt(value, interrupt_id_from_ns(self._interrupt_ns(slot)))
        with self.lock:
            self.raised[interrupt.id] = slot
        return GraphInterrupt((interrupt,))

    def surfaced(self, interrupts: Sequence[Interrupt[Any]]) -> None:
        """Give each interrupt that reached the caller its answer slot."""
        with self.lock:
            slots = list(self.memo.get(SLOTS_KEY, []))
            for interrupt in interrupts:
                slot = self.raised.get(interrupt.id)
                if slot is not None and slot not in slots:
                    slots.append(slot)
            if slots:
                self.memo[SLOTS_KEY] = slots
            self.memo[PENDING_KEY] = len(self.raised)

    # --- memo ----------------------------------------------------------------------------

    def recall(self, key: str) -> tuple[bool, Any]:
        """(True, result) of a finished call: from the memo, else from the pending writes
        of the checkpoint the run continues from (then remembered in the memo too). The
        memo's entries are read and written one dict operation at a time (atomic), without
        the lock: every call goes through here twice."""
        value = self.memo.get(key, _ABSENT)
        if value is not _ABSENT:
            return True, value
        if self.journal is not None:
            found, value = self.journal.saved_result(self.task_id(key))
            if found:
                self.memo[key] = value
                return True, value
        return False, None

    def remember(self, key: str, name: str, value: Any) -> None:
        """Keep a finished call's result: saved first (a result the checkpointer cannot hold
        fails the call, naming the task), then in the memo."""
        if self.journal is not None:
            self.journal.result(self.task_id(key), name, value, self.call_path(key))
        elif self.durable:
            _codec.dumps(value, where=name, kind="task result")
        self.memo[key] = value

    # --- the ledger the host consults and records in (keyed by effect id) ---------------

    def recorded(self, effect_id: str) -> EffectCompleted | None:
        """`EffectLedger.recorded`: a finished call's result, from the memo or the
        checkpoint's pending writes (effect ids are ``"<ns>/<call key>"``)."""
        found, value = self.recall(self._key_of(effect_id))
        return EffectCompleted(effect_id, result=value) if found else None

    def record(self, completed: EffectCompleted) -> None:
        """`EffectLedger.record`: keep a call's result (`remember`)."""
        self.remember(self._key_of(completed.effect_id), completed.tag, completed.result)

    def _key_of(self, effect_id: str) -> str:
        prefix = self.ns + "/"
        if not effect_id.startswith(prefix):
            raise KeyError(f"effect {effect_id!r} is not a task call of {self.ns!r}")
        return effect_id[len(prefix) :]

    def record_failure(self, key: str, name: str, error: BaseException) -> None:
        """Save how a call ended without a result: its interrupts, or its error (after its
        retries). A failure to save is noted on ``error``, which is raised anyway."""
        journal = self.journal
        if journal is None:
            return
        if isinstance(error, GraphInterrupt):
            writes: list[tuple[str, Any]] = [("__interrupt__", list(interrupts_of(error)))]
        elif isinstance(error, GraphBubbleUp):
            return
        else:
            writes = [("__error__", repr(error))]
        try:
            journal.failure(self.task_id(key), name, writes, self.call_path(key))
        except Exception as failure:
            error.add_note(f"saving how task {name!r} ended also failed: {failure!r}")

    def track(self, future: concurrent.futures.Future[Any]) -> None:
        """Keep ``future`` for `wait`, which needs only the unfinished ones: the finished
        are dropped as the list grows (each threshold twice the unfinished left, so each
        call is looked at a bounded number of times), and freed with their results as their
        callers let go of them, not kept (about eleven objects each) until the run ends."""
        with self.lock:
            futures = self.futures
            if len(futures) >= self._prune_at:
                futures[:] = [f for f in futures if not f.done()]
                self._prune_at = max(_PRUNE_AT, 2 * len(futures))
            futures.append(future)

    def wait(self) -> None:
        """Block until every task call started in this scope (nested ones too) settled, and
        the journal's background writes of their results with them."""
        while True:
            with self.lock:
                pending = [f for f in self.futures if not f.done()]
            if not pending:
                break
            concurrent.futures.wait(pending)
        if self.journal is not None:
            self.journal.settle()

    async def await_all(self) -> None:
        """`wait` on the running loop, which the journal's background writes may need."""
        while True:
            with self.lock:
                pending = [f for f in self.futures if not f.done()]
            if not pending:
                break
            await asyncio.wait([asyncio.wrap_future(f) for f in pending])
        if self.journal is not None:
            await self.journal.asettle()

    def emit_task(self, kind: str, payload: dict[str, Any]) -> None:
        """A ``tasks`` event (and its ``debug`` twin); ``kind``: "task" or "task_result"."""
        run = self.run
        if run.emit is None:
            return
        if "tasks" in run.stream_modes:
            run.emit("tasks", payload)
        if "debug" in run.stream_modes:
            stamp = _now(run.clock)
            run.emit(
                "debug", {"step": run.step, "timestamp": stamp, "type": kind, "payload": payload}
            )

    def task_id(self, key: str) -> str:
        """The id of call ``key``: LangGraph's push-task id when the run checkpoints from a
        checkpoint and the caller is a pull task (an entrypoint's, or a graph node's), so
        that the calls' pending writes name the tasks LangGraph would find them under; else
        an id stable for the call within its thread (`task_uuid`)."""
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = self._lg_task_id(key) or task_uuid(
                self.run, f"{self.ns}/{key}"
            )
        return found

    def _lg_task_id(self, key: str) -> str | None:
        """LangGraph's id of call ``key`` (``"<parent key>/<n>:<name>"``), or None when the
        run has no checkpoint or the caller is a `Send` task (its path is not tracked)."""
        run = self.run
        if run.checkpoint_id is None or run.push is not None or not key:
            return None
        parent, _, last = key.rpartition("/")
        index, _, name = last.partition(":")
        return lg_task_id(
            run.checkpoint_id,
            self.call_ns(parent),
            run.step,
            name,
            PUSH,
            path_str(self._task_path(parent)),
            index,
        )

    def call_path(self, key: str) -> str:
        """The path string LangGraph hands a saver's ``put_writes`` for call ``key``'s
        writes ("" when the caller is a `Send` task: its path is not tracked)."""
        return "" if self.run.push is not None else path_str(self._task_path(key))

    def _task_path(self, key: str) -> tuple[Any, ...]:
        """LangGraph's task path of the task running call ``key`` (``""``: the caller's pull
        task ``(PULL, node)``; a call's: ``(PUSH, its caller's path, n, True)``, the path
        LangGraph gives a call in progress)."""
        path: tuple[Any, ...] = (PULL, self.node)
        if key:
            for step in key.split("/"):
                path = (PUSH, path, int(step.partition(":")[0]), True)
        return path

    def emit_update(self, name: str, value: Any, *, cached: bool = False) -> None:
        run = self.run
        if run.emit is None or "updates" not in run.stream_modes:
            return
        chunk: dict[str, Any] = {name: value}
        if cached:
            chunk["__metadata__"] = {"cached": True}
        run.emit("updates", chunk)


class CallScope:
    """One level of the call tree: the entrypoint body (key ``""``) or one task call."""

    def __init__(self, root: RootScope, key: str) -> None:
        self.root = root
        self.key = key
        self.calls = 0
        self.interrupts = 0
        self.lock = threading.Lock()
        # a task call's attempts so far and when the first started (on the run's clock):
        # its `ExecutionInfo`'s ``node_attempt`` and ``node_first_attempt_time``
        self.attempts = 0
        self.first_attempt_at = 0.0

    def start_attempt(self) -> None:
        """A task call's attempt starts (the host calls the call again for each retry)."""
        self.attempts += 1
        if self.attempts == 1:
            self.first_attempt_at = self.root.run.clock.now()

    def execution_info(self, caller: ExecutionInfo) -> ExecutionInfo:
        """The `ExecutionInfo` of this scope's task, given its caller's (the entrypoint's
        task or the graph node's): a task call is a task of its own, LangGraph's push task,
        with its namespace, id and attempts; the body scope's is the caller's."""
        if not self.key:
            return caller
        return dataclasses.replace(
            caller,
            checkpoint_ns=self.root.call_ns(self.key),
            task_id=self.root.task_id(self.key),
            run_id=None,  # (a push task's config does not carry the run's id)
            node_attempt=self.attempts,
            node_first_attempt_time=self.first_attempt_at,
        )

    def next_key(self, name: str) -> str:
        with self.lock:
            index = self.calls
            self.calls += 1
        prefix = f"{self.key}/" if self.key else ""
        return f"{prefix}{index}:{name}"

    # --- the `interrupt()` hook of code running in this scope ----------------------------

    def interrupt(self, value: Any, response_schema: Any) -> Any:
        with self.lock:
            index = self.interrupts
            self.interrupts += 1
        slot = f"{self.key}#{index}"
        answered, answer = self.root.answer(slot)
        if answered:
            return answer
        raise self.root.raise_interrupt(slot, value)

    def push_message(self, message: Any, state_key: str | None) -> None:
        self.root.push_message(message, state_key)


scope_var: ContextVar[CallScope | None] = ContextVar("superstep_compat_call_scope", default=None)


def call_namespace(caller_ns: str) -> tuple[str, ...]:
    """Where LangGraph streams the custom chunks of the running `@task` call: the
    namespace of the node (or entrypoint) task that made the call, ``caller_ns`` (the
    ``checkpoint_ns`` of its config, ``"outer:<task id>|node:<task id>"``), as a tuple (a
    call's config nests its namespace under its caller's, and a custom chunk goes out one
    level up from the config's namespace). ``()`` outside a call, in a node's or an
    entrypoint's own body included: those go out at their graph's namespace."""
    scope = scope_var.get()
    if scope is None or not scope.key or not caller_ns:
        return ()
    return tuple(caller_ns.split("|"))


def current_scope() -> CallScope:
    """The scope a task call belongs to; LangGraph's RuntimeError outside a run.

    Inside a `StateGraph` node (no entrypoint), the node task's own context becomes the root
    on first use, so tasks work there too.
    """
    scope = scope_var.get()
    if scope is not None:
        return scope
    hook = task_context_var.get()
    if isinstance(hook, CallScope):
        return hook
    if isinstance(hook, _TaskContext):
        return _adopt(hook)
    raise RuntimeError(OUTSIDE_RUN_MESSAGE)


def _adopt(hook: _TaskContext) -> CallScope:
    body: CallScope | None = getattr(hook, "_functional_body", None)
    if body is None:
        run = hook.run
        # Calls made from a graph node are saved as they finish too (against the checkpoint
        # the step runs from), so a node that fails or dies after them does not redo them.
        journal = None
        if run.checkpoint_id is not None:
            thread = (run.config.get("configurable") or {}).get("thread_id")
            journal = TaskJournal.for_run(run.saver, thread, run.checkpoint_ns, durability="async")
            if journal is not None:
                journal.attach(run.checkpoint_id, fresh=False, read=run.saved_writes)
        root = RootScope(
            hook.resume, hook.ns, run, hook.node, None, durable=journal is not None, journal=journal
        )
        root.memo = hook.memo  # share: the node task persists its own memo
        # the node's own context stays its interrupt hook: the task keeps the body scope
        # alone, whose link to the root is then the only one (no cycle left to collect)
        body = root.body
        root.end()
        hook._functional_body = body  # type: ignore[attr-defined]
    return body


def path_str(path: Any) -> str:
    """A task path as LangGraph writes it into a task id: a tuple as ``~`` and its parts
    joined by ``", "``, an int (a bool too) as ten digits, anything else as its string."""
    if isinstance(path, tuple | list):
        return "~" + ", ".join(path_str(part) for part in path)
    if isinstance(path, int):
        return f"{path:010d}"
    return str(path)


def interrupts_of(error: GraphInterrupt) -> Iterator[Interrupt[Any]]:
    """The `Interrupt`s a `GraphInterrupt` carries (its args: interrupts or groups of them)."""
    for group in error.args:
        yield from group if isinstance(group, tuple | list) else (group,)
