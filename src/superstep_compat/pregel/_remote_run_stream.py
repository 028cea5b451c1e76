"""The run handles `RemoteGraph.stream_events(version="v3")` / ``astream_events`` return
(LangGraph's ``langgraph.pregel._remote_run_stream``): a LangGraph server's v3 thread
stream (``langgraph-sdk``'s ``SyncThreadStream``/``AsyncThreadStream``) given the surface of
a local v3 run handle (`superstep_compat.stream.GraphRunStream`): entering starts the run,
projections by name, ``output``/``interrupted``/``interrupts``, ``abort``.

Where the handles differ from the local ones (as LangGraph's do): ``interrupted`` and
``interrupts`` read the SDK's current value instead of driving the run to its end; the async
handle has no ``interleave`` (use asyncio's combinators).
"""

from __future__ import annotations

import logging
import sys
from abc import ABC
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from functools import partial
from typing import Any, ClassVar

from langgraph_sdk.stream.decoders import DataDecoder

from superstep_compat.types import Command
from superstep_core.twin import Block, Twin, adrive, async_only, drive, sync_only

__all__ = [
    "_AsyncRemoteGraphRunStream",
    "_ChannelProjection",
    "_ProjectionRegistry",
    "_RemoteGraphRunStream",
    "_translate_command_input",
]

logger = logging.getLogger(__name__)


def _translate_command_input(input: Any) -> Any:
    """The v3 run's wire ``input`` for ``input``: a `Command`'s ``resume`` value (the server
    wraps it as ``{"resume": ...}`` itself when the thread waits on an interrupt), anything
    else as it is. A `Command` with ``goto`` or ``update`` raises NotImplementedError: the
    v3 ``run.start`` call has no place for them."""
    if not isinstance(input, Command):
        return input
    if input.goto or input.update:
        raise NotImplementedError(
            "RemoteGraph v3 streaming takes `Command(resume=...)` only: `goto` and `update` "
            "cannot be sent through the v3 `run.start` call."
        )
    return input.resume


class _ChannelProjection:
    """A wire channel without a typed SDK projection (``updates``, ``checkpoints``,
    ``tasks``, ``custom``): iterating it (``for`` on a sync stream, ``async for`` on an
    async one) subscribes to the channel and yields each event's ``params.data``, decoded
    by the SDK's `DataDecoder` as the SDK decodes its own channels. The run must be entered."""

    def __init__(self, sdk: Any, channel: str) -> None:
        self._sdk = sdk
        self._channel = channel

    def __iter__(self) -> Iterator[Any]:
        decoder = DataDecoder(self._channel)
        for event in self._sdk.subscribe([self._channel]):
            yield from decoder.feed(event)

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._decoded()

    async def _decoded(self) -> AsyncIterator[Any]:
        decoder = DataDecoder(self._channel)
        async for event in self._sdk.subscribe([self._channel]):
            for item in decoder.feed(event):
                yield item


class _ProjectionRegistry(Mapping[str, Any]):
    """The handle's ``extensions``: projection by name, as a local run's. ``values``,
    ``messages``, ``tool_calls`` (the ``tools`` channel: tool executions) and ``subgraphs``
    are the SDK's typed projections; ``updates``, ``checkpoints``, ``tasks`` and ``custom``
    a `_ChannelProjection`; any other name the SDK's custom extension channel of that name.
    ``lifecycle`` and ``debug`` are not listed: the SDK consumes the first itself and the
    v3 wire has no second (both remain in the raw event iterator)."""

    _TYPED = ("values", "messages", "tool_calls", "subgraphs")
    _DECODED = ("updates", "checkpoints", "tasks", "custom")
    _NATIVE = _TYPED + _DECODED

    def __init__(self, sdk: Any) -> None:
        self._sdk = sdk

    def __getitem__(self, name: str) -> Any:
        if name in self._TYPED:
            return getattr(self._sdk, name)
        if name in self._DECODED:
            return _ChannelProjection(self._sdk, name)
        return self._sdk.extensions[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._NATIVE)

    def __len__(self) -> int:
        return len(self._NATIVE)


