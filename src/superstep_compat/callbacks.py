"""`langgraph.callbacks`: callbacks for a graph run's own lifecycle, beside LangChain's
runnable callbacks. A `GraphCallbackHandler` passed in ``config["callbacks"]`` (alone, in
a list, or in a callback manager) hears ``on_interrupt`` when a run stops on interrupts or
at a breakpoint and ``on_resume`` when a run goes on from a thread's checkpoint; other
handlers in the same config hear nothing of these. Behaviour follows LangGraph 1.2.

Dispatch goes through langchain-core's ``handle_event``/``ahandle_event``: a handler that
raises is logged and the others still run, unless it sets ``raise_error`` (then the error
leaves the graph call). Where a run emits the events: `superstep_compat.pregel._lifecycle`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, TypeVar
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.callbacks.manager import ahandle_event, handle_event
from langchain_core.runnables import RunnableConfig

from superstep_compat.types import Interrupt

__all__ = (
    "GraphCallbackHandler",
    "GraphInterruptEvent",
    "GraphLifecycleEvent",
    "GraphLifecycleStatus",
    "GraphResumeEvent",
    "get_async_graph_callback_manager_for_config",
    "get_sync_graph_callback_manager_for_config",
)

GraphLifecycleStatus: TypeAlias = Literal[
    "input", "pending", "done", "interrupt_before", "interrupt_after", "out_of_steps"
]
"""The run's status when an event is taken: ``pending`` for a run stopped by interrupts
or going on from a checkpoint, ``interrupt_before``/``interrupt_after`` at a breakpoint."""


@dataclass(frozen=True)
class GraphInterruptEvent:
    """A run stopped: on ``interrupts`` (empty at a breakpoint)."""

    run_id: UUID | None
    """The graph's callback run id, None when the run has none."""
    status: GraphLifecycleStatus
    checkpoint_id: str
    """The checkpoint the run stopped at (its newest)."""
    checkpoint_ns: tuple[str, ...]
    """The graph's namespace, one part per nesting level; ``()`` for the root graph."""
    interrupts: tuple[Interrupt[Any], ...]


@dataclass(frozen=True)
class GraphResumeEvent:
    """A run goes on from a thread's checkpoint (no new input: ``None`` or a `Command`)."""

    run_id: UUID | None
    status: GraphLifecycleStatus
    checkpoint_id: str
    """The checkpoint the run goes on from."""
    checkpoint_ns: tuple[str, ...]


GraphLifecycleEvent: TypeAlias = GraphInterruptEvent | GraphResumeEvent
"""Either lifecycle event."""


class GraphCallbackHandler(BaseCallbackHandler):
    """Subclass and override ``on_interrupt``/``on_resume`` (sync or ``async def``) to
    hear a graph run's lifecycle; pass the instance in ``config["callbacks"]``."""

    def on_interrupt(self, event: GraphInterruptEvent) -> Any:
        """Called when a run stops on interrupts or at a breakpoint."""

    def on_resume(self, event: GraphResumeEvent) -> Any:
        """Called when a run goes on from a thread's checkpoint."""


def _graph_handlers(handlers: Sequence[BaseCallbackHandler]) -> list[GraphCallbackHandler]:
    return [h for h in handlers if isinstance(h, GraphCallbackHandler)]


_Unset: Any = object()


