"""Helpers a task call uses: how to call actions and routers, cache keys, retry policy
matching, the task's `Runtime`, callback-run closing, progress heartbeats, the updates chunk.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack
from contextvars import copy_context
from typing import Any, cast

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.runnables import Runnable, RunnableSequence
from langchain_core.runnables.config import patch_config
from langchain_core.tracers._streaming import _StreamingCallbackHandler
from xxhash import xxh3_128_hexdigest

from superstep_compat._internal._constants import (
    CACHE_NS_WRITES,
    CONFIG_KEY_ATTEMPT_OBSERVER,
    ROOT_KEY,
)
from superstep_compat.errors import GraphBubbleUp, GraphInterrupt, NodeCancelledError
from superstep_compat.graph._spec import NodeSpec
from superstep_compat.pregel._call import identifier
from superstep_compat.pregel._callbacks import TaskRun
from superstep_compat.pregel._checkpoint_tasks import outcome_writes, saved_outcome
from superstep_compat.pregel._lgcheckpoint import NO_WRITES
from superstep_compat.pregel._retry import _should_retry_on
from superstep_compat.pregel._task_context import RunContext, TaskOutcome, task_uuid
from superstep_compat.types import RetryPolicy
from superstep_core.host import heartbeat as _heartbeat

log = logging.getLogger(__name__)


def _is_runnable(action: Any) -> bool:
    """A langchain Runnable rather than a callable, remembered per type: the check runs once
    per task. (LangGraph's test: an object that merely has an ``invoke``, a `Mock`, is
    called like a function.)"""
    kind = type(action)
    known = _RUNNABLE_TYPES.get(kind)
    if known is None:
        known = isinstance(action, Runnable)
        _RUNNABLE_TYPES[kind] = known
    return known


_RUNNABLE_TYPES: dict[type, bool] = {}


def node_cache_namespace(node: NodeSpec) -> tuple[str, str, str]:
    """Where LangGraph caches a node's results (and what ``clear_cache`` clears):
    ``("__pregel_ns_writes", identifier(node's function) or "__dynamic__", node name)``."""
    return (CACHE_NS_WRITES, identifier(node.action) or "__dynamic__", node.name)


def task_cache_namespace(func: Any) -> tuple[str, str]:
    """Where LangGraph caches a `@task`'s calls (and what the task's ``clear_cache`` clears):
    ``("__pregel_ns_writes", identifier(func) or "__dynamic__")``."""
    return (CACHE_NS_WRITES, identifier(func) or "__dynamic__")


def cache_digest(key: str | bytes) -> str:
    """LangGraph's key of a cache entry: the xxh3-128 hex digest of ``key_func``'s result."""
    return xxh3_128_hexdigest(key.encode() if isinstance(key, str) else key)


def _cache_key(node: NodeSpec, state: Any) -> tuple[tuple[str, ...], str] | None:
    """The cache key of a node with a `CachePolicy`, LangGraph's: (`node_cache_namespace`,
    `cache_digest` of ``key_func(input)``)."""
    policy = node.cache_policy
    if policy is None:
        return None
    return (node_cache_namespace(node), cache_digest(policy.key_func(state)))


def no_sync_function(name: str) -> TypeError:
    """LangGraph's error for an ``async def`` node run by a synchronous call."""
    return TypeError(
        f'No synchronous function provided to "{name}".\nEither initialize with a synchronous '
        "function or invoke via the async API (ainvoke, astream, etc.)"
    )


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _as_tuple(value: Any) -> tuple[Any, ...]:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,)


def _noop(_: Any) -> None:
    return None


def _noop_heartbeat() -> None:
    return None


class _ProgressHandler(BaseCallbackHandler):
    """Counts every LangChain callback event of a node's run as progress of its task (the
    idle timeout's "auto" refresh); inherited by the runs inside the node."""

    run_inline = True  # no thread hop: a heartbeat only records the clock's reading

    def __init__(self, beat: Callable[[], None]) -> None:
        self._beat = beat

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("on_"):
            beat = object.__getattribute__(self, "_beat")

            def touched(*args: Any, **kwargs: Any) -> None:
                beat()

            return touched
        return object.__getattribute__(self, name)


def _heartbeat_writer(_: Any) -> None:
    _heartbeat()


def as_seconds(value: Any) -> float | None:
    """A timeout in seconds (a number or a timedelta; None stays None)."""
    if value is None:
        return None
    return float(value.total_seconds() if hasattr(value, "total_seconds") else value)


def first_matching(policies: Sequence[RetryPolicy], error: Exception) -> RetryPolicy | None:
    """LangGraph's rule for a list of retry policies: the first whose ``retry_on`` matches
    ``error`` decides (attempts, backoff, jitter); None when none matches."""
    for policy in policies:
        if _should_retry_on(policy, error):
            return policy
    return None


def _runtime(
    run: RunContext, writer: Callable[[Any], None], heartbeat: Callable[[], None] | None = None
) -> Any:
    """The `Runtime` a task's code sees (context, store, stream writer, previous, and the
    heartbeat of a node with an idle timeout). A `Runtime` is frozen: the tasks of a run
    given the same parts share one (building it was a tenth of a plain node's cost)."""
    global _last_runtime
    parts = (
        run.context,
        run.store,
        writer,
        heartbeat or _noop_heartbeat,
        run.previous,
        run.control,
    )
    last = _last_runtime
    if last is not None:
        seen = last[0]  # spelled out: a generator here cost as much as the rest of this
        if (
            seen[0] is parts[0]
            and seen[1] is parts[1]
            and seen[2] is parts[2]
            and seen[3] is parts[3]
            and seen[4] is parts[4]
            and seen[5] is parts[5]
        ):
            return last[1]
    from superstep_compat.runtime import Runtime

    runtime: Runtime[Any] = Runtime(
        context=parts[0],
        store=parts[1],
        stream_writer=parts[2],
        heartbeat=parts[3],
        previous=parts[4],
        control=parts[5],
    )
    _last_runtime = (parts, runtime)  # one tuple: threads see the old pair or the new one
    return runtime


_last_runtime: tuple[tuple[Any, ...], Any] | None = None


def _call_router(path: Any, state: Any, injected: Mapping[str, Any] | None = None) -> Any:
    if hasattr(path, "invoke") and not inspect.isfunction(path):
        return path.invoke(state)
    result = path(state, **injected) if injected else path(state)
    if type(result) in _NOT_AWAITABLE:  # a node name, a list of them, None: no ABC check
        return result
    if inspect.isawaitable(result):
        result = _run_awaitable(result)
    return result


_NOT_AWAITABLE = frozenset({str, list, tuple, type(None)})


def _run_awaitable(awaitable: Any) -> Any:
    """The result of an async router. Routers run where the task concludes; in an async run
    this thread's loop is busy with the task, so the router gets a loop of its own on a helper
    thread (with this context: config, runtime)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(awaitable))
    context = copy_context()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="superstep-router") as pool:
        return pool.submit(context.run, asyncio.run, _await(awaitable)).result()


def _close(
    trace: TaskRun, result: Any, outcome: TaskOutcome | BaseException, *, streamed: bool = False
) -> None:
    """End a task's callback run: with its error (or interrupt), else its return value
    (``streamed``: `TaskRun.stream` already streamed it)."""
    if isinstance(outcome, BaseException):
        trace.error(outcome)
    elif outcome.error is not None:
        trace.error(outcome.error)
    elif outcome.interrupts:
        trace.error(GraphInterrupt(outcome.interrupts))
    else:
        trace.end(result, streamed=streamed)


def cache_entry(outcome: TaskOutcome, edges: Sequence[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """What the node cache keeps of a finished task, as LangGraph keeps it: the task's
    writes with LangGraph's channel names for its routing (``branch:to:<node>``, ``join:...``
    and ``__pregel_tasks`` writes; ``edges``: its node's static edge writes), so a cache one
    of them filled answers the other, and a hit routes as the call did."""
    return [w for w in outcome_writes(outcome, edges) if w[0] != NO_WRITES]


def from_cache_entry(
    entry: Sequence[Sequence[Any]], edges: Sequence[tuple[str, Any]]
) -> TaskOutcome | None:
    """The outcome a cache hit stands for (an entry of `cache_entry`, or LangGraph's); None
    for an entry of an unfinished task (LangGraph caches none)."""
    out = saved_outcome([(w[0], w[1]) for w in entry], edges)
    if out is not None:
        out.update = _update_chunk(out.writes)
    return out


def _update_chunk(writes: Sequence[tuple[str, Any]]) -> Any:
    """A task's ``updates`` chunk: its writes as a dict, ``None`` when it wrote nothing; a
    list of one-key dicts, one per write, when it wrote a channel more than once."""
    if not writes:
        return None
    if writes[0][0] == ROOT_KEY:  # a root state: the bare value (a list of them)
        return writes[0][1] if len(writes) == 1 else [value for _, value in writes]
    chunk = dict(writes)
    if len(chunk) < len(writes):
        return [{key: value} for key, value in writes]
    return chunk


def attempt_observer(run: RunContext) -> Callable[[dict[str, Any]], None] | None:
    """The run's attempt observer (`CONFIG_KEY_ATTEMPT_OBSERVER`), if its config has one."""
    observer = (run.config.get("configurable") or {}).get(CONFIG_KEY_ATTEMPT_OBSERVER)
    return observer if callable(observer) else None


def report_attempt(
    observer: Callable[[dict[str, Any]], None],
    run: RunContext,
    request: Any,
    started: float,
    outcome: TaskOutcome,
) -> None:
    """Tell ``observer`` how an attempt of a task ended (``request``: its
    `superstep_compat.pregel._work.TaskRequest`, started at ``started``). LangGraph's
    ``tasks`` stream names a task once, whatever its retries; the observer hears each
    attempt: ``{"task_id", "name", "checkpoint_ns", "attempt", "started_at"`` (seconds since
    the epoch), ``"duration_ms", "error"`` (``"Type: message"`` or None), ``"max_attempts"``
    (of the retry policy that matched the error; None: no retry for it)``}``. An observer
    that raises is logged, never the task's failure."""
    error = outcome.error
    failed = isinstance(error, Exception) and not isinstance(error, GraphBubbleUp)
    report = {
        "task_id": task_uuid(run, request.activation_id),
        "name": request.node,
        "checkpoint_ns": run.checkpoint_ns,
        "attempt": request.attempt,
        "started_at": started,
        "duration_ms": round((time.time() - started) * 1000, 3),
        "error": f"{type(error).__name__}: {error}" if failed else None,
        "max_attempts": outcome.retry.max_attempts if failed and outcome.retry else None,
    }
    try:
        observer(report)
    except Exception:
        log.exception("the attempt observer of task %s failed", request.node)


def note_task(error: BaseException, ns: str) -> None:
    """Note on an exception escaping task ``ns`` (``"<name>:<task id>"``) which task that was,
    as LangGraph does on each failed attempt: a traceback shows the node that failed, and an
    exception crossing a subgraph's node (or a `@task`'s entrypoint) is noted there again.
    Interrupts, commands and cancellations are no failures of the task: not noted."""
    if isinstance(error, Exception) and not isinstance(error, (GraphBubbleUp, NodeCancelledError)):
        name, _, uid = ns.rpartition(":")
        error.add_note(f"During task with name '{name}' and id '{uid}'")


def sequence_steps(action: Any) -> list[Any] | None:
    """The steps of a node whose action is a `RunnableSequence` (``prompt | model | ...``),
    else None: LangGraph runs them as steps of the node itself (tags ``seq:step:K`` under
    the node's run, no run of the sequence between), its routers after them."""
    return list(action.steps) if isinstance(action, RunnableSequence) else None


def _step_config(config: dict[str, Any], position: int) -> dict[str, Any]:
    """The node action's ``config`` (a child of the node's run tagged ``seq:step:1``) for the
    ``position``-th step of a sequence action; as is without a run to be a child of."""
    callbacks = config.get("callbacks")
    if position == 1 or not isinstance(callbacks, BaseCallbackManager):
        return config
    moved = callbacks.copy()
    moved.remove_tags(["seq:step:1"])
    moved.add_tags([f"seq:step:{position}"], inherit=False)
    return cast(dict[str, Any], patch_config(cast(Any, config), callbacks=moved))


def invoke_steps(steps: Sequence[Any], value: Any, config: dict[str, Any]) -> Any:
    """Run a sequence action's ``steps`` one after the other (see `sequence_steps`)."""
    for position, step in enumerate(steps, 1):
        value = step.invoke(value, _step_config(config, position))
    return value


async def ainvoke_steps(steps: Sequence[Any], value: Any, config: dict[str, Any]) -> Any:
    """`invoke_steps` on the running loop."""
    for position, step in enumerate(steps, 1):
        value = await step.ainvoke(value, _step_config(config, position))
    return value


def acall_runnable(
    action: Any, steps: Sequence[Any] | None, value: Any, config: dict[str, Any]
) -> Any:
    """The awaitable of a Runnable node's call on the running loop (``steps``: its
    sequence's, `sequence_steps`): streamed when the run's callbacks have a streaming
    handler (`astream_events`, `astream_log`), as LangGraph's async runner then streams
    each node, else invoked."""
    if _streams_nodes(config):
        if not _is_graph(action):
            return astream_steps(steps or (action,), value, config)
        if not steps and _reads_every_channel_streamed(action):
            return _streamed_graph_call(action, value, config)
    return ainvoke_steps(steps, value, config) if steps else action.ainvoke(value, config)


def _reads_every_channel_streamed(graph: Any) -> bool:
    """Whether ``graph`` streamed reads more than invoked: a `StateGraph`'s state of
    several keys (a root state is one value either way; a low-level graph's stream
    channels are its own)."""
    return graph.lowlevel is None and graph.state_channels != (ROOT_KEY,)


def _streamed_graph_call(graph: Any, value: Any, config: dict[str, Any]) -> Any:
    """A subgraph node's run under a streaming handler. LangGraph's runner streams it then,
    and a graph streamed as a node ends with every state channel's value (private ones too,
    as its ``values`` and ``updates`` chunks then show them) where ``ainvoke`` narrows them
    to the output schema; it yields nothing of its own before (its chunks reach the
    parent's stream). So its run is ``ainvoke``'s, reading every state channel."""
    return graph.ainvoke(value, config, output_keys=list(graph.state_channels))


def _is_graph(action: Any) -> bool:
    """Whether ``action`` is a compiled graph (a subgraph node: its run streams its own
    chunks to the handler and hands its final state on, as LangGraph's does)."""
    from superstep_compat.pregel._compile import Pregel

    return isinstance(action, Pregel)


def _streams_nodes(config: dict[str, Any]) -> bool:
    """Whether ``config``'s callbacks have a streaming handler other than the ones the
    façade adds for the ``messages`` and ``tools`` modes (LangGraph leaves its own two out
    too: they stream a model's tokens, not a node's output)."""
    callbacks = config.get("callbacks")
    if not isinstance(callbacks, BaseCallbackManager):
        return False
    from superstep_compat.pregel._messages import MessagesHandler
    from superstep_compat.pregel._tools import ToolsHandler

    return any(
        isinstance(h, _StreamingCallbackHandler)
        and not isinstance(h, (MessagesHandler, ToolsHandler))
        for h in callbacks.handlers
    )


async def astream_steps(steps: Sequence[Any], value: Any, config: dict[str, Any]) -> Any:
    """Run ``steps`` as one stream, as LangGraph does under a streaming handler: the first
    step's ``astream`` of ``value``, each next step's ``atransform`` of the stream before it
    (so a step starts before the one before it ends, and each emits its chunks); the
    output is the last chunk."""
    async with AsyncExitStack() as stack:
        stream: AsyncIterator[Any] | None = None
        for position, step in enumerate(steps, 1):
            step_config = _step_config(config, position)
            stream = (
                step.astream(value, step_config)
                if stream is None
                else step.atransform(stream, step_config)
            )
            if hasattr(stream, "aclose"):
                stack.push_async_callback(stream.aclose)
        output = None
        assert stream is not None  # (a node has one step at least)
        async for chunk in stream:
            output = chunk
    return output


# A task's own cancellation: a CancelledError its code raised, told from one the run's
# timeout or caller sent, becomes LangGraph's NodeCancelledError and is never retried.


def _own() -> bool:
    return True  # nothing cancels a task on a thread: its own code raised it


def _own_cancellation() -> bool:
    """Whether the task on the loop raised CancelledError itself (nothing asked to cancel
    it: no timeout, no caller)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() == 0


def _node_cancelled(name: str, cause: asyncio.CancelledError) -> NodeCancelledError:
    error = NodeCancelledError(name)
    error.__cause__ = cause
    return error