class _RunHandle(ABC):
    """What both handles share: the SDK stream, the ``run.start`` arguments, the run id
    once started, and the projections (read straight from the SDK stream). The async
    handle is built as this base is (``client=``); the sync one names its client
    ``sync_client=``, as LangGraph's does."""

    def __init__(
        self, *, client: Any, sdk_thread: Any, input: Any, config: Any, metadata: Any
    ) -> None:
        self._client = client
        self._sdk = sdk_thread
        self._start_kwargs: dict[str, Any] = {
            "input": _translate_command_input(input),
            "config": config,
            "metadata": metadata,
        }
        self._run_id: str | None = None
        self._closed = False
        self._events: Any = None  # the one subscription of the raw events, once iterated

    @classmethod
    def _over(
        cls, client: Any, sdk_thread: Any, input: Any, config: Any, metadata: Any
    ) -> _RunHandle:
        """The handle of ``client``'s lane over ``sdk_thread`` (each handle names its client
        argument as LangGraph's does)."""
        return cls(
            client=client, sdk_thread=sdk_thread, input=input, config=config, metadata=metadata
        )

    @property
    def values(self) -> Any:
        """The state after each step, as the local ``run.values``."""
        return self._sdk.values

    @property
    def messages(self) -> Any:
        """The message streams, as the local ``run.messages``."""
        return self._sdk.messages

    @property
    def subgraphs(self) -> Any:
        """Handles of the subgraph runs, as the local ``run.subgraphs``."""
        return self._sdk.subgraphs

    @property
    def tool_calls(self) -> Any:
        """Tool executions (started / output / finished; the ``tools`` channel), not the
        tool-call requests inside ``messages``."""
        return self._sdk.tool_calls

    @property
    def extensions(self) -> Mapping[str, Any]:
        """Projections by name (`_ProjectionRegistry`), as the local ``run.extensions``."""
        return _ProjectionRegistry(self._sdk)

    # --- one core per sync/async pair (`superstep_core.twin`: drive / adrive) -------------

    # the SDK stream's context-manager methods of the handle's lane, and the one-sided
    # block that calls them (`sync_only` or `async_only`)
    _SDK_ENTER: ClassVar[str]
    _SDK_EXIT: ClassVar[str]
    _ONE_SIDED: ClassVar[Callable[..., Block]]

    def _sdk_entered(self) -> Block:
        """Entering the SDK stream (``__enter__`` or ``__aenter__``: the lane's)."""
        return type(self)._ONE_SIDED(getattr(self._sdk, self._SDK_ENTER))

    def _sdk_left(self, *exc: Any) -> Block:
        """Leaving the SDK stream with ``exc`` (``__exit__`` or ``__aexit__``)."""
        return type(self)._ONE_SIDED(getattr(self._sdk, self._SDK_EXIT), *exc)

    def _entering(self) -> Twin[None]:
        """Entering the handle: enter the SDK stream and start the run (its id kept)."""
        if self._closed:
            raise RuntimeError(f"{type(self).__name__} already closed")
        yield self._sdk_entered()
        try:
            # the SDK's ``run.start`` of either lane: its value, or what to await for it
            start = partial(self._sdk.run.start, **self._start_kwargs)
            started = yield Block(start, start)
        except BaseException:
            # the SDK stream was entered: leave it with the error, then let it propagate
            yield self._sdk_left(*sys.exc_info())
            raise
        self._run_id = started["run_id"]

    def _leaving(self, *exc: Any) -> Twin[None]:
        if not self._closed:
            self._closed = True
            yield self._sdk_left(*exc)

    def _aborting(self) -> Twin[None]:
        """Cancel the run on the server (if it started) and close the SDK stream; errors of
        either are logged, not raised; once closed, nothing."""
        if self._closed:
            return
        self._closed = True
        if self._run_id is not None:
            try:
                cancel = partial(
                    self._client.runs.cancel, self._sdk.thread_id, self._run_id, wait=False
                )
                yield Block(cancel, cancel)
            except Exception:
                logger.debug("abort: runs.cancel failed", exc_info=True)
        try:
            close = self._sdk.close
            yield Block(close, close)
        except Exception:
            logger.debug("abort: closing the SDK stream failed", exc_info=True)


