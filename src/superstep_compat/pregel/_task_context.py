"""The facts one LangGraph task runs with: its run context, its outcome, its hooks.

`RunContext` (per-invocation facts), `TaskOutcome` (what a task did), the `interrupt()` /
`push_message()` hook of a task call, the link a subgraph run inherits from its task, the
context variables bound while a task runs, and the task's LangGraph ids, paths and timestamps.
"""

from __future__ import annotations

import itertools
import math
import random
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from hashlib import sha1
from typing import Any

from langchain_core.runnables.config import _set_config_context, var_child_runnable_config

from superstep_compat._internal._constants import INPUT, PRIVATE, PULL, PUSH
from superstep_compat._internal.context import task_context_var
from superstep_compat.errors import GraphInterrupt, ParentCommand
from superstep_compat.pregel._callbacks import TaskRun
from superstep_compat.pregel._messages import MessagesHandler
from superstep_compat.pregel._resume import resume_adapter, validated_resume
from superstep_compat.types import Command, Interrupt, RetryPolicy, Send, interrupt_id_from_ns
from superstep_core.host import Clock, NestedEffects, RandomSource, WallClock


@dataclass
class TaskOutcome:
    """What one task did. ``update`` is the value of its ``updates`` stream chunk."""

    writes: list[tuple[str, Any]] = field(default_factory=list)
    gotos: list[str] = field(default_factory=list)
    sends: list[Send] = field(default_factory=list)
    commanded: list[Any] | None = None
    """The routes (node names, `Send`s) of the task's own `Command`, in its order: the first
    of ``gotos`` and ``sends`` (its routers' follow). LangGraph writes them before the node's
    static edges, the routers' after."""
    update: Any = None
    interrupts: tuple[Interrupt[Any], ...] = ()
    error: BaseException | None = None
    retry: RetryPolicy | None = None
    skip_edges: bool = False
    parent_command: Command[Any] | None = None
    memo: dict[str, Any] | None = None
    subgraph_ns: str = ""
    cached: bool = False
    stopped: bool = False
    """A subgraph this task ran stopped at a breakpoint (an interrupt without values): the
    task waits, and continuing the thread runs it again (the subgraph then goes on)."""
    drained: bool = False
    """The subgraph stopped because its run drained (no breakpoint to report)."""

    @property
    def waiting(self) -> bool:
        """Whether the task did not finish: it interrupted, or its subgraph stopped."""
        return bool(self.interrupts) or self.stopped


@dataclass(frozen=True)
class StartCommand:
    """START's input when a `Command` is the first input of a thread (no checkpoint, or no
    checkpointer). LangGraph has nothing to resume then, so the `Command` is the input:
    START writes its ``update`` and ``goto`` and also follows its own edges. A bare
    `Command` as START's input is one given to an existing thread, which LangGraph applies
    as writes of no task: START then writes it without following its edges."""

    command: Command[Any]


