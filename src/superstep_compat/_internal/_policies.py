"""Per-node policies: `RetryPolicy` (and LangGraph's default retry rules), `CachePolicy`
with `default_cache_key`, `TimeoutPolicy`, `TracePolicy`.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Generic, Literal, NamedTuple, TypeVar

__all__ = [
    "CachePolicy",
    "RetryPolicy",
    "TimeoutPolicy",
    "TracePolicy",
    "coerce_timeout_policy",
    "default_cache_key",
    "default_retry_on",
    "omit_payload",
    "runnable_has_native_async",
    "supports_timeout",
    "sync_timeout_unsupported",
]

# Exceptions that indicate a bug or bad input, not a transient failure. OSError covers
# TimeoutError and file errors; ConnectionError (an OSError) is checked before them.
_NOT_RETRIED: tuple[type[BaseException], ...] = (
    ValueError,
    TypeError,
    ArithmeticError,
    ImportError,
    LookupError,
    NameError,
    SyntaxError,
    RuntimeError,
    ReferenceError,
    StopIteration,
    StopAsyncIteration,
    OSError,
)


def _http_status_retryable(exc: Exception) -> bool | None:
    """5xx answers are retried; other HTTP status errors are not. None: not an HTTP error."""
    cls = type(exc)
    module = cls.__module__ or ""
    names = {c.__name__ for c in cls.__mro__}
    if module.startswith("httpx") and "HTTPStatusError" in names:
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", 0)
        return 500 <= int(status) < 600
    if module.startswith("requests") and "HTTPError" in names:
        response = getattr(exc, "response", None)
        # A `requests.Response` is falsy when its status is >= 400.
        if not response:
            return True
        return 500 <= int(getattr(response, "status_code", 0)) < 600
    return None


def default_retry_on(exc: Exception) -> bool:
    """LangGraph's default rule: retry connection errors, HTTP 5xx and unknown exception
    types; never retry programming errors (`ValueError`, `KeyError`, ...) or `OSError`s."""
    if isinstance(exc, ConnectionError):
        return True
    http = _http_status_retryable(exc)
    if http is not None:
        return http
    return not isinstance(exc, _NOT_RETRIED)


class RetryPolicy(NamedTuple):
    """How a failed node is retried. ``max_attempts`` counts the first attempt; ``retry_on``
    is an exception class, a sequence of classes or a predicate."""

    initial_interval: float = 0.5
    backoff_factor: float = 2.0
    max_interval: float = 128.0
    max_attempts: int = 3
    jitter: bool = True
    retry_on: type[Exception] | Sequence[type[Exception]] | Callable[[Exception], bool] = (
        default_retry_on
    )


def _freeze(value: Any, depth: int = 10) -> Any:
    """LangGraph's hashable form of a cache key's argument (so the two compute the same
    key for one input): hashable values as they are (and anything past ``depth`` levels),
    a mapping as its items sorted by key, another sequence as a tuple, an array (anything
    with ``tobytes``) as (its class name, its bytes, its shape)."""
    if isinstance(value, Hashable) or depth <= 0:
        return value
    if isinstance(value, Mapping):
        return tuple(sorted((k, _freeze(v, depth - 1)) for k, v in value.items()))
    if isinstance(value, Sequence):
        return tuple(_freeze(v, depth - 1) for v in value)
    if hasattr(value, "tobytes"):
        return (type(value).__name__, value.tobytes(), getattr(value, "shape", None))
    return value


def default_cache_key(*args: Any, **kwargs: Any) -> str | bytes:
    """LangGraph's: the pickle (protocol 5) of the frozen positional and keyword arguments,
    so a cache LangGraph filled answers the same inputs here."""
    return pickle.dumps((_freeze(args), _freeze(kwargs)), protocol=5, fix_imports=False)


KeyFuncT = TypeVar("KeyFuncT", bound=Callable[..., "str | bytes"])


@dataclass(frozen=True, slots=True, kw_only=True)
class CachePolicy(Generic[KeyFuncT]):
    """Cache a node's result under ``key_func(input)`` for ``ttl`` seconds (None: forever)."""

    key_func: KeyFuncT = default_cache_key  # type: ignore[assignment]
    ttl: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeoutPolicy:
    """Per-node time limits: ``run_timeout`` for the whole attempt, ``idle_timeout`` between
    progress signals."""

    run_timeout: float | timedelta | None = None
    idle_timeout: float | timedelta | None = None
    refresh_on: Literal["auto", "heartbeat"] = "auto"

    @classmethod
    def coerce(cls, value: float | timedelta | TimeoutPolicy | None) -> TimeoutPolicy | None:
        """A number or timedelta becomes a run timeout in seconds; a policy is normalised
        (its timeouts in positive float seconds; neither set: None). A policy already in
        that form is returned as is (it is frozen), as in LangGraph. Raises LangGraph's
        `ValueError`s for a timeout <= 0 or an unknown ``refresh_on``."""
        if value is None:
            return None
        if isinstance(value, TimeoutPolicy):
            run, idle = value.run_timeout, value.idle_timeout
            if (
                value.refresh_on in ("auto", "heartbeat")
                and (run is None or (type(run) is float and run > 0))
                and (idle is None or (type(idle) is float and idle > 0))
                and (run is not None or idle is not None)
            ):
                return value
            policy = value
        else:
            policy = cls(run_timeout=value)
        if policy.refresh_on not in ("auto", "heartbeat"):
            raise ValueError("refresh_on must be 'auto' or 'heartbeat'")
        run_s = _seconds(policy.run_timeout, "run_timeout")
        idle_s = _seconds(policy.idle_timeout, "idle_timeout")
        if run_s is None and idle_s is None:
            return None
        return cls(run_timeout=run_s, idle_timeout=idle_s, refresh_on=policy.refresh_on)


