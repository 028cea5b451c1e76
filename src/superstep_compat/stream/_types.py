"""Protocol events and the `StreamTransformer` extension point of LangGraph's v3 streaming.

A `ProtocolEvent` is one event of a run in the wire envelope of the langchain protocol:
``{"type": "event", "method": <stream mode>, "params": {"namespace": [...], "timestamp": ms,
"data": ..., "interrupts"?: (...)}, "seq"?: n}``. A `StreamTransformer` watches every event
of a run (``process``/``aprocess``, returning False to keep it out of the main event log) and
exposes projections (``init()``'s dict, typically `StreamChannel`s) on the run stream.
Must never import the engine.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Coroutine
from typing import Any, ClassVar, Literal, NotRequired

from typing_extensions import TypedDict

__all__ = ["ProtocolEvent", "StreamTransformer", "transformer_requires_async"]

_log = logging.getLogger(__name__)


class _ProtocolEventParams(TypedDict):
    """The parameters of a protocol event. ``timestamp`` is wall-clock milliseconds (it can
    go backwards); order events by the envelope's ``seq``."""

    namespace: list[str]
    timestamp: int
    data: Any
    interrupts: NotRequired[tuple[Any, ...]]


class ProtocolEvent(TypedDict):
    """One event of a v3 run: ``method`` is the stream mode (``values``, ``updates``,
    ``messages``, ``custom``, ...) or a projection channel's name; ``seq`` is assigned by
    the root `StreamMux` when the event enters its main log."""

    type: Literal["event"]
    event_id: NotRequired[str]
    seq: NotRequired[int]
    method: str
    params: _ProtocolEventParams


class StreamTransformer(ABC):
    """Observes a run's protocol events and builds projections of them.

    Subclasses implement `init` (the projection dict; `StreamChannel` values are wired,
    closed and failed by the mux) and `process` or `aprocess`. Class attributes:
    ``required_stream_modes`` (the graph stream modes the transformer needs; a v3 run asks
    the graph for the union), ``requires_async`` (needs an event loop: only under
    ``astream_events``), ``supports_sync`` (overrides async hooks yet also runs under
    ``stream_events``), ``before_builtins`` (registered ahead of the built-in transformers,
    e.g. to redact content before they copy it), and ``_native`` (projection keys become
    attributes of the run stream, and named channels keep their name as the event method
    instead of ``custom:<name>``). ``scope`` is the namespace of the owning mux.
    """

    requires_async: ClassVar[bool] = False
    supports_sync: ClassVar[bool] = False
    required_stream_modes: ClassVar[tuple[str, ...]] = ()
    before_builtins: ClassVar[bool] = False

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        self.scope: tuple[str, ...] = scope

    @abstractmethod
    def init(self) -> dict[str, Any]:
        """The projection: keys become ``run.extensions`` entries."""

    def _on_register(self, mux: Any) -> None:  # noqa: B027 (an optional hook)
        """Called once the mux has registered this transformer (override to keep the mux)."""

    def process(self, event: ProtocolEvent) -> bool:
        """Observe ``event`` (sync lane); False keeps it out of the main event log."""
        raise NotImplementedError(f"{type(self).__name__} must override process() or aprocess()")

    async def aprocess(self, event: ProtocolEvent) -> bool:
        """Observe ``event`` (async lane; awaited before the next transformer sees it)."""
        return self.process(event)

    def finalize(self) -> None:  # noqa: B027 (an optional hook)
        """The run ended normally (sync lane)."""

    async def afinalize(self) -> None:
        """The run ended normally (async lane; scheduled tasks have all finished)."""
        self.finalize()

    def fail(self, err: BaseException) -> None:  # noqa: B027 (an optional hook)
        """The run ended with ``err`` (sync lane)."""

    async def afail(self, err: BaseException) -> None:
        """The run ended with ``err`` (async lane; scheduled tasks were cancelled first)."""
        self.fail(err)

    def schedule(
        self, coro: Coroutine[Any, Any, Any], *, on_error: Literal["log", "raise"] = "log"
    ) -> asyncio.Task[Any]:
        """Run ``coro`` as a task the mux owns: awaited before ``afinalize``, cancelled
        before ``afail``. ``on_error="log"`` logs its exception; ``"raise"`` fails the run.
        RuntimeError without a running event loop (under sync ``stream_events``)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(
                f"{type(self).__name__}.schedule() requires a running event loop; this "
                "transformer must run under astream(), not stream(). Set requires_async=True "
                "on the class so this fails at registration rather than at first event."
            ) from None
        task = asyncio.create_task(_logged(coro) if on_error == "log" else coro)
        pending = self._scheduled()
        pending.add(task)
        task.add_done_callback(pending.discard)
        return task

    def _scheduled(self) -> set[asyncio.Task[Any]]:
        # Created on first use so subclasses need not call super().__init__().
        tasks: set[asyncio.Task[Any]] | None = self.__dict__.get("_stream_scheduled_tasks")
        if tasks is None:
            tasks = self.__dict__["_stream_scheduled_tasks"] = set()
        return tasks


async def _logged(coro: Coroutine[Any, Any, Any]) -> Any:
    try:
        return await coro
    except asyncio.CancelledError:
        raise
    except BaseException:
        _log.exception("Scheduled StreamTransformer task failed")
        return None


def transformer_requires_async(transformer: StreamTransformer) -> bool:
    """Whether ``transformer`` needs an event loop: it says so (``requires_async``), or it
    overrides an async hook without declaring ``supports_sync``."""
    if transformer.requires_async:
        return True
    if transformer.supports_sync:
        return False
    cls = type(transformer)
    return any(
        getattr(cls, hook) is not getattr(StreamTransformer, hook)
        for hook in ("aprocess", "afinalize", "afail")
    )