@dataclass
class RunContext:
    """Per-invocation facts a task needs: config, context, store, step budget, streams."""

    config: dict[str, Any]
    context: Any = None
    store: Any = None
    step: int = 0
    stop: int = 10_007
    emit: Callable[[str, Any], None] | None = None
    stream_modes: frozenset[str] = frozenset()
    checkpoint_ns: str = ""
    previous: Any = None
    saver: Any = None
    subgraphs: bool = False
    cache: Any = None
    checkpoint_id: str | None = None  # the checkpoint the step runs from (its pending writes)
    saved_writes: Sequence[tuple[str, str, Any]] = ()
    """That checkpoint's pending writes as the run read them (none: one it wrote itself):
    what a `@task` call consults where its saver may not be read in place (`TaskJournal`)."""
    push: int | None = None
    """A `Send` task's index among the step's pushed tasks (LangGraph's push path)."""
    node_error: Any = None
    """An error handler's task: the `NodeError` of the failure it handles."""
    timeout: Any = None
    """The task's `TimeoutPolicy`: its `Send`'s own, in place of its node's (given with
    the request), else its node's (set when the task starts); None: no limits."""
    task_ids: Mapping[str, str] = field(default_factory=dict)
    """LangGraph's id of each task of the checkpoint the step runs from, by engine key (an
    activation id, or a node name for a task not numbered yet)."""
    trace: TaskRun | None = None
    """The task's callback run, when the config carries callbacks."""
    clock: Clock = field(default_factory=WallClock)
    """The run's clock (seconds since the epoch): timestamps, and the waits of @task retries."""
    rng: RandomSource = field(default=random)  # (LangGraph's jitter: `random.uniform`)
    """The run's random source (the jitter of @task retries)."""
    replay: Any = None
    """The root graph's `ReplayState` while it time-travels (subgraphs start from their
    checkpoints before the replay point); None otherwise."""
    resuming: bool = False
    """Whether the task belongs to the first step of a run that resumes (LangGraph's
    ``CONFIG_KEY_RESUMING``, kept by its loop for one step): a root run continuing its
    thread's checkpoint (input None or a `Command`), or a subgraph run whose parent's task
    resumes. A subgraph the task runs goes on from its checkpoint (a task run again after
    its step failed: its subgraph does not start over)."""
    spare_answers: list[Any] | None = None
    """Answers of a ``Command(resume=...)`` no task has taken yet, reaching a subgraph run
    that starts afresh (LangGraph's null-task ``__resume__``, which a subgraph's tasks fall
    back to): the first `interrupt()` past its task's own answers takes one. Shared by
    every run under one parent task, so an answer is taken once."""
    nested: NestedEffects | None = None
    """The run's host's performer of nested effects (the functional API's @task calls)."""
    control: Any = None
    """The run's `RunControl` (``runtime.control``; a subgraph's run shares its parent's)."""
    timed_attempt: Any = None
    """The task's attempt as LangGraph's timed-attempt observer hears of it
    (`superstep_compat.pregel._timed_attempts.TimedAttempt`); None: not observed."""
    started: Callable[[str, Callable[[], None] | None], Any] | None = None
    """Given a task's activation id and what announces its start (None: nothing), where a
    live run orders its steps' starts before their results (`StartGate.started`); returns
    what the task waits on before its node runs (a `Go`, or None)."""
    shared_runtime: list[Any] | None = None
    """Where the tasks copied from one step context keep the `Runtime` they share when
    nothing of theirs observes them (no stream writer, no heartbeat): empty until the first
    such task makes it, then that one runtime. Its copies (`fresh`) share the list, so
    the others take it without comparing its parts again. None: no such sharing (a
    context built for one task)."""

    def fresh(self) -> RunContext:
        """A shallow copy, for one task (which sets its own fields on it: push index,
        limits, trace, ...): a copy of the step's context instead of one built field by
        field per task. Containers are shared, as the run's are."""
        new: RunContext = object.__new__(RunContext)
        new.__dict__.update(self.__dict__)
        return new


class _TaskContext:
    """The `interrupt()` / `push_message()` hook of one task call."""

    # what most tasks never set, as class defaults (one hook is built per task)
    index = 0
    child: ChildLink | None = None  # the link a subgraph run in this task takes
    handler: MessagesHandler | None = None
    cache_key: tuple[tuple[str, ...], str] | None = None
    # the namespace of the graph the task runs in ("" at the root): LangGraph names an
    # interrupt by the task's whole namespace, "<parent ns>|<node>:<task id>"
    parent_ns = ""

    def __init__(
        self,
        resume: Sequence[Any],
        ns: str,
        run: RunContext,
        node: str,
        memo: dict[str, Any] | None = None,
    ) -> None:
        self.resume = resume
        self.ns = ns
        self.run = run
        self.node = node
        # Results of work done inside this task (the functional API's @task calls), kept
        # in the activation's memory so a re-run after an interrupt does not redo them.
        self.memo: dict[str, Any] = {} if memo is None else memo
        self.pushed: list[tuple[str, Any]] = []  # push_message writes, before the return's

    def interrupt(self, value: Any, response_schema: Any) -> Any:
        i = self.index
        self.index += 1
        adapter = resume_adapter(response_schema)
        spare = self.run.spare_answers
        if i >= len(self.resume) and spare:
            # a parent's answer no task took yet: kept in the task's memo, so a run of the
            # task again (after a later interrupt of its own) has it at the same place
            self.resume = [*self.resume, spare.pop(0)]
            self.memo[SPARE_KEY] = [*self.memo.get(SPARE_KEY, ()), [i, self.resume[i]]]
        if i < len(self.resume):
            answer = self.resume[i]
            return answer if adapter is None else validated_resume(adapter, answer)
        # LangGraph's id: the task's whole checkpoint namespace (a subgraph's task's under
        # its parent task's; its task id differs per thread and checkpoint), suffixed by
        # the answers it already has
        schema = response_schema if adapter is None else adapter.json_schema()
        ns = f"{self.parent_ns}|{self.ns}" if self.parent_ns else self.ns
        ns = f"{ns}|{i}" if i else ns
        raise GraphInterrupt((Interrupt(value, interrupt_id_from_ns(ns), response_schema=schema),))

    def push_message(self, message: Any, state_key: str | None) -> None:
        if self.handler is not None:
            self.handler.emit_pushed(message)
        elif self.run.emit is not None and "messages" in self.run.stream_modes:
            self.run.emit("messages", (message, {"langgraph_node": self.node}))
        if state_key:
            self.pushed.append((state_key, message))


