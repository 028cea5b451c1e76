"""`StreamMux`: the transformer pipeline and main event log of one v3 run (or of one
subgraph's view of it).

Every event is offered to each transformer in registration order, then appended to the main
log unless a transformer returned False. The root mux numbers the events of its log (``seq``);
child muxes, built per subgraph by `_make_child` with fresh transformers from the same
factories, share the parent's event objects and so never renumber them. Named channels of a
projection are forwarded into the log as events of their own, without passing through the
transformers (a transformer pushing from ``process`` would otherwise see its own events).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

from superstep_compat.stream._types import (
    ProtocolEvent,
    StreamTransformer,
    transformer_requires_async,
)
from superstep_compat.stream.stream_channel import StreamChannel

__all__ = ["StreamMux", "TransformerFactory"]

TransformerFactory = Callable[[tuple[str, ...]], StreamTransformer]
"""Builds a transformer for a mux's scope: ``factory(scope)``. A transformer class taking
the scope as its one positional argument is a factory."""


class StreamMux:
    """``StreamMux(transformers=None, *, is_async=False, factories=None, scope=())``.

    ``factories`` are called with ``scope`` and cloned into subgraph scopes; pre-built
    ``transformers`` are registered on this mux only. Within each group, transformers with
    ``before_builtins`` come first. ``extensions`` is the merged projection dict,
    ``native_keys`` the keys of `_native` transformers. Errors at registration: a
    transformer that needs an event loop on a sync mux (RuntimeError), ``init()`` not
    returning a dict (TypeError), a projection key already taken (ValueError naming both
    owners).
    """

    def __init__(
        self,
        transformers: list[StreamTransformer] | None = None,
        *,
        is_async: bool = False,
        factories: list[TransformerFactory] | None = None,
        scope: tuple[str, ...] = (),
        _assign_seq: bool = True,
    ) -> None:
        self.is_async = is_async
        self.scope: tuple[str, ...] = scope
        self._assign_seq = _assign_seq
        self._seq = 0
        self._push_seq = 0
        self._events: StreamChannel[ProtocolEvent] = StreamChannel()
        self._events._bind(is_async=is_async)
        self._events._bind_mux(self)
        self._transformers: list[StreamTransformer] = []
        self._channels: list[StreamChannel[Any]] = []
        self.extensions: dict[str, Any] = {}
        self.native_keys: set[str] = set()
        self._projection_owners: dict[str, str] = {}
        self._transformer_by_key: dict[str, StreamTransformer] = {}
        self._factories: list[TransformerFactory] | None = (
            None if factories is None else list(factories)
        )
        self._pump_fn: Callable[[], bool] | None = None
        self._apump_fn: Callable[[], Awaitable[bool]] | None = None
        for group in ([f(scope) for f in factories or ()], list(transformers or ())):
            early = [t for t in group if getattr(t, "before_builtins", False)]
            for transformer in early + [t for t in group if t not in early]:
                self._register(transformer)

    def transformer_by_key(self, key: str) -> StreamTransformer | None:
        """The transformer whose projection has ``key``."""
        return self._transformer_by_key.get(key)

    def _next_push_seq(self) -> int:
        self._push_seq += 1
        return self._push_seq

    # --- wiring -----------------------------------------------------------------------

    def bind_pump(self, fn: Callable[[], bool]) -> None:
        """Make ``fn`` (pull one more event of the run) the pump of every channel here."""
        self._pump_fn = fn
        self._bind(fn, "_request_more", "_bind_pump")

    def bind_apump(self, fn: Callable[[], Awaitable[bool]]) -> None:
        """`bind_pump` for the async lane."""
        self._apump_fn = fn
        self._bind(fn, "_arequest_more", "_bind_apump")

    def _bind(self, fn: Callable[[], Any], channel_attr: str, transformer_hook: str) -> None:
        """Both lanes' binding: ``fn`` becomes each channel's ``channel_attr`` (its pump)
        and goes to each transformer's ``transformer_hook``, where it has one."""
        for channel in (self._events, *self._channels):
            setattr(channel, channel_attr, fn)
        for transformer in self._transformers:
            if (bind := getattr(transformer, transformer_hook, None)) is not None:
                bind(fn)

    def _make_child(self, scope: tuple[str, ...]) -> StreamMux:
        """A mux for a subgraph at ``scope``: fresh transformers from the same factories,
        the same pumps, no renumbering. RuntimeError for a mux built without factories."""
        if self._factories is None:
            raise RuntimeError(
                "StreamMux._make_child requires the mux to be constructed with `factories=`; "
                "pre-built transformers can't be cloned to a new scope."
            )
        child = StreamMux(
            factories=self._factories, is_async=self.is_async, scope=scope, _assign_seq=False
        )
        if self._pump_fn is not None:
            child.bind_pump(self._pump_fn)
        if self._apump_fn is not None:
            child.bind_apump(self._apump_fn)
        return child

    def _register(self, transformer: StreamTransformer) -> None:
        name = type(transformer).__name__
        if not self.is_async and transformer_requires_async(transformer):
            raise RuntimeError(
                f"{name} requires an async run — it overrides aprocess/afinalize/afail or "
                "sets requires_async=True. Use astream(), not stream()."
            )
        projection = transformer.init()
        if not isinstance(projection, dict):
            raise TypeError(
                f"StreamTransformer.init() must return a dict, got {type(projection).__name__}"
            )
        taken = sorted(set(projection) & set(self.extensions))
        if taken:
            owners = ", ".join(f"{k!r} (owned by {self._projection_owners[k]})" for k in taken)
            raise ValueError(
                f"Transformer {name} returned projection keys that conflict with "
                f"already-registered keys: {owners}"
            )
        native = bool(getattr(transformer, "_native", False))
        self._transformers.append(transformer)
        for value in projection.values():
            if isinstance(value, StreamChannel):
                self._adopt(value, native)
        self.extensions.update(projection)
        for key in projection:
            self._projection_owners[key] = name
            self._transformer_by_key[key] = transformer
        if native:
            self.native_keys.update(projection)
        transformer._on_register(self)

    def _adopt(self, channel: StreamChannel[Any], native: bool) -> None:
        channel._bind(is_async=self.is_async)
        channel._bind_mux(self)
        self._channels.append(channel)
        if channel.name is not None:
            method = channel.name if native else f"custom:{channel.name}"
            channel._wire(lambda item: self._forward(method, item))

    def _forward(self, method: str, item: Any) -> None:
        event: ProtocolEvent = {
            "type": "event",
            "method": method,
            "params": {"namespace": [], "timestamp": int(time.time() * 1000), "data": item},
        }
        self._append(event)

    def _append(self, event: ProtocolEvent) -> None:
        # Numbered only as it enters the root log, so events a transformer forwarded while
        # processing this one come first in the log and in numbering.
        if self._assign_seq:
            self._seq += 1
            event["seq"] = self._seq
        self._events.push(event)

    # --- sync lane --------------------------------------------------------------------

    def push(self, event: ProtocolEvent) -> None:
        """Offer ``event`` to every transformer, then log it unless one returned False."""
        keep = True
        for transformer in self._transformers:
            if not transformer.process(event):
                keep = False
        if keep:
            self._append(event)

    def close(self) -> None:
        """Finalize every transformer, then close the projections and the log; the first
        ``finalize`` error is raised once everything is closed."""
        first = _each(self._transformers, lambda t: t.finalize())
        self._end(None)
        if first is not None:
            raise first

    def fail(self, err: BaseException) -> None:
        """Fail every transformer (their errors are ignored), the projections and the log."""
        _each(self._transformers, lambda t: t.fail(err))
        self._end(err)

    def _end(self, err: BaseException | None) -> None:
        for channel in self._channels:
            if not channel._closed:
                channel.close() if err is None else channel.fail(err)
        if err is None:
            self._events.close()
        elif not self._events._closed:
            self._events.fail(err)

    # --- async lane -------------------------------------------------------------------

    async def apush(self, event: ProtocolEvent) -> None:
        """`push` on the async lane (each ``aprocess`` awaited in turn)."""
        keep = True
        for transformer in self._transformers:
            if not await transformer.aprocess(event):
                keep = False
        if keep:
            self._append(event)

    async def aclose(self) -> None:
        """Await the transformers' scheduled tasks (the first error among them is raised),
        then `close` on the async lane."""
        pending = self._collect_scheduled_tasks()
        if pending:
            results = await asyncio.gather(*pending, return_exceptions=True)
            for result in results:
                if isinstance(result, BaseException) and not isinstance(
                    result, asyncio.CancelledError
                ):
                    raise result
        first: BaseException | None = None
        for transformer in self._transformers:
            try:
                await transformer.afinalize()
            except BaseException as e:
                first = first or e
        self._end(None)
        if first is not None:
            raise first

    async def afail(self, err: BaseException) -> None:
        """Cancel the scheduled tasks, then `fail` on the async lane."""
        pending = self._collect_scheduled_tasks()
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        for transformer in self._transformers:
            # A failing run is already failing: keep cleaning up.
            with contextlib.suppress(BaseException):
                await transformer.afail(err)
        self._end(err)

    def _collect_scheduled_tasks(self) -> list[asyncio.Task[Any]]:
        return [
            task
            for transformer in self._transformers
            for task in getattr(transformer, "_stream_scheduled_tasks", ())
            if not task.done()
        ]


def _each(
    transformers: list[StreamTransformer], call: Callable[[StreamTransformer], None]
) -> BaseException | None:
    """Call ``call`` on every transformer; the first error, after all were called."""
    first: BaseException | None = None
    for transformer in transformers:
        try:
            call(transformer)
        except BaseException as e:
            first = first or e
    return first
