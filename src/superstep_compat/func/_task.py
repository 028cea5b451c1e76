"""`@task`: a function whose calls run concurrently and return futures.

A call is only valid while an entrypoint (or a graph node) runs; the call scope found in the
context decides whether the result is already known (memo), and otherwise runs the function
on its own thread, or on the entrypoint's event loop for an ``async def`` task.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Generic, ParamSpec, TypeVar, overload

from superstep_compat._internal._deprecation import deprecated_kwarg
from superstep_compat._internal._names import shown_as
from superstep_compat._internal._policies import coerce_timeout_policy, sync_timeout_unsupported
from superstep_compat.errors import NodeTimeoutError
from superstep_compat.func._call import SyncAsyncFuture, retry_for, start_call
from superstep_compat.func._scope import current_scope
from superstep_compat.graph._spec import is_async
from superstep_compat.pregel._task_support import as_seconds, task_cache_namespace
from superstep_compat.types import CachePolicy, RetryPolicy
from superstep_compat.warnings import LangGraphDeprecatedSinceV05
from superstep_core.host import DeadlineExceeded
from superstep_core.node import RetryPolicy as EngineRetryPolicy

__all__ = ["TaskFunction", "task"]

P = ParamSpec("P")
T = TypeVar("T")


class TaskFunction(Generic[P, T]):
    """A decorated task. Calling it inside an entrypoint returns a `SyncAsyncFuture`."""

    def __init__(
        self,
        func: Callable[P, T],
        *,
        name: str | None = None,
        retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
        cache_policy: CachePolicy[Any] | None = None,
        timeout: Any = None,
    ) -> None:
        self.func = func
        self.name = name or _name_of(func)
        if retry_policy is None:
            self.retry_policy: tuple[RetryPolicy, ...] = ()
        elif isinstance(retry_policy, RetryPolicy):
            self.retry_policy = (retry_policy,)
        else:
            self.retry_policy = tuple(retry_policy)
        self.cache_policy = cache_policy
        self.timeout = coerce_timeout_policy(timeout)
        self.is_async = is_async(func)
        if self.timeout is not None and not self.is_async:
            raise sync_timeout_unsupported(self.name, "Task")
        # the limits the host enforces on each attempt, in seconds on its clock
        limits = self.timeout
        self.run_timeout = as_seconds(limits.run_timeout) if limits is not None else None
        self.idle_timeout = as_seconds(limits.idle_timeout) if limits is not None else None
        # LangGraph's list rule as the host's retry chooser (None: failures are final)
        self.retry_chooser = self._retry if self.retry_policy else None
        functools.update_wrapper(self, func)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> SyncAsyncFuture[Any]:
        return start_call(current_scope(), self, args, kwargs)

    def failure(self, error: BaseException) -> BaseException:
        """What a call's caller sees for ``error``: an attempt the host stopped at one of the
        task's timeouts is LangGraph's `NodeTimeoutError`; anything else as raised."""
        if not isinstance(error, DeadlineExceeded):
            return error
        return NodeTimeoutError(
            self.name,
            error.elapsed,
            kind=error.kind,
            run_timeout=self.run_timeout,
            idle_timeout=self.idle_timeout,
        )

    def _retry(self, error: Exception) -> EngineRetryPolicy | None:
        """The engine policy that retries ``error`` (LangGraph's first matching policy)."""
        failure = self.failure(error)
        assert isinstance(failure, Exception)
        return retry_for(self.retry_policy, failure)

    def clear_cache(self, cache: Any) -> None:
        """Drop this task's cached results from ``cache`` (a task without a cache policy
        has none, and clears nothing, as LangGraph's)."""
        if self.cache_policy is not None:
            cache.clear([task_cache_namespace(self.func)])

    async def aclear_cache(self, cache: Any) -> None:
        if self.cache_policy is not None:
            await cache.aclear([task_cache_namespace(self.func)])

    def __repr__(self) -> str:
        return f"<task {self.name}>"


def _name_of(func: Any) -> str:
    """LangGraph's default task name: the function's name; a `functools.partial` is named
    after the function it wraps; another callable object after its class."""
    while isinstance(func, functools.partial):
        func = func.func
    return str(getattr(func, "__name__", type(func).__name__))


@overload
def task(
    __func_or_none__: None = None,
    *,
    name: str | None = None,
    retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
    cache_policy: CachePolicy[Any] | None = None,
    timeout: Any = None,
) -> Callable[[Callable[P, T]], TaskFunction[P, T]]: ...


@overload
def task(__func_or_none__: Callable[P, T]) -> TaskFunction[P, T]: ...


def task(
    __func_or_none__: Callable[P, T] | None = None,
    *,
    name: str | None = None,
    retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
    cache_policy: CachePolicy[Any] | None = None,
    timeout: Any = None,
    **kwargs: Any,
) -> Callable[[Callable[P, T]], TaskFunction[P, T]] | TaskFunction[P, T]:
    """Decorate a function as a task, bare (``@task``) or with options (``@task(name=...)``).

    Calling the task inside an `entrypoint` returns a future (``.result()``, or ``await`` it
    in async code); outside one it raises ``RuntimeError: Called get_config outside of a
    runnable context``. Its result is kept for the run: an entrypoint that re-runs after an
    interrupt gets it back without calling the function again. With a checkpointer it is also
    saved the moment the call finishes, so a thread continued after its process died (or
    after the entrypoint raised) does not call it again either.
    """

    old_retry = deprecated_kwarg(kwargs, "retry", "retry_policy", LangGraphDeprecatedSinceV05)
    if retry_policy is None:
        retry_policy = old_retry
    # LangGraph validates the timeout when the decorator is built, before any function
    coerce_timeout_policy(timeout)

    def decorate(func: Callable[P, T]) -> TaskFunction[P, T]:
        return TaskFunction(
            func, name=name, retry_policy=retry_policy, cache_policy=cache_policy, timeout=timeout
        )

    if __func_or_none__ is not None:
        return decorate(__func_or_none__)
    return decorate


# LangGraph's class of a decorated task is ``langgraph.func._TaskFunction``
shown_as(TaskFunction, "superstep_compat.func", "_TaskFunction")
