"""The `@task` call path: a call started as a nested effect of the node task's effect, one
attempt of it (sync on a host worker thread, async on the caller's loop, through the task's
cache), and the hand-off of its outcome to the caller's future with its stream events.

The bookkeeping a call reads and records in (memo, journal, interrupt slots) is the
`RootScope` of `superstep_compat.func._scope`; this module owns only the path of one call.
It never imports the entrypoint or its runner.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from collections.abc import Callable, Generator, Sequence
from contextvars import copy_context
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from superstep_compat._internal._constants import RETURN
from superstep_compat._internal.context import task_context_var
from superstep_compat.errors import GraphBubbleUp, GraphInterrupt
from superstep_compat.func._scope import CallScope, RootScope, interrupts_of, scope_var
from superstep_compat.func._trace import TaskCallRun
from superstep_compat.pregel._node import engine_retry
from superstep_compat.pregel._task_support import (
    cache_digest,
    first_matching,
    note_task,
    task_cache_namespace,
)
from superstep_compat.types import CachePolicy, RetryPolicy
from superstep_core.host import AttemptObserver, NestedEffect
from superstep_core.node import RetryPolicy as EngineRetryPolicy
from superstep_core.twin import Block, Twin, adrive, drive

if TYPE_CHECKING:
    from superstep_compat.func._journal import TaskJournal
    from superstep_compat.func._task import TaskFunction

log = logging.getLogger(__name__)

__all__ = ["SyncAsyncFuture", "retry_for", "start_call"]

T = TypeVar("T")


class SyncAsyncFuture(concurrent.futures.Future[T]):
    """The result of calling a task: ``.result()`` blocks, ``await`` suspends."""

    def __await__(self) -> Generator[Any, None, T]:
        return asyncio.wrap_future(self).__await__()


def start_call(
    caller: CallScope, task: TaskFunction[Any, Any], args: tuple[Any, ...], kwargs: Any
) -> SyncAsyncFuture[Any]:
    """Start one call of ``task`` from ``caller`` (the scope the call is made in): a nested
    effect of the node task's effect, performed by the run's host (its worker threads for a
    sync task, the caller's event loop for an async one). The returned future resolves after
    the host recorded the result. RuntimeError for an async task called outside a loop."""
    root = caller.root
    key = caller.next_key(task.name)
    future: SyncAsyncFuture[Any] = SyncAsyncFuture()
    if root.streams_tasks:
        start = {"id": root.task_id(key), "name": task.name, "input": (args, kwargs)}
        root.emit_task("task", {**start, "triggers": ("__pregel_push",)})
    # the ledger, consulted here (the host then only consults its own): a recorded
    # result is handed back without a hand-off to the host
    found, value = root.recall(key)
    if found:
        future.set_result(value)
        return future
    loop = _running_loop()
    if task.is_async and loop is None:
        raise RuntimeError("In an sync context async tasks cannot be called")
    scope = CallScope(root, key)
    root.track(future)
    ctx = copy_context()
    hit: list[bool] = []  # set when the result came from the cache
    # LangGraph matches a call's cached writes as it accepts the call: its cached
    # ``updates`` chunk follows its start, before the caller's next call starts
    known = _cache_lookup(root, task, args, kwargs)
    if known:
        hit.append(True)
        root.emit_update(task.name, known[0], cached=True)
    # the effect id: the call's key under the node task's namespace (unique per thread
    # and step, deterministic); `RootScope.recorded` reads the key back from it
    effect_id = f"{root.ns}/{key}"
    observe = _attempts_told(root, task, key)
    attempt = partial(_attempt, scope, task, args, kwargs, hit, known)
    settle = partial(_settle, future, root, task, key, hit, announced=bool(known))
    if task.is_async:
        assert loop is not None
        # the host enforces the task's timeouts on each attempt, on its clock
        effect = NestedEffect(
            effect_id,
            partial(_attempt_async, attempt),
            task.name,
            task.retry_chooser,
            task.run_timeout,
            task.idle_timeout,
            observe,
        )
        pending = root.nested.schedule(effect, (root,), loop=loop, context=ctx, consulted=True)
        # cancelling the caller's future cancels the call (LangGraph's rule)
        cancels = _CancelsCall(pending)
        future.add_done_callback(cancels)
        pending.add_done_callback(cancels.release)
        pending.add_done_callback(partial(_settle_task, future, partial(_once_saved, root, settle)))
    else:
        effect = NestedEffect(
            effect_id,
            partial(ctx.run, _attempt_sync, attempt),
            task.name,
            task.retry_chooser,
            observe=observe,
        )
        root.nested.start(effect, (root,), settle, consulted=True)
    return future


def _attempts_told(
    root: RootScope, task: TaskFunction[Any, Any], key: str
) -> AttemptObserver | None:
    """The host's observer of each attempt of the call ``key`` of ``task``, telling the run's
    attempt observer (`CONFIG_KEY_ATTEMPT_OBSERVER`) in the shape of
    `superstep_compat.pregel._task_support.report_attempt`, the call named by its id in the
    ``tasks`` stream; None (nothing timed) for a run without one."""
    observer = root.attempt_observer
    if observer is None:
        return None
    run = root.run

    def told(attempt: int, seconds: float, error: Exception | None, policy: Any) -> None:
        failed = error is not None and not isinstance(error, GraphBubbleUp)
        shown = task.failure(error) if failed and error is not None else None
        report = {
            "task_id": root.task_id(key),
            "name": task.name,
            "checkpoint_ns": run.checkpoint_ns,
            "attempt": attempt,
            "started_at": time.time() - seconds,
            "duration_ms": round(seconds * 1000, 3),
            "error": f"{type(shown).__name__}: {shown}" if shown is not None else None,
            "max_attempts": policy.max_attempts if failed and policy is not None else None,
        }
        try:
            observer(report)
        except Exception:
            log.exception("the attempt observer of task %s failed", task.name)

    return told


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _index(scope: CallScope) -> int:
    """The call's number among its caller's calls (its key: ``[parent/]<index>:<name>``)."""
    return int(scope.key.rsplit("/", 1)[-1].split(":", 1)[0])


def _enter(scope: CallScope) -> None:
    scope_var.set(scope)
    task_context_var.set(scope)


def _cache_key(task: TaskFunction[Any, Any], policy: CachePolicy[Any], args: Any, kw: Any) -> Any:
    """LangGraph's key of a task call's cache entry: namespace ``("__pregel_ns_writes",
    <module>.<qualname> of its function)``, the digest of ``key_func(*args, **kwargs)``."""
    return (task_cache_namespace(task.func), cache_digest(policy.key_func(*args, **kw)))


def _returned(entry: Any) -> list[Any]:
    """The result a task call's cache entry holds (its ``__return__`` write), as a list of
    one; empty when there is no entry, or it holds none."""
    for write in entry or ():
        if isinstance(write, list | tuple) and len(write) == 2 and write[0] == RETURN:
            return [write[1]]
    return []


def _result_event(
    root: RootScope, task: TaskFunction[Any, Any], key: str, error: BaseException
) -> None:
    """A failed call: save how it ended, then emit its ``tasks`` result event."""
    root.record_failure(key, task.name, error)
    if not root.streams_tasks:
        return
    interrupts: list[dict[str, Any]] = []
    if isinstance(error, GraphInterrupt):
        for i in interrupts_of(error):
            interrupts.append({"value": i.value, "id": i.id, "response_schema": None})
    payload: dict[str, Any] = {
        "id": root.task_id(key),
        "name": task.name,
        "error": None if interrupts else error,
        "result": {},
        "interrupts": interrupts,
    }
    root.emit_task("task_result", payload)


def _attempt(
    scope: CallScope,
    task: TaskFunction[Any, Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    hit: list[bool],
    known: list[Any] | None,
) -> Twin[Any]:
    """One attempt of a call, written once for a sync task (`drive`n on a host worker
    thread) and an async one (`adrive`n on the caller's loop; the host stops it at the
    task's `TimeoutPolicy`), in the task's context: the cached result, else the function's
    (then cached). ``known``: what the call found in the cache as it started (`_cache_lookup`;
    None when it could not look), so that the attempt does not look again."""
    _enter(scope)
    scope.start_attempt()
    root = scope.root
    if known:
        return known[0]
    cache_key = _cached_key(root, task, args, kwargs)
    if cache_key is not None and known is None:
        found = yield Block(root.cache.get, root.cache.aget, ([cache_key],))
        returned = _returned(found.get(cache_key))
        if returned:
            hit.append(True)
            return returned[0]

    def ns() -> str:  # LangGraph's push task's namespace, asked for only if the call is traced
        return f"{root.ns}|{task.name}:{root.task_id(scope.key)}"

    traced = TaskCallRun.open(task.name, task.func, args, kwargs, index=_index(scope), ns=ns)
    call = partial(task.func, *args, **kwargs)
    try:
        result = yield Block(call, call)
    except BaseException as e:
        if traced is not None:
            traced.error(e)
        note_task(e, f"{task.name}:{root.task_id(scope.key)}")
        raise
    if traced is not None:
        traced.end(result)
    if cache_key is not None:
        assert task.cache_policy is not None
        # LangGraph's entry: the call's writes, its one ``__return__`` write
        entry = {cache_key: ([(RETURN, result)], task.cache_policy.ttl)}
        yield Block(root.cache.set, root.cache.aset, (entry,))
    return result


def _attempt_sync(attempt: Callable[[], Twin[Any]]) -> Any:
    """A sync call's attempt: a fresh `_attempt` driven on this thread."""
    return drive(attempt())


async def _attempt_async(attempt: Callable[[], Twin[Any]]) -> Any:
    """An async call's attempt: a fresh `_attempt` driven on the running loop."""
    return await adrive(attempt())


class _CancelsCall:
    """The caller's future's done callback that cancels the host's task of an async call
    when the future was cancelled. It lets go of the task once that ended (`release`): a
    concurrent future keeps its callbacks, and the ended task holds its context (the call
    scopes, whose root holds the future): a reference cycle left for the collector."""

    __slots__ = ("pending",)

    def __init__(self, pending: asyncio.Future[Any]) -> None:
        self.pending: asyncio.Future[Any] | None = pending

    def __call__(self, future: concurrent.futures.Future[Any]) -> None:
        pending = self.pending
        if pending is not None and future.cancelled():
            pending.cancel()

    def release(self, _ended: asyncio.Future[Any]) -> None:
        self.pending = None


def _cache_lookup(
    root: RootScope, task: TaskFunction[Any, Any], args: Any, kwargs: Any
) -> list[Any] | None:
    """The result a call finds in the run's cache as it starts, as a list of one (empty:
    none); None when it has no cache key, or the cache answers only asynchronously (an
    async-only cache: the call's attempt looks, on the caller's loop)."""
    cache_key = _cached_key(root, task, args, kwargs)
    if cache_key is None or root.cache is None:
        return None
    try:
        found = root.cache.get([cache_key])
    except NotImplementedError:
        return None
    return _returned(found.get(cache_key))


def _cached_key(root: RootScope, task: TaskFunction[Any, Any], args: Any, kwargs: Any) -> Any:
    if task.cache_policy is None or root.cache is None:
        return None
    return _cache_key(task, task.cache_policy, args, kwargs)


def _settle_task(
    future: concurrent.futures.Future[Any],
    settle: Callable[[Any, BaseException | None], None],
    done: asyncio.Task[Any],
) -> None:
    """`_settle` (``settle``, bound to the call) for the host's asyncio task of an async
    call; a cancelled task cancels the caller's ``future``."""
    if done.cancelled():
        if not future.cancelled():
            future.cancel()
        return
    error = done.exception()
    settle(None if error is not None else done.result(), error)


def _once_saved(
    root: RootScope,
    settle: Callable[[Any, BaseException | None], None],
    value: Any,
    error: BaseException | None,
) -> None:
    """``settle`` an async call once the journal saved what the host recorded of it: on the
    run's loop its writes go to the background (`TaskJournal`), awaited here, not in place.
    A result that could not be saved fails the call, as in place."""
    journal = root.journal
    if journal is None or not journal.in_flight:
        settle(value, error)
        return
    asyncio.get_running_loop().create_task(_settle_when_saved(journal, settle, value, error))


async def _settle_when_saved(
    journal: TaskJournal,
    settle: Callable[[Any, BaseException | None], None],
    value: Any,
    error: BaseException | None,
) -> None:
    try:
        await journal.asettle()
    except Exception as failure:
        if error is None:
            settle(None, failure)
            return
        error.add_note(f"saving how the task ended also failed: {failure!r}")
    settle(value, error)


def _settle(
    future: concurrent.futures.Future[Any],
    root: RootScope,
    task: TaskFunction[Any, Any],
    key: str,
    hit: list[bool],
    value: Any,
    error: BaseException | None,
    *,
    announced: bool = False,
) -> None:
    """Hand a performed call's outcome to its caller's future, after its stream events (and,
    for a failure, after saving how it ended; a cache hit's ``updates`` chunk was
    ``announced`` as the call started). A future its caller cancelled takes nothing."""
    if future.cancelled():
        return
    if error is not None:
        error = task.failure(error)  # a timeout the host enforced: NodeTimeoutError
        _result_event(root, task, key, error)
        future.set_exception(error)
        return
    if not announced:
        root.emit_update(task.name, value, cached=bool(hit))
    # a cache hit has a start but no result event: LangGraph matches cached writes after
    # announcing the task and never runs it
    if root.streams_tasks and not hit:
        payload: dict[str, Any] = {
            "id": root.task_id(key),
            "name": task.name,
            "error": None,
            "interrupts": [],
        }
        root.emit_task("task_result", {**payload, "result": {"__return__": value}})
    future.set_result(value)


def retry_for(policies: Sequence[RetryPolicy], error: Exception) -> EngineRetryPolicy | None:
    """The engine policy that decides the retry of a call that raised ``error``: LangGraph's
    rule, the first of ``policies`` whose ``retry_on`` matches (an interrupt or other
    bubble-up is never retried)."""
    if isinstance(error, GraphBubbleUp):
        return None
    policy = first_matching(policies, error)
    return None if policy is None else engine_retry(policy)
