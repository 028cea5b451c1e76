"""Run streams: what ``stream_events(version="v3")`` returns (`GraphRunStream`) and
``await astream_events(version="v3")`` gives (`AsyncGraphRunStream`), and the handles of
subgraphs found during a run (`SubgraphRunStream`, `AsyncSubgraphRunStream`).

There is no background thread or task: reading any projection (``run.values``,
``run.messages``, the raw events by iterating ``run``, or ``run.output``) pulls the graph's
next event through the mux (the pump), so the reader's pace is the run's pace. On the async
lane concurrent readers share one pull at a time; the others wait for its result.
Projections are single-consumer (``tee``/``atee`` to fan out). ``output``/``interrupted``/
``interrupts`` drive the run to its end and raise the run's error.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator, Mapping
from types import MappingProxyType, TracebackType
from typing import Any, Generic, NoReturn, TypeVar, cast

from langchain_core._api import beta

from superstep_compat.stream._convert import convert_to_protocol_event
from superstep_compat.stream._mux import StreamMux
from superstep_compat.stream._types import ProtocolEvent
from superstep_compat.stream.stream_channel import StreamChannel

__all__ = [
    "AsyncGraphRunStream",
    "AsyncSubgraphRunStream",
    "GraphRunStream",
    "SubgraphRunStream",
]

_BETA = "The v3 streaming protocol on Pregel is experimental."


def _no_projection(run: object, name: str) -> NoReturn:
    # Read `_mux` from __dict__: on a half-built instance `run._mux` would recurse here.
    mux = run.__dict__.get("_mux")
    known = ", ".join(sorted(mux.native_keys)) if mux is not None else ""
    raise AttributeError(
        f"{type(run).__name__!r} object has no attribute {name!r} "
        f"(registered projections: {known or 'none'})"
    )


Sub = TypeVar("Sub")
"""A lane's subgraph handle: `SubgraphRunStream` or `AsyncSubgraphRunStream`."""


class _RunState(Generic[Sub]):
    """What both lanes declare and track: the native projections (set from the mux's
    extensions; any other name is an AttributeError naming the registered ones), the run's
    own latest values and its interrupts."""

    values: StreamChannel[dict[str, Any]]
    messages: StreamChannel[Any]
    lifecycle: StreamChannel[Any]
    subgraphs: StreamChannel[Sub]
    updates: StreamChannel[dict[str, Any]]
    custom: StreamChannel[Any]
    checkpoints: StreamChannel[dict[str, Any]]
    debug: StreamChannel[dict[str, Any]]
    tasks: StreamChannel[dict[str, Any]]

    _mux: StreamMux
    _scope_list: list[str]
    _latest: dict[str, Any] | None
    _interrupted: bool
    _interrupts: list[Any]

    def _setup(self, mux: StreamMux) -> None:
        self._mux = mux
        self.extensions: Mapping[str, Any] = MappingProxyType(mux.extensions)
        self._exhausted = False
        self._latest = None
        self._interrupted = False
        self._interrupts = []
        self._scope_list = list(mux.scope)
        for key in mux.native_keys:
            setattr(self, key, mux.extensions[key])

    def __getattr__(self, name: str) -> StreamChannel[Any]:
        _no_projection(self, name)

    def _observe_event(self, event: ProtocolEvent) -> None:
        """Note a ``values`` event of this run's own level (output and interrupts)."""
        if event["method"] != "values" or event["params"]["namespace"] != self._scope_list:
            return
        params = event["params"]
        self._latest = params["data"]
        interrupts = params.get("interrupts", ())
        if interrupts:
            self._interrupted = True
            self._interrupts.extend(interrupts)

    def _raise_if_failed(self) -> None:
        if (err := self._mux._events._error) is not None:
            raise err