class _RemoteGraphRunStream(_RunHandle):
    """The sync handle (``with rg.stream_events(input, version="v3") as run``): entering
    enters the SDK stream and starts the run; iterating yields the raw wire events."""

    _SDK_ENTER, _SDK_EXIT, _ONE_SIDED = "__enter__", "__exit__", sync_only

    def __init__(
        self, *, sync_client: Any, sdk_thread: Any, input: Any, config: Any, metadata: Any
    ) -> None:
        super().__init__(
            client=sync_client, sdk_thread=sdk_thread, input=input, config=config, metadata=metadata
        )

    @classmethod
    def _over(
        cls, client: Any, sdk_thread: Any, input: Any, config: Any, metadata: Any
    ) -> _RemoteGraphRunStream:
        return cls(
            sync_client=client, sdk_thread=sdk_thread, input=input, config=config, metadata=metadata
        )

    def __enter__(self) -> _RemoteGraphRunStream:
        drive(self._entering())
        return self

    def __exit__(self, *exc: object) -> None:
        drive(self._leaving(*exc))

    @property
    def output(self) -> Any:
        """The run's final state (the SDK's ``output``)."""
        return self._sdk.output

    @property
    def interrupted(self) -> bool:
        """Whether the run waits on an interrupt now (does not wait for the run's end)."""
        return bool(self._sdk.interrupted)

    @property
    def interrupts(self) -> list[Any]:
        """The run's open interrupts now (does not wait for the run's end)."""
        return list(self._sdk.interrupts)

    def abort(self) -> None:
        """Cancel the run on the server (if it started) and close the SDK stream; errors of
        either are logged, not raised; a second call does nothing."""
        drive(self._aborting())

    def __iter__(self) -> Iterator[Any]:
        # one subscription for the handle: iterating twice continues the same events
        if self._events is None:
            self._events = iter(self._sdk.events)
        events: Iterator[Any] = self._events
        return events

    def interleave(self, *names: str) -> Iterator[tuple[str, Any]]:
        """``(name, item)`` pairs of the named projections in arrival order."""
        yield from self._sdk.interleave_projections(list(names))


class _AsyncRemoteGraphRunStream(_RunHandle):
    """The async handle (``async with await rg.astream_events(..., version="v3") as run``)."""

    _SDK_ENTER, _SDK_EXIT, _ONE_SIDED = "__aenter__", "__aexit__", async_only

    async def __aenter__(self) -> _AsyncRemoteGraphRunStream:
        await adrive(self._entering())
        return self

    async def __aexit__(self, *exc: object) -> None:
        await adrive(self._leaving(*exc))

    async def output(self) -> Any:
        """The run's final state, once the run ends (a method, as the local async handle's)."""
        return await self._sdk.output

    async def interrupted(self) -> bool:
        """Whether the run waits on an interrupt now (does not wait for the run's end)."""
        return bool(self._sdk.interrupted)

    async def interrupts(self) -> list[Any]:
        """The run's open interrupts now (does not wait for the run's end)."""
        return list(self._sdk.interrupts)

    async def abort(self) -> None:
        """`_RemoteGraphRunStream.abort` on asyncio."""
        await adrive(self._aborting())

    def __aiter__(self) -> AsyncIterator[Any]:
        if self._events is None:
            self._events = self._sdk.events.__aiter__()
        events: AsyncIterator[Any] = self._events
        return events