_current_run: Any = __import__("contextvars").ContextVar("superstep_compat_run", default=None)


class NodeParentCommand(ParentCommand):
    """A node's own ``Command(graph=PARENT)`` raised from its call, not one a subgraph run
    passed up: it is addressed to the graph above the node's graph, so the node's task
    passes it on instead of taking it as its own result. `RemoteGraph` raises it when the
    remote run sends a parent command (LangGraph: the command's ``graph`` stays
    ``"__parent__"`` there, never the calling graph's namespace)."""


RUN_AGAIN = "__superstep_run_again__"
"""The answer that resumes a task whose subgraph stopped at a breakpoint: no value for any
`interrupt()` (it is never handed to one), only "run again"."""

CHILD_KEY = "__superstep_child"
"""Configurable key carrying a child run's link to its parent (`ChildLink`)."""


@dataclass
class ChildLink:
    """What a subgraph's run inherits from the task that runs it."""

    saver: Any
    resume: list[Any]
    emit: Callable[[str, Any], None] | None
    modes: frozenset[str]
    subgraphs: bool
    ns: str
    replay: Any = None  # the root's `ReplayState` while it time-travels
    # Graph runs started under this link so far: LangGraph gives the second and later runs
    # of a subgraph in one task the namespace ``ns|1``, ``ns|2``, ... (count() is atomic).
    calls: Iterator[int] = field(default_factory=itertools.count)
    # The namespace of the checkpoints of the first graph run under this link (set by that
    # run): where a parent's snapshot finds the state of a subgraph its task interrupted in.
    checkpoint_ns: str = ""
    resuming: bool = False
    """The task runs again after it waited (answered, or its subgraph had stopped at a
    breakpoint): a subgraph with unfinished work goes on from its checkpoint."""
    inherited: list[Any] | None = None
    """The spare answers of the run the task belongs to (`RunContext.spare_answers`)."""
    spare: list[Any] | None = None
    """The task's answers neither its own interrupts nor its subgraph runs took yet (set by
    the first subgraph run under this link, see `spare_answers_of`)."""


_Tokens = tuple[Any, Any, Any, Any]


def _bind(hook: _TaskContext, run: RunContext, config: Any) -> _Tokens:
    """Bind the task's context variables (config, interrupt hook, run) for a call; undo with
    `_unbind` (plain calls, not a context manager: this runs once per task). A traced task's
    config also makes its run LangSmith's current run tree (``get_current_run_tree()`` in
    the node, runs traced with ``@traceable`` nested under it), as LangChain's runnables do."""
    tracing = None
    if config is not None and config.get("callbacks"):
        token_cfg, tracing = _set_config_context(config)
    else:
        token_cfg = var_child_runnable_config.set(config)
    return (token_cfg, task_context_var.set(hook), _current_run.set((run, config)), tracing)


def _unbind(tokens: _Tokens) -> None:
    token_cfg, token_task, token_run, tracing = tokens
    _current_run.reset(token_run)
    task_context_var.reset(token_task)
    var_child_runnable_config.reset(token_cfg)
    if tracing is not None:  # the tracing context from before the task's run tree was set
        from langsmith.run_helpers import _set_tracing_context

        _set_tracing_context(tracing)


READ_STATE_KEY = PRIVATE["CONFIG_KEY_READ_STATE"]


def task_path(name: str, push: int | None) -> tuple[str | int | bool, ...]:
    """LangGraph's path of a task: ``(PULL, name)`` for a node an edge (or a goto)
    triggered, ``(PUSH, index, False)`` for the ``index``-th `Send` task of its step; none
    for ``__input__``, the writer of an input `Command`'s writes (no task)."""
    if name == INPUT:
        return ()
    return (PULL, name) if push is None else (PUSH, push, False)


SPARE_KEY = "__superstep_spare_answers__"
"""A task memo's entry: the answers its interrupts took from `RunContext.spare_answers`,
as ``[index, answer]`` pairs."""