@beta(message=_BETA)
class GraphRunStream(_RunState["SubgraphRunStream"]):
    """``GraphRunStream(graph_iter, mux, *, wire_pump=True)``: the sync run stream over
    ``graph_iter`` (v2 stream parts, or protocol events' sources; None for a subgraph handle
    pulled by its parent). See the module docstring."""

    def __init__(
        self, graph_iter: Iterator[Any] | None, mux: StreamMux, *, wire_pump: bool = True
    ) -> None:
        self._graph_iter = graph_iter
        self._setup(mux)
        if wire_pump:
            mux.bind_pump(self._pump_next)

    def _pump_next(self) -> bool:
        """Pull one graph event through the mux; False once the run has ended."""
        if self._exhausted or self._graph_iter is None:
            return False
        try:
            event = _as_event(next(self._graph_iter))
            self._observe_event(event)
            self._mux.push(event)
            return True
        except StopIteration:
            self._exhausted = True
            self._mux.close()
        except Exception as e:
            self._exhausted = True
            self._mux.fail(e)
        return False

    def abort(self) -> None:
        """Stop the run now (its generator is closed, so running nodes are cancelled) and
        close the projections. Idempotent."""
        if self._exhausted:
            return
        self._exhausted = True
        graph_iter, self._graph_iter = self._graph_iter, None
        close = getattr(graph_iter, "close", None)
        for step in (close, self._mux.close):
            if step is not None:  # stopping early must not raise from the stopper
                with contextlib.suppress(Exception):
                    step()

    def __enter__(self) -> GraphRunStream:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.abort()

    def _finish(self) -> None:
        while self._pump_next():
            pass
        self._raise_if_failed()

    @property
    def output(self) -> dict[str, Any] | None:
        """The run's final values (driving it to the end)."""
        self._finish()
        return self._latest

    @property
    def interrupted(self) -> bool:
        """Whether the run stopped on an interrupt (driving it to the end)."""
        self._finish()
        return self._interrupted

    @property
    def interrupts(self) -> list[Any]:
        """The interrupts the run stopped on (driving it to the end)."""
        self._finish()
        return self._interrupts

    def __iter__(self) -> Iterator[ProtocolEvent]:
        """The main event log (subscribing to it)."""
        return iter(self._mux._events)

    def interleave(self, *names: str) -> Iterator[tuple[str, Any]]:
        """``(name, item)`` from the named projections in arrival order. KeyError for an
        unknown name, TypeError for a projection that is not a sync `StreamChannel`,
        RuntimeError for one that already has a subscriber; the subscriptions are released
        when the iteration ends."""
        channels: dict[str, StreamChannel[Any]] = {}
        try:
            for name in names:
                channel = self.extensions[name]
                _check_interleavable(name, channel)
                channel._subscribed = True
                channels[name] = channel
            yield from self._interleaved(channels)
        finally:
            for channel in channels.values():
                channel._subscribed = False

    def _interleaved(self, channels: dict[str, StreamChannel[Any]]) -> Iterator[tuple[str, Any]]:
        open_ = dict(channels)
        while open_:
            ready = [(ch._items[0][0], n) for n, ch in open_.items() if ch._items]
            if ready:
                name = min(ready)[1]
                yield name, open_[name]._items.popleft()[1]
                continue
            finished = _drop_finished(open_)
            if finished:
                continue
            pump = self._mux._pump_fn
            if (pump is None or not pump()) and not _drop_finished(open_):
                return


def _check_interleavable(name: str, channel: Any) -> None:
    if not isinstance(channel, StreamChannel):
        raise TypeError(
            f"interleave() requires StreamChannel projections, got "
            f"{type(channel).__name__} for {name!r}"
        )
    if channel._is_async is None:
        raise TypeError(
            f"StreamChannel {name!r} has not been bound yet. "
            "Register the transformer with a StreamMux first."
        )
    if channel._is_async:
        raise TypeError(
            f"StreamChannel {name!r} is bound to async mode — sync interleave() cannot "
            "consume async channels."
        )
    if channel._subscribed:
        raise RuntimeError(
            f"StreamChannel {name!r} already has a subscriber; use .tee(n) for fan-out."
        )


def _drop_finished(open_: dict[str, StreamChannel[Any]]) -> bool:
    """Remove the closed, drained channels (raising a failed one's error); any removed?"""
    done = [n for n, ch in open_.items() if ch._closed and not ch._items]
    for name in done:
        if (err := open_.pop(name)._error) is not None:
            raise err
    return bool(done)


def _as_event(part: Any) -> ProtocolEvent:
    if isinstance(part, dict) and part.get("type") == "event":
        return part  # type: ignore[return-value]
    return convert_to_protocol_event(part)


