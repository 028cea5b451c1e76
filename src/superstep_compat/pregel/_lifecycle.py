"""Where a graph run tells its `GraphCallbackHandler`s (`superstep_compat.callbacks`) of
its lifecycle, as LangGraph 1.2 does: ``on_resume`` before a run goes on from its
thread's checkpoint (input ``None`` or a `Command`, the checkpoint holding channel values;
a subgraph run when its parent's task goes on after waiting), ``on_interrupt`` when the
root graph's run stopped on interrupts (status ``pending``) or at a breakpoint (status
``interrupt_before``/``interrupt_after``).

Only a run whose config carries a graph handler pays anything: `lifecycle_of` answers
None otherwise (one scan of the callbacks). The resumed checkpoint is read from the run's
saver before the run starts; the stopped-at one is the run's newest saved checkpoint.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackManager

from superstep_compat._internal._constants import NS_SEP
from superstep_compat.callbacks import (
    GraphCallbackHandler,
    GraphInterruptEvent,
    GraphResumeEvent,
    _AsyncGraphCallbackManager,
    _GraphCallbackManager,
)
from superstep_compat.types import Command

__all__ = ["Lifecycle", "lifecycle_of"]


def _has_graph_handler(callbacks: Any) -> bool:
    if isinstance(callbacks, BaseCallbackManager):
        return any(isinstance(h, GraphCallbackHandler) for h in callbacks.handlers)
    if isinstance(callbacks, GraphCallbackHandler):
        return True
    if isinstance(callbacks, (list, tuple)):
        return any(isinstance(h, GraphCallbackHandler) for h in callbacks)
    return False


def lifecycle_of(run: Any, input: Any) -> Lifecycle | None:
    """The lifecycle reporter of ``run`` (a `GraphRun` about to start, given ``input``),
    or None when its config has no graph handler."""
    callbacks = run.config.get("callbacks")
    if not _has_graph_handler(callbacks):
        return None
    # The graph's callback run: the config of a traced graph run carries its child manager.
    run_id = callbacks.parent_run_id if isinstance(callbacks, BaseCallbackManager) else None
    return Lifecycle(run, input, run_id)


class Lifecycle:
    """Reports one run's lifecycle around its event stream (`wrap`/`awrap`)."""

    __slots__ = ("callbacks", "input", "run", "run_id")

    def __init__(self, run: Any, input: Any, run_id: UUID | None) -> None:
        self.run = run
        self.input = input
        self.run_id = run_id
        self.callbacks = run.config.get("callbacks")

    def _ns(self) -> tuple[str, ...]:
        ns: str = self.run.ns
        return tuple(ns.split(NS_SEP)) if ns else ()

    def _resume_address(self) -> dict[str, Any] | None:
        """Where the checkpoint the run would go on from is, or None when it starts anew."""
        run = self.run
        if run.saver is None:
            return None
        if run.link is None:
            if not (self.input is None or isinstance(self.input, Command)):
                return None
        elif not run.link.resuming:
            return None
        conf = run.config.get("configurable") or {}
        address: dict[str, Any] = {"thread_id": run.thread_id, "checkpoint_ns": run.ns}
        if run.link is None and conf.get("checkpoint_id"):
            address["checkpoint_id"] = conf["checkpoint_id"]
        return {"configurable": address}

    def _resumed(self, saved: Any) -> GraphResumeEvent | None:
        if saved is None or not saved.checkpoint.get("channel_versions"):
            return None  # a thread without values starts anew
        return GraphResumeEvent(
            run_id=self.run_id,
            status="pending",
            checkpoint_id=saved.checkpoint["id"],
            checkpoint_ns=self._ns(),
        )

    def stopped(self) -> GraphInterruptEvent | None:
        """The interrupt event of the ended run, or None: only the root graph's run
        reports one (a subgraph's stop reaches its parent as the parent's interrupt)."""
        run = self.run
        if run.link is not None or not run.stopped or run.drained:
            return None
        if not run.interrupts and run.breakpoint is None:
            return None
        record = run.record
        return GraphInterruptEvent(
            run_id=self.run_id,
            status=run.breakpoint if not run.interrupts and run.breakpoint else "pending",
            checkpoint_id=record.checkpoint_id if record is not None else "",
            checkpoint_ns=self._ns(),
            interrupts=tuple(run.interrupts),
        )

    def _manager(self) -> _GraphCallbackManager:
        manager: _GraphCallbackManager = _GraphCallbackManager.configure(
            self.callbacks, run_id=self.run_id
        )
        return manager

    def _amanager(self) -> _AsyncGraphCallbackManager:
        manager: _AsyncGraphCallbackManager = _AsyncGraphCallbackManager.configure(
            self.callbacks, run_id=self.run_id
        )
        return manager

    def wrap(self, events: Iterator[Any]) -> Iterator[Any]:
        """``events`` (the run's), with the lifecycle reported before and after."""
        manager = self._manager()
        address = self._resume_address()
        if address is not None and (resumed := self._resumed(self.run.saver.get_tuple(address))):
            manager.on_resume(resumed)
        yield from events
        if (stopped := self.stopped()) is not None:
            manager.on_interrupt(stopped)

    async def awrap(self, events: AsyncIterator[Any]) -> AsyncIterator[Any]:
        """`wrap` for a run on asyncio (async handlers awaited)."""
        manager = self._amanager()
        address = self._resume_address()
        if address is not None:
            saved = await self.run.saver.aget_tuple(address)
            if (resumed := self._resumed(saved)) is not None:
                await manager.on_resume(resumed)
        async with aclosing(events):  # type: ignore[type-var]  # closed with this stream
            async for event in events:
                yield event
        if (stopped := self.stopped()) is not None:
            await manager.on_interrupt(stopped)