def with_spare_answers(answers: Sequence[Any], memo: Mapping[str, Any]) -> list[Any]:
    """A task's answers by interrupt index: those it took from spare answers (its memo) in
    their places, its own answers filling the others in order."""
    taken = {int(i): answer for i, answer in memo.get(SPARE_KEY, ())}
    if not taken:
        return list(answers)
    own = iter(answers)
    out: list[Any] = []
    while True:
        if len(out) in taken:
            out.append(taken[len(out)])
            continue
        nxt = next(own, _NONE)
        if nxt is _NONE:
            return out
        out.append(nxt)


_NONE = object()


def spare_answers_of(link: ChildLink) -> list[Any]:
    """The answers a subgraph run under ``link`` may hand to its tasks' interrupts: the
    parent task's newest answer unless its own `interrupt()` calls took it (LangGraph's
    null-task resume), else those of the run the parent task belongs to; one list per
    link."""
    if link.spare is None:
        hook = task_context_var.get()
        used = hook.index if isinstance(hook, _TaskContext) else 0
        # only the newest answer is this run's: the others were given to earlier runs
        link.spare = list(link.resume[max(used, len(link.resume) - 1) :])
    return link.spare if link.spare or link.inherited is None else link.inherited


def _answers(resume: Sequence[Any]) -> list[Any]:
    """A task's answers to its interrupts, without the `RUN_AGAIN` resumptions."""
    if not resume:  # the usual task: no comprehension to set up
        return []
    return [r for r in resume if not (isinstance(r, str) and r == RUN_AGAIN)]


def _join_ns(parent: str, child: str) -> str:
    return f"{parent}|{child}" if parent else child


def _child_config(
    config: dict[str, Any], ns: str, run: RunContext, resume: Sequence[Any]
) -> dict[str, Any]:
    child = dict(config)
    configurable = dict(child.get("configurable") or {})
    configurable["checkpoint_ns"] = ns
    configurable.pop("checkpoint_id", None)
    configurable[CHILD_KEY] = ChildLink(
        run.saver, list(resume), run.emit, run.stream_modes, run.subgraphs, ns
    )
    child["configurable"] = configurable
    return child


def task_uuid(run: RunContext, activation_id: str) -> str:
    """The task's id: LangGraph's (see `_lgcheckpoint.lg_task_id`) when the run checkpoints,
    else a LangGraph-shaped id stable for one activation of one thread."""
    ids = run.task_ids
    if ids:
        found = ids.get(activation_id) or ids.get(activation_id.rsplit(":", 1)[0])
        if found is not None:
            return found
    thread = (run.config.get("configurable") or {}).get("thread_id", "")
    return uuid5_url(f"{thread}/{run.checkpoint_ns}/{activation_id}")


_URL_NAMESPACE = sha1(uuid.NAMESPACE_URL.bytes)
"""The hash state after the URL namespace: each id copies it (a fresh hash object costs more
than a copy, and the namespace's bytes need hashing once only)."""


def uuid5_url(name: str) -> str:
    """``str(uuid.uuid5(uuid.NAMESPACE_URL, name))``, without building `uuid.UUID` objects
    (a task id is made for every task: the objects were a fifth of a plain node's cost)."""
    digest = _URL_NAMESPACE.copy()
    digest.update(name.encode())
    h = digest.hexdigest()
    # hex digit 12 is the version (5); digit 16's two high bits the RFC 4122 variant (10)
    return f"{h[:8]}-{h[8:12]}-5{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:32]}"


_VARIANT = {d: "89ab"[int(d, 16) & 3] for d in "0123456789abcdef"}


_WALL = WallClock()


_second: tuple[int, str] = (-1, "")
"""The last whole second `_now` formatted, and its ISO text up to the seconds."""


def _now(clock: Clock | None = None) -> str:
    """An ISO timestamp (UTC) of ``clock`` (seconds since the epoch; the wall clock unless
    a run injected another, see `_run_options.CLOCK_KEY`): ``datetime.fromtimestamp(t,
    UTC).isoformat()``, the date and time formatted once per second (every checkpoint
    has one: formatting it was a few percent of a checkpointed step)."""
    global _second
    t = (clock or _WALL).now()
    sec = math.floor(t)
    us = round((t - sec) * 1e6)  # as datetime rounds: half to even
    if us >= 1_000_000:
        sec += 1
        us -= 1_000_000
    known = _second
    if known[0] != sec:
        known = (sec, datetime.fromtimestamp(sec, UTC).isoformat()[:-6])
        _second = known
    return f"{known[1]}.{us:06d}+00:00" if us else f"{known[1]}+00:00"


def current_run() -> tuple[RunContext, dict[str, Any]] | None:
    """The (run context, task config) of the task running in this context, if any."""
    value: tuple[RunContext, dict[str, Any]] | None = _current_run.get()
    return value
