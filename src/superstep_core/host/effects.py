"""Performing effects: handler lookup, the context a handler gets, error classification, and
the ledger seam that lets a recorded result stand in for performing an effect again.

Handlers are ``handler(request, ctx: EffectContext) -> result`` (or a coroutine function for
the asyncio host), registered with a host under the effect kind they perform. A kind whose
request is plain data (no callable) can be performed by any host that has its handler, stored
with a durable execution and replayed from its input log; the kind ``"call"`` needs no
handler, but its request is a zero-argument callable (sync, or returning an awaitable under
the asyncio host) that only the process that built it can perform.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from superstep_core.frozen import quick_init
from superstep_core.node import EffectCompleted, EffectFailure
from superstep_core.runtime import EffectRequest
from superstep_core.twin import Block

if TYPE_CHECKING:
    from superstep_core.host.nested import NestedEffects

__all__ = [
    "EffectCancelledError",
    "EffectContext",
    "EffectLedger",
    "EffectTimeoutError",
    "Handler",
    "ResultObserver",
    "RetryableEffectError",
    "SplitHandler",
    "StepTimeoutError",
    "classify",
    "completed",
    "failed",
    "recording",
    "resolve",
]


@quick_init
@dataclass(frozen=True, slots=True)
class EffectContext:
    """What a handler knows about the effect it performs. ``idempotency_key`` is stable
    across retries and recovery: send it as an ``Idempotency-Key`` header to HTTP APIs.
    ``nested``: the performing host's `NestedEffects`, for work the handler needs done while
    it runs (performed on the host's workers and clock, recorded in its ledger)."""

    idempotency_key: str
    execution_id: str
    node: str
    activation_id: str
    nested: NestedEffects | None = field(default=None, compare=False)


Handler = Callable[[Any, EffectContext], Any]


class SplitHandler:
    """A handler whose effects either block a thread or run on an event loop, decided per
    effect. The asyncio host performs an effect whose request ``blocks`` with ``perform``
    (plain) on a worker thread, in a copy of the caller's context, and any other with
    ``aperform`` (a coroutine function) on its loop: a plain user function must not stall the
    loop's other effects and streams. Any other host calls the handler itself: ``perform``."""

    __slots__ = ("aperform", "blocks", "perform")

    def __init__(self, perform: Handler, aperform: Handler, blocks: Callable[[Any], bool]) -> None:
        self.perform = perform
        self.aperform = aperform
        self.blocks = blocks

    def __call__(self, request: Any, ctx: EffectContext) -> Any:
        return self.perform(request, ctx)


class RetryableEffectError(Exception):
    """Raise from a handler to mark a failure as retryable (e.g. HTTP 429 or 503)."""


class EffectTimeoutError(Exception):
    """An effect ran past its ``timeout`` (``kind="run"``) or its ``idle_timeout`` without
    progress (``kind="idle"``), in seconds on the host's clock. Retryable."""

    retryable = True

    def __init__(
        self, request: EffectRequest, timeout: float, elapsed: float, kind: str = "run"
    ) -> None:
        what = "idle timeout" if kind == "idle" else "timeout"
        super().__init__(
            f"effect {request.effect_id} of node {request.node!r} exceeded its {what} of "
            f"{timeout:.3f}s (elapsed: {elapsed:.3f}s)"
        )
        self.timeout = timeout
        self.elapsed = elapsed
        self.kind = kind


class StepTimeoutError(TimeoutError):
    """A superstep's effects were still running ``limit`` seconds (on the host's clock)
    after they started (the host's ``step_timeout``); those still running were cancelled
    and awaited. Ends the run: the execution stays at the superstep it was performing."""

    def __init__(self, limit: float, elapsed: float) -> None:
        super().__init__(f"superstep exceeded its step timeout of {limit:.3f}s")
        self.limit = limit
        self.elapsed = elapsed


class EffectCancelledError(Exception):
    """The host stopped an effect before it finished because a sibling effect of the same
    superstep asked it to (a `ResultObserver` returned True). Not retryable: the superstep
    is failing anyway."""

    def __init__(self, request: EffectRequest) -> None:
        super().__init__(
            f"effect {request.effect_id} of node {request.node!r} was cancelled: another "
            "effect of its superstep failed"
        )


ResultObserver = Callable[[EffectRequest, EffectCompleted], bool | None]
"""Called by a host with each effect's result as soon as that effect is performed (in
completion order, before the superstep's results are delivered together): a caller streams
or saves a task's result as the task ends. Returning True stops the superstep's other
effects: those still running are cancelled (the asyncio host; a thread cannot be stopped, so
the threaded host only skips those not started) and come back failed with
`EffectCancelledError`."""


class EffectLedger(Protocol):
    """Results of effects already performed, by idempotency key. A host consults it before
    performing an effect and records every completion in it. A ledger whose recording is
    I/O may also define ``async def arecord(completed)``: the asyncio host (and a nested
    effect performed on a loop) awaits that instead of calling ``record`` on its loop
    (`recording`)."""

    def recorded(self, effect_id: str) -> EffectCompleted | None: ...

    def record(self, completed: EffectCompleted) -> None: ...


async def _record_now(ledger: EffectLedger, completed: EffectCompleted) -> None:
    ledger.record(completed)


def recording(ledger: EffectLedger, completed: EffectCompleted) -> Block:
    """The twin block that records ``completed`` in ``ledger``: ``record`` on the plain
    lane, the ledger's ``arecord`` awaited on the async one (``record`` when it has none)."""
    arecord = getattr(ledger, "arecord", None)
    if arecord is None:
        return Block(ledger.record, partial(_record_now, ledger), (completed,))
    return Block(ledger.record, arecord, (completed,))


_RETRYABLE_TYPES: tuple[type[BaseException], ...] = (
    RetryableEffectError,
    TimeoutError,
    ConnectionError,
)


def classify(error: BaseException) -> bool:
    """Whether ``error`` may be retried: `RetryableEffectError`, timeouts, connection errors,
    or any exception with a true ``retryable`` attribute."""
    return isinstance(error, _RETRYABLE_TYPES) or bool(getattr(error, "retryable", False))


def resolve(
    handlers: Mapping[str, Handler],
    request: EffectRequest,
    execution_id: str,
    nested: NestedEffects | None = None,
    *,
    on_loop: bool = False,
) -> Callable[[], Any]:
    """A zero-argument callable that performs ``request`` (``nested``: the host's, handed to
    the handler in its `EffectContext`; ``on_loop``: an asyncio host's, which takes a
    `SplitHandler`'s half for the request). Raises `LookupError` naming the effect kind and
    the registered ones when no handler exists."""
    effect = request.effect
    if effect.kind == "call":
        fn = effect.request
        if not callable(fn):
            raise TypeError(f"effect {request.effect_id}: a 'call' effect needs a callable")
        return fn  # type: ignore[no-any-return]
    handler = handlers.get(effect.kind)
    if handler is None:
        known = ", ".join(sorted(handlers)) or "(none)"
        raise LookupError(
            f"node {request.node!r} requested an effect of kind {effect.kind!r}, but the host "
            f"has no handler for it; registered kinds: {known}"
        )
    if on_loop and isinstance(handler, SplitHandler):
        handler = handler.perform if handler.blocks(effect.request) else handler.aperform
    ctx = EffectContext(
        request.effect_id, execution_id, request.node, request.activation_id, nested
    )
    # a partial, not a lambda: no frame of its own between the host and the handler (a
    # subgraph run inside an effect pays each frame once per nesting level), and a coroutine
    # handler's stays a coroutine function, which the asyncio host awaits on its loop
    return partial(handler, effect.request, ctx)


def completed(request: EffectRequest, result: Any) -> EffectCompleted:
    return EffectCompleted(request.effect_id, result=result, tag=request.effect.tag)


def failed(request: EffectRequest, error: BaseException) -> EffectCompleted:
    if isinstance(error, EffectTimeoutError):
        failure = EffectFailure(type(error).__name__, str(error), True, error.elapsed, error.kind)
    else:
        failure = EffectFailure(type(error).__name__, str(error), classify(error))
    return EffectCompleted(request.effect_id, error=failure, tag=request.effect.tag)
