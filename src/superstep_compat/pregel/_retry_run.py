"""LangGraph's ``run_with_retry`` / ``arun_with_retry``: run one `PregelExecutableTask` (its
``proc`` on its ``input`` and ``config``) with retries, and for an async task under its
`TimeoutPolicy`. LangGraph's own runner calls them per task; here they serve code that drives
a task by hand (LangGraph's tests, distributed executors). The façade's graphs never come
through them: their tasks are engine activations.

Nothing here decides a retry or keeps time itself. A call is one nested effect of the engine's
host (`superstep_core.host.NestedEffects`): the host makes the attempts, picks the policy of
each failure with the same chooser the `@task` calls use (`superstep_compat.func._call.retry_for`:
LangGraph's first matching ``retry_on``, as the engine's `RetryPolicy`), waits
``policy.backoff(attempt)`` plus jitter from the `random` module on the system clock, and
enforces the run and idle timeouts (`superstep_core.host.deadlines.within`). What this module
adds is LangGraph's per-attempt contract around that:

- each attempt sees a runtime whose `ExecutionInfo` has ``node_attempt`` (1-based) and one
  ``node_first_attempt_time``; attempts after the first are told ``__pregel_resuming``;
- ``task.writes`` is cleared before each attempt, and a timed attempt's writes and stream
  output stop at its deadline (`_TimedAttemptScope`): a node that outlives its timeout (one
  that swallows the cancellation, or a thread it left running) writes nothing;
- a `ParentCommand` for the running graph goes to ``task.writers`` (the call then returns
  None); one for the parent is re-addressed to the parent's namespace and re-raised; other
  interrupts and bubble-ups are re-raised, never retried;
- a ``CancelledError`` the node raises itself is `NodeCancelledError` (final); a cancellation
  of the caller stays a ``CancelledError``;
- the timed-attempt observer (``CONFIG_KEY_TIMED_ATTEMPT_OBSERVER``) hears each timed
  attempt's start, progress and finish, the finish before any retry wait;
- a failure carries LangGraph's note naming the task, and a run past a timeout raises
  `NodeTimeoutError`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any, Literal

from superstep_compat._internal._config import (
    merge_configs,
    patch_configurable,
    recast_checkpoint_ns,
)
from superstep_compat._internal._constants import (
    CONF,
    CONFIG_KEY_CALL,
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_RESUMING,
    CONFIG_KEY_RUNTIME,
    CONFIG_KEY_SEND,
    CONFIG_KEY_STREAM,
)
from superstep_compat._internal._policies import sync_timeout_unsupported
from superstep_compat.errors import (
    GraphBubbleUp,
    NodeCancelledError,
    NodeTimeoutError,
    ParentCommand,
)
from superstep_compat.func._call import retry_for
from superstep_compat.pregel._retry import _checkpoint_ns_for_parent_command, _ensure_execution_info
from superstep_compat.pregel._task_support import _ProgressHandler, as_seconds
from superstep_compat.pregel._timed_attempts import TimedAttempt, start_timed_attempt
from superstep_compat.pregel.protocol import StreamProtocol
from superstep_compat.runtime import Runtime
from superstep_compat.types import Command, PregelExecutableTask, RetryPolicy
from superstep_core.host import DeadlineExceeded
from superstep_core.host.clock import SystemClock
from superstep_core.host.deadlines import current_heartbeat, deadline_stop
from superstep_core.host.nested import NestedEffect, NestedEffects
from superstep_core.node import RetryPolicy as EngineRetryPolicy

__all__ = ["_TimedAttemptScope", "arun_with_retry", "run_with_retry"]

log = logging.getLogger("superstep_compat.pregel._retry")


def _host() -> NestedEffects:
    """The host that performs one call: the system clock (``time.sleep`` /
    ``asyncio.sleep`` for waits, as LangGraph's loops) and the `random` module for jitter
    (LangGraph's ``random.uniform``). One per call: its attempt counts die with it."""
    return NestedEffects(SystemClock(), random)


def run_with_retry(
    task: PregelExecutableTask,
    retry_policy: Sequence[RetryPolicy] | None,
    configurable: dict[str, Any] | None = None,
) -> Any:
    """Run ``task`` in this thread until an attempt succeeds or a failure is final: what
    ``task.proc.invoke`` returned (None when a `ParentCommand` was handled by ``task.writers``).
    ``retry_policy``: the policies to use when the task has none of its own; ``configurable``
    is patched into the task's config. Raises the last failure (with LangGraph's note), the
    `ValueError` of a sync task with a timeout (before anything runs), `NodeCancelledError` for
    a ``CancelledError`` the node raised, any interrupt as it was raised."""
    if task.timeout is not None:
        raise sync_timeout_unsupported(task.name)
    attempts = _Attempts(task, retry_policy, configurable)
    effect = NestedEffect(
        task.id, attempts.run_sync, task.name, attempts.chooser(), observe=attempts.observe
    )
    return _host().perform(effect)


async def arun_with_retry(
    task: PregelExecutableTask,
    retry_policy: Sequence[RetryPolicy] | None,
    stream: bool = False,
    match_cached_writes: Callable[[], Awaitable[Sequence[PregelExecutableTask]]] | None = None,
    configurable: dict[str, Any] | None = None,
) -> Any:
    """`run_with_retry` on the running loop, with ``task.proc.ainvoke`` (``stream``: its
    ``astream`` drained, returning None). Each attempt of a task with a `TimeoutPolicy` runs
    under its limits; past one it is cancelled and counts as `NodeTimeoutError` (retried as
    the policies say; raised when final, its writes dropped). ``match_cached_writes``: asked
    first when the task has a cache key; the call returns None when it names ``task``."""
    attempts = _Attempts(task, retry_policy, configurable)
    if match_cached_writes is not None and task.cache_key is not None:
        for cached in await match_cached_writes():
            if cached is task:
                return None
    limits = task.timeout
    run_secs = as_seconds(limits.run_timeout) if limits is not None else None
    idle_secs = as_seconds(limits.idle_timeout) if limits is not None else None
    work = attempts.streamed if stream else attempts.run_async
    effect = NestedEffect(
        task.id, work, task.name, attempts.chooser(), run_secs, idle_secs, attempts.observe
    )
    try:
        return await _host().perform_async(effect)
    except DeadlineExceeded as stop:
        task.writes.clear()
        raise attempts.timeout_error(stop) from stop


class _Attempts:
    """The per-attempt side of one call (see the module docstring): the config each attempt
    runs with, the attempt's proc call, and what the host is told to match policies against.
    ``final``: an error made here that no policy may retry (a `NodeCancelledError`)."""

    def __init__(
        self,
        task: PregelExecutableTask,
        retry_policy: Sequence[RetryPolicy] | None,
        configurable: dict[str, Any] | None,
    ) -> None:
        self.task = task
        self.policies: tuple[RetryPolicy, ...] = tuple(task.retry_policy or retry_policy or ())
        self.number = 0
        self.final: BaseException | None = None
        config = task.config
        if configurable is not None:
            config = patch_configurable(config, configurable)
        runtime = config.get(CONF, {}).get(CONFIG_KEY_RUNTIME)
        if isinstance(runtime, Runtime):
            runtime = _ensure_execution_info(runtime, config, task)
            runtime = runtime.patch_execution_info(node_first_attempt_time=time.time())
            config = patch_configurable(config, {CONFIG_KEY_RUNTIME: runtime})
        self.config = config

    # --- what the host is given ----------------------------------------------------------

    def chooser(self) -> Callable[[Exception], EngineRetryPolicy | None] | None:
        """The host's retry chooser: None (every failure final) without policies."""
        return self._choose if self.policies else None

    def _choose(self, error: Exception) -> EngineRetryPolicy | None:
        if error is self.final:
            return None
        if isinstance(error, DeadlineExceeded):
            error = self.timeout_error(error)
        return retry_for(self.policies, error)

    def observe(self, attempt: int, seconds: float, error: Exception | None, policy: Any) -> None:
        """LangGraph's log line for a failure that will be retried."""
        if error is None or policy is None or attempt >= policy.max_attempts:
            return
        log.info(
            "Retrying task %s (attempt %d) after %s %s",
            self.task.name,
            attempt,
            type(error).__name__,
            error,
            exc_info=error,
        )

    def timeout_error(self, stop: DeadlineExceeded) -> NodeTimeoutError:
        """LangGraph's error for an attempt the host stopped at one of the task's limits."""
        limits = self.task.timeout
        return NodeTimeoutError(
            self.task.name,
            stop.elapsed,
            kind=stop.kind,
            run_timeout=as_seconds(limits.run_timeout) if limits is not None else None,
            idle_timeout=as_seconds(limits.idle_timeout) if limits is not None else None,
        )

    # --- one attempt ---------------------------------------------------------------------

    def _next(self) -> dict[str, Any]:
        """The next attempt's config (its number in the runtime; ``resuming`` after a
        failure), the task's writes cleared."""
        self.number += 1
        config: dict[str, Any] = dict(self.config)
        runtime = config.get(CONF, {}).get(CONFIG_KEY_RUNTIME)
        patch: dict[str, Any] = {}
        if isinstance(runtime, Runtime):
            patch[CONFIG_KEY_RUNTIME] = runtime.patch_execution_info(node_attempt=self.number)
        if self.number > 1:
            patch[CONFIG_KEY_RESUMING] = True
        if patch:
            config = dict(patch_configurable(config, patch))  # type: ignore[arg-type]
        self.task.writes.clear()
        return config

    def _noted(self, error: BaseException) -> None:
        error.add_note(f"During task with name '{self.task.name}' and id '{self.task.id}'")

    def _parent_command(self, exc: ParentCommand, config: dict[str, Any]) -> bool:
        """Handle ``exc``: True when it was for this graph and ``task.writers`` took it,
        False when it must go on up (re-addressed, if it was for the parent)."""
        ns: str = config[CONF][CONFIG_KEY_CHECKPOINT_NS]
        cmd = exc.args[0]
        if cmd.graph in (ns, recast_checkpoint_ns(ns), self.task.name):
            for writer in self.task.writers:
                writer.invoke(cmd, config)
            return True
        if cmd.graph == Command.PARENT:
            exc.args = (replace(cmd, graph=_checkpoint_ns_for_parent_command(ns)),)
        return False

    def run_sync(self) -> Any:
        config = self._next()
        task = self.task
        try:
            return task.proc.invoke(task.input, config)
        except ParentCommand as exc:
            if self._parent_command(exc, config):
                return None
            raise
        except GraphBubbleUp:
            raise
        except asyncio.CancelledError as exc:
            # a sync node has no loop to be cancelled by: the node raised it itself
            self.final = NodeCancelledError(task.name)
            raise self.final from exc
        except Exception as exc:
            self._noted(exc)
            raise

    async def run_async(self) -> Any:
        return await self._attempt_async(False)

    async def streamed(self) -> Any:
        return await self._attempt_async(True)

    async def _attempt_async(self, stream: bool) -> Any:
        config = self._next()
        task = self.task
        limits = task.timeout
        timed: TimedAttempt | None = None
        scope: _TimedAttemptScope | None = None
        if limits is not None:
            runtime = config[CONF].get(CONFIG_KEY_RUNTIME)
            info = runtime.execution_info if isinstance(runtime, Runtime) else None
            timed = start_timed_attempt(config[CONF], task.name, _Info(task, info), limits)
            idle = limits.idle_timeout is not None
            scope = _TimedAttemptScope(
                current_heartbeat(),  # the host's idle clock of this attempt
                timed if idle else None,
                limits.refresh_on if idle else None,
            )
            config = scope.wrap_config(config)
        try:
            if stream:
                auto = scope is not None and scope.refresh_on == "auto"
                async for _ in task.proc.astream(task.input, config):
                    if auto:
                        scope.touch()  # type: ignore[union-attr]
                result = None
            else:
                result = await task.proc.ainvoke(task.input, config)
        except ParentCommand as exc:
            try:
                mine = self._parent_command(exc, config)
            except Exception as writer_error:
                _finish(timed, writer_error)
                raise
            _finish(timed, None)
            if mine:
                return None
            raise
        except GraphBubbleUp:
            _finish(timed, None)
            raise
        except asyncio.CancelledError as exc:
            stop = deadline_stop()
            if stop is not None:  # the host stopped it at a limit
                _finish(timed, self.timeout_error(stop))
                raise
            _finish(timed, exc)
            current = asyncio.current_task()
            if current is not None and current.cancelling() == 0:
                # nobody cancelled this task: the node raised it itself
                self.final = NodeCancelledError(task.name)
                raise self.final from exc
            raise
        except Exception as exc:
            stop = deadline_stop()
            _finish(timed, exc if stop is None else self.timeout_error(stop))
            self._noted(exc)
            raise
        finally:
            if scope is not None:
                scope.close()
        stop = deadline_stop()
        # a node that swallowed the cancellation at its limit: its result is not used
        _finish(timed, None if stop is None else self.timeout_error(stop))
        return result


class _Info:
    """The `ExecutionInfo` fields `start_timed_attempt` reads, for a task whose runtime has
    none (attempt 1, no run, thread or namespace)."""

    __slots__ = ("checkpoint_ns", "node_attempt", "run_id", "task_id", "thread_id")

    def __init__(self, task: PregelExecutableTask, info: Any) -> None:
        self.task_id = task.id
        self.node_attempt = info.node_attempt if info is not None else 1
        self.run_id = info.run_id if info is not None else None
        self.thread_id = info.thread_id if info is not None else None
        self.checkpoint_ns = info.checkpoint_ns if info is not None else None


def _finish(timed: TimedAttempt | None, error: BaseException | None) -> None:
    if timed is not None:
        timed.finish(error)


class _TimedAttemptScope:
    """The window of one timed attempt: its config's writers, stream, stream writer and child
    calls pass through it while it is open and count as progress (``refresh_on="auto"``), as
    do the node's LangChain callback events; ``runtime.heartbeat()`` is progress under any
    idle limit. `close` (at the attempt's end or deadline) shuts it: later writes and stream
    output are dropped, a later child call is cancelled. Writes and `close` share a lock so a
    write is either in before the deadline or not at all; callbacks run outside it.

    ``heartbeat``: the host's touch of the attempt's idle clock (`current_heartbeat`);
    ``timed``: the observer's attempt, told rate-limited progress; ``refresh_on``: None
    without an idle limit."""

    __slots__ = ("__weakref__", "_active", "_heartbeat", "_lock", "_timed", "refresh_on")

    def __init__(
        self,
        heartbeat: Callable[[], None] | None = None,
        timed: TimedAttempt | None = None,
        refresh_on: Literal["auto", "heartbeat"] | None = None,
    ) -> None:
        self._active = True
        self._lock = threading.Lock()
        self._heartbeat = heartbeat
        self._timed = timed
        self.refresh_on = refresh_on

    def wrap_config(self, config: dict[str, Any]) -> dict[str, Any]:
        """``config`` with its writers, stream, child calls and runtime passing through the
        scope (and under ``"auto"`` a callback handler that counts events as progress)."""
        configurable = config.get(CONF, {})
        patch: dict[str, Any] = {}
        if (send := configurable.get(CONFIG_KEY_SEND)) is not None:
            patch[CONFIG_KEY_SEND] = self._guard_send(send)
        if (stream := configurable.get(CONFIG_KEY_STREAM)) is not None:
            patch[CONFIG_KEY_STREAM] = self._guard_stream(stream)
        if (call := configurable.get(CONFIG_KEY_CALL)) is not None:
            patch[CONFIG_KEY_CALL] = self._guard_call(call)
        runtime = configurable.get(CONFIG_KEY_RUNTIME)
        if isinstance(runtime, Runtime):
            writer = self._guard_stream_writer(runtime.stream_writer)
            if self.refresh_on is not None:
                patch[CONFIG_KEY_RUNTIME] = runtime.override(
                    stream_writer=writer, heartbeat=self.touch
                )
            else:
                patch[CONFIG_KEY_RUNTIME] = runtime.override(stream_writer=writer)
        out: dict[str, Any] = dict(patch_configurable(config, patch)) if patch else config  # type: ignore[arg-type]
        if self.refresh_on == "auto":
            handler = _ProgressHandler(self.touch)
            out = dict(merge_configs(out, {"callbacks": [handler]}))  # type: ignore[arg-type]
        return out

    def touch(self) -> None:
        """Progress: the host's idle clock restarts; the observer hears it (rate-limited)."""
        if self._heartbeat is not None:
            self._heartbeat()
        if self._timed is not None:
            self._timed.progress()

    def _progress(self) -> None:
        # a write, chunk or call restarts the idle clock; only `touch` (a heartbeat, a
        # callback event, a streamed chunk) is told to the observer, as in LangGraph
        if self.refresh_on == "auto" and self._heartbeat is not None:
            self._heartbeat()

    def close(self) -> None:
        with self._lock:
            self._active = False

    def _guard_send(
        self, send: Callable[[Sequence[tuple[str, Any]]], None]
    ) -> Callable[[Sequence[tuple[str, Any]]], None]:
        def guarded_send(writes: Sequence[tuple[str, Any]]) -> None:
            with self._lock:
                if not self._active:
                    return
                if writes:
                    self._progress()
                send(writes)

        return guarded_send

    def _guard_stream(self, stream: StreamProtocol) -> StreamProtocol:
        # no lock: stream chunks come from the attempt's loop, between its awaits
        def guarded_stream(chunk: Any) -> None:
            if not self._active:
                return
            self._progress()
            stream(chunk)

        return StreamProtocol(guarded_stream, tuple(stream.modes))

    def _guard_call(self, call: Callable[..., Any]) -> Callable[..., Any]:
        def guarded_call(*args: Any, **kwargs: Any) -> Any:
            if not self._active:
                raise asyncio.CancelledError
            self._progress()
            return call(*args, **kwargs)

        return guarded_call

    def _guard_stream_writer(self, stream_writer: Callable[[Any], None]) -> Callable[[Any], None]:
        def guarded_stream_writer(chunk: Any) -> None:
            with self._lock:
                if not self._active:
                    return
            self._progress()
            stream_writer(chunk)

        return guarded_stream_writer