class _GraphManagerBase(BaseCallbackManager):
    """A callback manager for lifecycle events only: the graph handlers of a config's
    callbacks, and ``run_id``, the graph's callback run. Other handlers may be added
    (`add_handler`), but `_graph_handlers` drops them whenever a manager is built."""

    run_id: UUID | None

    def __init__(
        self,
        handlers: Sequence[GraphCallbackHandler] | None = None,
        inheritable_handlers: Sequence[GraphCallbackHandler] | None = None,
        parent_run_id: UUID | None = None,
        *,
        tags: list[str] | None = None,
        inheritable_tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inheritable_metadata: dict[str, Any] | None = None,
        run_id: UUID | None = None,
    ) -> None:
        super().__init__(
            handlers=list(handlers or ()),
            inheritable_handlers=list(inheritable_handlers or ()),
            parent_run_id=parent_run_id,
            tags=tags,
            inheritable_tags=inheritable_tags,
            metadata=metadata,
            inheritable_metadata=inheritable_metadata,
        )
        self.run_id = run_id

    @staticmethod
    def _rebuilt(cls: type[_M], source: BaseCallbackManager, run_id: UUID | None) -> _M:
        return cls(
            handlers=_graph_handlers(source.handlers),
            inheritable_handlers=_graph_handlers(source.inheritable_handlers),
            parent_run_id=source.parent_run_id,
            tags=list(source.tags),
            inheritable_tags=list(source.inheritable_tags),
            metadata=dict(source.metadata),
            inheritable_metadata=dict(source.inheritable_metadata),
            run_id=run_id,
        )

    def copy(self, *, run_id: Any = _Unset) -> Any:  # type: ignore[override]
        """A manager of the same class and handlers; ``run_id`` replaced when given (a UUID
        or None, else TypeError)."""
        if run_id is _Unset:
            run_id = self.run_id
        elif run_id is not None and not isinstance(run_id, UUID):
            raise TypeError("run_id must be a UUID or None")
        return self._rebuilt(type(self), self, run_id)

    @classmethod
    def configure(  # type: ignore[override]
        cls, callbacks: Any = None, *, run_id: UUID | None = None
    ) -> Any:
        """The manager for a config's ``callbacks`` (None, a handler, a sequence of
        handlers, or a callback manager), keeping only its graph handlers, bound to
        ``run_id``. A string or other non-sequence is a TypeError."""
        if callbacks is None:
            return cls(run_id=run_id)
        if isinstance(callbacks, BaseCallbackManager):
            return cls._rebuilt(cls, callbacks, run_id)
        if isinstance(callbacks, GraphCallbackHandler):
            return cls([callbacks], run_id=run_id)
        if isinstance(callbacks, (str, bytes)) or not isinstance(callbacks, Sequence):
            raise TypeError("callbacks must be a handler, sequence, or manager")
        return cls(_graph_handlers(list(callbacks)), run_id=run_id)


_M = TypeVar("_M", bound=_GraphManagerBase)


class _GraphCallbackManager(_GraphManagerBase):
    """Dispatches lifecycle events to its handlers (sync)."""

    def on_interrupt(self, event: GraphInterruptEvent) -> None:
        handle_event(self.handlers, "on_interrupt", None, event)

    def on_resume(self, event: GraphResumeEvent) -> None:
        handle_event(self.handlers, "on_resume", None, event)


class _AsyncGraphCallbackManager(_GraphManagerBase):
    """Dispatches lifecycle events to its handlers (async; sync handlers run in the
    executor, as langchain-core runs them)."""

    @property
    def is_async(self) -> bool:
        return True

    async def on_interrupt(self, event: GraphInterruptEvent) -> None:
        await ahandle_event(self.handlers, "on_interrupt", None, event)

    async def on_resume(self, event: GraphResumeEvent) -> None:
        await ahandle_event(self.handlers, "on_resume", None, event)


def get_sync_graph_callback_manager_for_config(
    config: RunnableConfig, *, run_id: UUID | None = None
) -> _GraphCallbackManager:
    """The sync lifecycle manager of ``config["callbacks"]``'s graph handlers, bound to
    ``run_id``."""
    manager: _GraphCallbackManager = _GraphCallbackManager.configure(
        config.get("callbacks"), run_id=run_id
    )
    return manager


def get_async_graph_callback_manager_for_config(
    config: RunnableConfig, *, run_id: UUID | None = None
) -> _AsyncGraphCallbackManager:
    """The async lifecycle manager of ``config["callbacks"]``'s graph handlers, bound to
    ``run_id``."""
    manager: _AsyncGraphCallbackManager = _AsyncGraphCallbackManager.configure(
        config.get("callbacks"), run_id=run_id
    )
    return manager