def _seconds(value: float | timedelta | None, field: str) -> float | None:
    if value is None:
        return None
    seconds = value.total_seconds() if isinstance(value, timedelta) else float(value)
    if seconds <= 0:
        raise ValueError(f"{field} must be greater than 0")
    return seconds


def coerce_timeout_policy(
    timeout: float | timedelta | TimeoutPolicy | None,
) -> TimeoutPolicy | None:
    """`TimeoutPolicy.coerce` (LangGraph's module-level spelling)."""
    return TimeoutPolicy.coerce(timeout)


def sync_timeout_unsupported(name: str, kind: Literal["Node", "Task"] = "Node") -> ValueError:
    """LangGraph's error for a timeout on a sync node or task: a thread cannot be cancelled."""
    return ValueError(
        "Node timeouts are only supported for async nodes because sync Python execution "
        f"cannot be safely cancelled in-process. {kind} {name!r} is sync."
    )


def supports_timeout(action: Any, is_async: bool) -> bool:
    """Whether a node can run under a timeout: an async function, or a Runnable with its
    own ``ainvoke`` (a compiled graph, a chain)."""
    if is_async:
        return True
    ainvoke = getattr(type(action), "ainvoke", None)
    if ainvoke is None:
        return False
    from langchain_core.runnables import Runnable

    return ainvoke is not Runnable.ainvoke


def runnable_has_native_async(runnable: Any) -> bool:
    """LangGraph's compile-time test of whether a node's runnable can run under a timeout:
    bindings (``with_config``...) are looked through; a sequence or parallel needs every
    step to qualify; a `RunnableCallable` or `RunnableLambda` needs its own async function;
    any other `Runnable` qualifies when its class overrides ``ainvoke``."""
    from langchain_core.runnables import (
        Runnable,
        RunnableLambda,
        RunnableParallel,
        RunnableSequence,
    )
    from langchain_core.runnables.base import RunnableBindingBase

    from superstep_compat._internal._runnable import RunnableCallable

    while isinstance(runnable, RunnableBindingBase):
        runnable = runnable.bound
    if isinstance(runnable, RunnableSequence):
        return all(runnable_has_native_async(step) for step in runnable.steps)
    if isinstance(runnable, RunnableParallel):
        return all(runnable_has_native_async(step) for step in runnable.steps__.values())
    if isinstance(runnable, RunnableCallable):
        return runnable.afunc is not None
    if isinstance(runnable, RunnableLambda):
        return bool(getattr(runnable, "afunc", None))
    ainvoke = getattr(type(runnable), "ainvoke", None)
    return ainvoke is not None and ainvoke is not Runnable.ainvoke


@dataclass(frozen=True, slots=True, kw_only=True)
class TracePolicy:
    """Redaction of a node's traced inputs and outputs."""

    process_inputs: Callable[[Any], Any] | None = None
    process_outputs: Callable[[Any], Any] | None = None


def omit_payload(_value: Any) -> dict[str, Any]:
    """A `TracePolicy` processor that drops the payload entirely."""
    return {}