@beta(message=_BETA)
class AsyncGraphRunStream(_RunState["AsyncSubgraphRunStream"]):
    """``AsyncGraphRunStream(graph_aiter, mux, *, wire_pump=True)``: the async run stream
    (``await run.output()`` etc.; ``async with`` aborts on exit). See the module docstring."""

    def __init__(
        self,
        graph_aiter: AsyncIterator[Any] | None,
        mux: StreamMux,
        *,
        wire_pump: bool = True,
    ) -> None:
        self._graph_aiter = graph_aiter
        self._setup(mux)
        self._pump_cond = asyncio.Condition()
        self._pumping = False
        self._anext_task: asyncio.Future[Any] | None = None
        self._aborting = False
        # Every pull runs in this one context: what the graph's generator sets in a context
        # variable during one pull must still be there in the next (each pull is a task).
        self._pull_context = contextvars.copy_context()
        if wire_pump:
            mux.bind_apump(self._apump_next)

    async def _apump_next(self) -> bool:
        """Pull one graph event (or wait for the reader that is pulling); False at the end.
        The pull runs as a task of its own so `abort` can cancel it mid-flight, which
        cancels the running nodes and subgraphs."""
        async with self._pump_cond:
            if self._exhausted or self._graph_aiter is None:
                return False
            if self._pumping:
                await self._pump_cond.wait()
                return not self._exhausted
            self._pumping = True
        try:
            return await self._pull(self._graph_aiter)
        finally:
            async with self._pump_cond:
                self._pumping = False
                self._pump_cond.notify_all()

    async def _pull(self, source: AsyncIterator[Any]) -> bool:
        try:
            pull = cast(Coroutine[Any, Any, Any], source.__anext__())
            self._anext_task = asyncio.get_running_loop().create_task(
                pull, context=self._pull_context
            )
            try:
                part = await self._anext_task
            except asyncio.CancelledError:
                if self._aborting:
                    self._exhausted = True
                    return False
                self._anext_task.cancel()
                raise
            finally:
                self._anext_task = None
            event = _as_event(part)
            self._observe_event(event)
            await self._mux.apush(event)
            return True
        except StopAsyncIteration:
            self._exhausted = True
            await self._mux.aclose()
        except Exception as e:
            self._exhausted = True
            await self._mux.afail(e)
        return False

    async def abort(self) -> None:
        """Stop the run now: cancel an in-flight pull, close the graph's generator, close
        the projections. Idempotent."""
        async with self._pump_cond:
            if self._exhausted:
                return
            self._exhausted = self._aborting = True
            source, self._graph_aiter = self._graph_aiter, None
            inflight = self._anext_task
            self._pump_cond.notify_all()
        if inflight is not None and not inflight.done():
            inflight.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await inflight
        for step in (getattr(source, "aclose", None), self._mux.aclose):
            if step is not None:  # stopping early must not raise from the stopper
                with contextlib.suppress(Exception):
                    await step()

    async def __aenter__(self) -> AsyncGraphRunStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.abort()

    async def _finish(self) -> None:
        while await self._apump_next():
            pass
        self._raise_if_failed()

    async def output(self) -> dict[str, Any] | None:
        """The run's final values (driving it to the end)."""
        await self._finish()
        return self._latest

    async def interrupted(self) -> bool:
        """Whether the run stopped on an interrupt (driving it to the end)."""
        await self._finish()
        return self._interrupted

    async def interrupts(self) -> list[Any]:
        """The interrupts the run stopped on (driving it to the end)."""
        await self._finish()
        return self._interrupts

    def __aiter__(self) -> AsyncIterator[ProtocolEvent]:
        """The main event log (subscribing to it)."""
        return self._mux._events.__aiter__()


class _SubgraphHandle(ABC):
    """Where a subgraph handle is and how it ended: ``path`` (its namespace),
    ``graph_name``, ``trigger_call_id`` (the parent task id in its namespace segment),
    ``status`` (``started``, then ``completed``/``failed``/``interrupted``/``drained``)
    and ``error``. The handle's projections are fed by its parent's `SubgraphTransformer`
    and pulled by the root run's pump: the parent's pump of its lane, as bound when the
    handle is made (a handle pulls nothing of its own)."""

    path: tuple[str, ...]
    graph_name: str | None
    trigger_call_id: str | None
    status: str
    error: str | None
    _seen_terminal: bool
    _exhausted: bool
    _mux: StreamMux

    def __init__(
        self,
        mux: StreamMux,
        *,
        path: tuple[str, ...],
        graph_name: str | None = None,
        trigger_call_id: str | None = None,
    ) -> None:
        self._parent_pump_fn: Callable[[], bool] | None = mux._pump_fn
        self._parent_apump_fn: Callable[[], Awaitable[bool]] | None = mux._apump_fn
        self._open_lane(mux)
        self.path = path
        self.graph_name = graph_name
        self.trigger_call_id = trigger_call_id
        self.status = "started"
        self.error = None
        self._seen_terminal = False

    @abstractmethod
    def _open_lane(self, mux: StreamMux) -> None:
        """The lane's own run stream state, with no source and no pump of its own."""

    def _cut_off(self) -> bool:
        """Whether the handle pulls no more: aborted, ended, or its events closed."""
        return self._exhausted or self._seen_terminal or self._mux._events._closed


class SubgraphRunStream(_SubgraphHandle, GraphRunStream):
    """A subgraph's sync run stream (see `_SubgraphHandle`)."""

    def _open_lane(self, mux: StreamMux) -> None:
        GraphRunStream.__init__(self, None, mux, wire_pump=False)

    def _pump_next(self) -> bool:
        pump = self._parent_pump_fn
        return pump is not None and not self._cut_off() and pump()


class AsyncSubgraphRunStream(_SubgraphHandle, AsyncGraphRunStream):
    """A subgraph's async run stream (see `_SubgraphHandle`)."""

    def _open_lane(self, mux: StreamMux) -> None:
        AsyncGraphRunStream.__init__(self, None, mux, wire_pump=False)

    async def _apump_next(self) -> bool:
        pump = self._parent_apump_fn
        return pump is not None and not self._cut_off() and await pump()
