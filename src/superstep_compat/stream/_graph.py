"""The hook between a compiled graph and v3 streaming: `stream_events_v3` and
`astream_events_v3`, called by the graph's ``stream_events``/``astream_events`` when
``version="v3"``.

Contract with the graph (what the façade's core must keep providing):
- ``graph.stream(input, config, stream_mode=[modes...], subgraphs=True, **kwargs)`` (and
  ``graph.astream`` with the same arguments) yields the run's events as
  ``(namespace: tuple[str, ...], mode: str, data)`` tuples, subgraph events included, in
  the order they happen; a ``values`` event's data may carry ``"__interrupt__"`` (the
  interrupts the run stopped on); ``messages`` data is ``(payload, metadata)``; ``tasks``
  data is LangGraph's task payload (``id``, ``name``, ``input``, ``triggers``, ``metadata``
  / ``id``, ``name``, ``result``, ``error``, ``interrupts``), and a subgraph's namespace
  segment is ``node:<parent task id>``;
- the run's error is raised from the iterator; closing the iterator stops the run;
- ``graph.stream_transformers``: the factories given to ``compile(transformers=...)``;
- ``graph.config``: the graph's bound config (``with_config``), possibly None.
The modes asked for are exactly the union of the registered transformers'
``required_stream_modes``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, Protocol

from langchain_core.runnables import RunnableConfig

from superstep_compat._internal._config import ensure_config, patch_configurable
from superstep_compat._internal._constants import (
    CONF,
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_STREAM_MESSAGES_V2,
    NS_SEP,
)
from superstep_compat.stream._convert import event_from_tuple
from superstep_compat.stream._mux import StreamMux, TransformerFactory
from superstep_compat.stream._types import ProtocolEvent, StreamTransformer
from superstep_compat.stream.run_stream import AsyncGraphRunStream, GraphRunStream
from superstep_compat.stream.transformers import (
    LifecycleTransformer,
    MessagesTransformer,
    SubgraphTransformer,
    ValuesTransformer,
)

__all__ = ["astream_events_v3", "normalize_transformers", "stream_events_v3"]

_BUILTINS: tuple[TransformerFactory, ...] = (
    ValuesTransformer,
    MessagesTransformer,
    LifecycleTransformer,
    SubgraphTransformer,
)
_OWNED_BY_V3 = ("stream_mode", "subgraphs")


class StreamingGraph(Protocol):
    """What v3 streaming needs of a compiled graph (see the module docstring)."""

    @property
    def stream_transformers(self) -> Sequence[Any]: ...

    @property
    def config(self) -> Any: ...

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Iterator[Any]: ...

    def astream(self, input: Any, config: Any = None, **kwargs: Any) -> AsyncIterator[Any]: ...


def normalize_transformers(
    specs: Sequence[Callable[[tuple[str, ...]], Any]] | None,
) -> list[TransformerFactory]:
    """Transformer classes or ``factory(scope)`` callables, checked: a pre-built transformer
    instance (it cannot be cloned into subgraph scopes) or a non-callable is a TypeError."""
    factories: list[TransformerFactory] = []
    for spec in specs or ():
        if isinstance(spec, StreamTransformer):
            raise TypeError(
                "stream_events(version='v3') transformers must be scope-aware callables, got "
                f"pre-built instance {type(spec).__name__}. Pass the transformer class or a "
                "factory like `lambda scope: MyTransformer(scope, ...)`."
            )
        if not callable(spec):
            raise TypeError(
                "stream_events(version='v3') transformers must be scope-aware callables, "
                f"got {type(spec).__name__}."
            )
        factories.append(spec)
    return factories


def _reject_owned(kwargs: dict[str, Any]) -> None:
    if clash := [k for k in _OWNED_BY_V3 if k in kwargs]:
        raise TypeError(
            "stream_events(version='v3') / astream_events(version='v3') do not accept "
            f"{', '.join(clash)}; v3 owns these (stream_mode is built from the transformer "
            "mux, subgraphs is forced True so nested namespaces flow through scoped muxes)."
        )


def _prepare(
    graph: StreamingGraph,
    config: RunnableConfig | None,
    transformers: Sequence[Callable[[tuple[str, ...]], Any]] | None,
    kwargs: dict[str, Any],
    is_async: bool,
) -> tuple[StreamMux, RunnableConfig, list[str]]:
    _reject_owned(kwargs)
    compiled = normalize_transformers(getattr(graph, "stream_transformers", ()))
    extra = normalize_transformers(transformers)
    # A v3 run started inside a node sees its own level as the caller's namespace.
    ns = ensure_config(getattr(graph, "config", None), config)[CONF].get(CONFIG_KEY_CHECKPOINT_NS)
    scope = tuple(ns.split(NS_SEP)) if ns else ()
    mux = StreamMux(factories=[*_BUILTINS, *compiled, *extra], scope=scope, is_async=is_async)
    modes = sorted({m for t in mux._transformers for m in t.required_stream_modes})
    run_config = patch_configurable(config, {CONFIG_KEY_STREAM_MESSAGES_V2: True})
    return mux, run_config, modes


def _events(chunks: Iterator[Any]) -> Iterator[ProtocolEvent]:
    for ns, mode, data in chunks:
        yield event_from_tuple(ns, mode, data)


async def _aevents(chunks: AsyncIterator[Any]) -> AsyncIterator[ProtocolEvent]:
    async for ns, mode, data in chunks:
        yield event_from_tuple(ns, mode, data)


def stream_events_v3(
    graph: StreamingGraph,
    input: Any,
    config: RunnableConfig | None = None,
    *,
    transformers: Sequence[Callable[[tuple[str, ...]], Any]] | None = None,
    **kwargs: Any,
) -> GraphRunStream:
    """``graph.stream_events(input, config, version="v3", transformers=..., **kwargs)``:
    a `GraphRunStream` over the run (``kwargs`` go to ``graph.stream``: ``context``,
    ``interrupt_before``, ``durability``, ...; ``stream_mode``/``subgraphs`` are a TypeError)."""
    mux, run_config, modes = _prepare(graph, config, transformers, kwargs, is_async=False)
    chunks = graph.stream(
        input, run_config, stream_mode=modes, subgraphs=True, v3_messages=True, **kwargs
    )
    return GraphRunStream(_closing(_events(iter(chunks)), chunks), mux)


async def astream_events_v3(
    graph: StreamingGraph,
    input: Any,
    config: RunnableConfig | None = None,
    *,
    transformers: Sequence[Callable[[tuple[str, ...]], Any]] | None = None,
    **kwargs: Any,
) -> AsyncGraphRunStream:
    """``await graph.astream_events(input, config, version="v3", ...)``: the async twin."""
    mux, run_config, modes = _prepare(graph, config, transformers, kwargs, is_async=True)
    chunks = graph.astream(
        input, run_config, stream_mode=modes, subgraphs=True, v3_messages=True, **kwargs
    )
    return AsyncGraphRunStream(_aclosing(_aevents(aiter(chunks)), chunks), mux)


def _closing(events: Iterator[ProtocolEvent], source: Any) -> Iterator[ProtocolEvent]:
    # Closing the run stream's iterator must close the graph's generator too (it cancels
    # the running nodes), not only the converting generator around it.
    try:
        yield from events
    finally:
        if (close := getattr(source, "close", None)) is not None:
            close()


async def _aclosing(
    events: AsyncIterator[ProtocolEvent], source: Any
) -> AsyncIterator[ProtocolEvent]:
    try:
        async for event in events:
            yield event
    finally:
        if (aclose := getattr(source, "aclose", None)) is not None:
            await aclose()
