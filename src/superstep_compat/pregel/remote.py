"""`langgraph.pregel.remote`: `RemoteGraph`, a graph whose runs happen on a LangGraph server
(the Agent Server API, reached through ``langgraph-sdk``'s clients), usable wherever a graph
is: invoked, streamed, its thread's state read and written, or added as a node of a local
graph (its chunks then reach the local graph's stream, its interrupts and ``Command.PARENT``
surface in the local graph). Behaviour follows LangGraph 1.2's ``RemoteGraph``.

The plain-data work lives beside it: `_remote_state` (configs, state snapshots, drawings),
`_remote_chunks` (stream modes and what each chunk becomes), `_remote_run_stream` (the v3
``stream_events`` handles). This module only calls the clients.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple, Self

import langsmith as ls
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.graph import Graph as DrawableGraph
from langgraph_sdk.client import (
    LangGraphClient,
    SyncLangGraphClient,
    get_client,
    get_sync_client,
)

from superstep_compat._internal._config import merge_configs
from superstep_compat.pregel._remote_chunks import (
    SKIP,
    ChunkRouter,
    RemoteException,
    plan_stream,
)
from superstep_compat.pregel._remote_requests import (
    V3_SUPPORTED_KWARGS,
    history_request,
    reject_v3_unsupported,
    run_options,
    run_request,
    state_request,
    update_request,
    v3_only,
    v3_request,
)
from superstep_compat.pregel._remote_run_stream import (
    _AsyncRemoteGraphRunStream,
    _RemoteGraphRunStream,
)
from superstep_compat.pregel._remote_state import (
    config_of,
    drawable_graph,
    sanitize_config,
    snapshot_of,
)
from superstep_compat.pregel.protocol import PregelProtocol
from superstep_compat.types import GraphOutput, StateSnapshot
from superstep_core.twin import (
    EXHAUSTED,
    Block,
    Emit,
    Twin,
    TwinIter,
    closing,
    iter_of,
    iter_twins,
    next_of,
    twins,
)

__all__ = ("RemoteException", "RemoteGraph")

logger = logging.getLogger(__name__)

_V3_SUPPORTED_KWARGS = V3_SUPPORTED_KWARGS  # LangGraph's name (its tests read it here)


def _merge_tracing_headers(headers: dict[str, str] | None) -> dict[str, str] | None:
    """``headers`` plus LangSmith's distributed-tracing headers of the current run tree
    (none current: ``headers`` unchanged); a given ``baggage`` is kept in front of the
    tracing one."""
    run_tree = ls.get_current_run_tree()
    if run_tree is None:
        return headers
    tracing: dict[str, str] = run_tree.to_headers()
    if not headers:
        return tracing
    merged = {**headers, **tracing}
    if "baggage" in headers and "baggage" in tracing:
        merged["baggage"] = f"{headers['baggage']},{tracing['baggage']}"
    return merged


class RemoteGraph(PregelProtocol[Any, Any, Any, Any]):
    """A graph served by a LangGraph server (LangGraph's `RemoteGraph`).

    ``RemoteGraph(assistant_id, url=..., api_key=..., headers=...)`` makes the SDK's default
    async and sync clients for ``url``; ``client``/``sync_client`` are used instead when
    given. A method whose client is missing raises ValueError. ``config`` is merged under
    every call's config; ``name`` (default ``assistant_id``) is the node name when the graph
    is added to a local graph; ``distributed_tracing`` sends LangSmith's tracing headers.

    A call's config is sanitised before it is sent (`_remote_state.sanitize_config`); its
    ``thread_id`` picks the server thread (created if missing), none runs thread-less.
    """

    assistant_id: str
    name: str | None

    def __init__(
        self,
        assistant_id: str,
        /,
        *,
        url: str | None = None,
        api_key: str | None = None,
        headers: dict[str, str] | None = None,
        client: LangGraphClient | None = None,
        sync_client: SyncLangGraphClient | None = None,
        config: RunnableConfig | None = None,
        name: str | None = None,
        distributed_tracing: bool = False,
    ) -> None:
        self.assistant_id = assistant_id
        self.name = assistant_id if name is None else name
        self.config = config
        self.distributed_tracing = distributed_tracing
        if client is None and url is not None:
            client = get_client(url=url, api_key=api_key, headers=headers)
        self.client = client
        if sync_client is None and url is not None:
            sync_client = get_sync_client(url=url, api_key=api_key, headers=headers)
        self.sync_client = sync_client

    # --- clients and copies ----------------------------------------------------------------

    def _validate_client(self) -> LangGraphClient:
        if self.client is None:
            raise ValueError(
                "Async client is not initialized: please provide `url` or `client` when "
                "initializing `RemoteGraph`."
            )
        return self.client

    def _validate_sync_client(self) -> SyncLangGraphClient:
        if self.sync_client is None:
            raise ValueError(
                "Sync client is not initialized: please provide `url` or `sync_client` when "
                "initializing `RemoteGraph`."
            )
        return self.sync_client

    def copy(self, update: dict[str, Any]) -> Self:
        """A new `RemoteGraph` with these attributes replaced (clients are shared)."""
        attrs = {**self.__dict__, **update}
        return self.__class__(attrs.pop("assistant_id"), **attrs)

    def with_config(self, config: RunnableConfig | None = None, **kwargs: Any) -> Self:
        """A copy whose config is this one's with ``config`` and ``kwargs`` merged over it."""
        merged = merge_configs(self.config, config, kwargs)  # type: ignore[arg-type]
        return self.copy({"config": merged})

    def _headers(self, headers: dict[str, str] | None) -> dict[str, str] | None:
        return _merge_tracing_headers(headers) if self.distributed_tracing else headers

    def _thread_id(self, config: RunnableConfig | None) -> Any:
        return merge_configs(self.config, config)["configurable"]["thread_id"]

    def _merged(self, config: RunnableConfig | None) -> RunnableConfig:
        """A call's config merged over this graph's."""
        return merge_configs(self.config, config)

    def _client(self, lane: _Lane) -> Any:
        """The lane's client (ValueError when it is missing)."""
        return self._validate_client() if lane.prefix else self._validate_sync_client()

    # --- one core per sync/async pair (`superstep_core.twin`): each yields `_LANE` for its
    # spelling's client, and each client call as a block (a value, or what to await for it).
    # A core taking ``**kwargs`` takes ``self`` positionally (`twins` passes it so).

    # --- drawing -----------------------------------------------------------------------------

    def _get_graph(
        self,
        config: RunnableConfig | None = None,
        *,
        xray: int | bool = False,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> Twin[DrawableGraph]:
        """The assistant's graph (``GET /assistants/{id}/graph``); ``xray`` draws its
        subgraphs (an int: to that depth). ``config`` is not used."""
        assistants = self._client((yield _LANE)).assistants
        graph = yield _call(
            assistants.get_graph,
            assistant_id=self.assistant_id,
            xray=xray,
            headers=headers,
            params=params,
        )
        return drawable_graph(graph)

    get_graph, aget_graph = twins(_get_graph)

    # --- state -------------------------------------------------------------------------------

    def _get_state(
        self,
        config: RunnableConfig,
        *,
        subgraphs: bool = False,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> Twin[StateSnapshot]:
        """The thread's state at the checkpoint ``config`` names, else its newest. Needs
        ``thread_id`` in the (merged) config: KeyError without it."""
        lane = yield _LANE
        request = state_request(self._merged(config), subgraphs, headers, params)
        state = yield _call(self._client(lane).threads.get_state, **request)
        return snapshot_of(state)

    get_state, aget_state = twins(_get_state)

    def _get_state_history(
        self,
        config: RunnableConfig,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> TwinIter[StateSnapshot]:
        """The thread's states newest first (``POST /threads/{id}/history``): at most
        ``limit`` (default 10), older than ``before``, with metadata matching ``filter``."""
        lane = yield _LANE
        request = history_request(self._merged(config), filter, before, limit, headers, params)
        states = yield _call(self._client(lane).threads.get_history, **request)
        for state in states:
            yield Emit(snapshot_of(state))

    get_state_history, aget_state_history = iter_twins(_get_state_history)

    def bulk_update_state(self, config: RunnableConfig, updates: Any) -> RunnableConfig:
        """Not offered by the server API: NotImplementedError (as LangGraph)."""
        raise NotImplementedError

    async def abulk_update_state(self, config: RunnableConfig, updates: Any) -> RunnableConfig:
        """Not offered by the server API: NotImplementedError (as LangGraph)."""
        raise NotImplementedError

    def _update_state(
        self,
        config: RunnableConfig,
        values: dict[str, Any] | Any | None,
        as_node: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> Twin[RunnableConfig]:
        """Write ``values`` to the thread as if ``as_node`` returned them
        (``POST /threads/{id}/state``); the config of the new checkpoint."""
        lane = yield _LANE
        request = update_request(self._merged(config), values, as_node, headers, params)
        response = yield _call(self._client(lane).threads.update_state, **request)
        return config_of(response["checkpoint"])

    update_state, aupdate_state = twins(_update_state)

    # --- runs --------------------------------------------------------------------------------

    def _stream(
        self,
        /,
        input: dict[str, Any] | Any,
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
        stream_mode: Any = None,
        interrupt_before: Any = None,
        interrupt_after: Any = None,
        subgraphs: bool = False,
        headers: dict[str, str] | None = None,
        params: Any = None,
        version: str = "v1",
        **kwargs: Any,
    ) -> TwinIter[Any]:
        """Start a run and stream it (``POST /threads/{id}/runs/stream``, or ``/runs/stream``
        without a thread). Chunks are shaped as a local graph's ``stream`` shapes them
        (``stream_mode`` default ``"updates"``, ``subgraphs``, ``version`` ``"v1"``/``"v2"``).
        A `Command` input is sent as the run's command. Raises `RemoteException` when the
        remote run fails; inside a calling graph also `GraphInterrupt` and `ParentCommand`.
        ``kwargs`` go to ``client.runs.stream``."""
        client = self._client((yield _LANE))
        options = run_options(context, interrupt_before, interrupt_after, params, kwargs)
        plan = plan_stream(stream_mode, config)
        router = ChunkRouter(plan, config, subgraphs, version)
        merged, sent = self._merged(config), self._headers(headers)
        request = run_request(self.assistant_id, merged, input, plan, subgraphs, sent, options)
        chunks = yield iter_of(client.runs.stream(**request))
        try:
            while (chunk := (yield next_of(chunks))) is not EXHAUSTED:
                item = router.route(chunk)
                if item is not SKIP:
                    yield Emit(item)
        finally:  # a consumer that stops early stops the client's stream now
            yield closing(chunks)

    stream, astream = iter_twins(_stream)  # type: ignore[assignment]

    def _invoke(
        self,
        /,
        input: dict[str, Any] | Any,
        config: RunnableConfig | None = None,
        *,
        context: Any = None,
        interrupt_before: Any = None,
        interrupt_after: Any = None,
        headers: dict[str, str] | None = None,
        params: Any = None,
        version: str = "v1",
        **kwargs: Any,
    ) -> Twin[Any]:
        """Run to the end and return the last ``values`` chunk (``version="v2"``: a
        `GraphOutput` of it and its interrupts); ``None`` (logged) if the server sent none.
        Reads the lane's own `stream` / `astream` (a subclass's included)."""
        lane = yield _LANE
        chunks = getattr(self, f"{lane.prefix}stream")(
            input,
            config,
            context=context,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
            headers=headers,
            stream_mode="values",
            params=params,
            version=version,
            **kwargs,
        )
        last: Any = SKIP
        while (chunk := (yield next_of(chunks))) is not EXHAUSTED:
            last = chunk
        return _final(last, version)

    invoke, ainvoke = twins(_invoke)  # type: ignore[assignment]

    # --- v3 event streams ----------------------------------------------------------------

    # LangGraph's method name for `_remote_requests.reject_v3_unsupported`
    _reject_v3_unsupported = staticmethod(reject_v3_unsupported)

    def _stream_events(
        self,
        /,
        input: Any,
        config: RunnableConfig | None = None,
        *,
        version: str = "v2",
        interrupt_before: Any = None,
        interrupt_after: Any = None,
        control: Any = None,
        transformers: Sequence[Any] | None = None,
        headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> Twin[Any]:
        """``version="v3"``: a run handle over the server's v3 thread stream, with the local
        handle's projections (`_RemoteGraphRunStream`, entered with ``with``; from
        ``astream_events`` awaited, `_AsyncRemoteGraphRunStream`, entered with ``async
        with``). Other versions: NotImplementedError (LangGraph fails there too, for want of a
        base implementation; use `stream` / `astream`)."""
        lane = yield _LANE
        v3_only(f"{lane.prefix}stream_events", version, f"{lane.prefix}stream")
        self._reject_v3_unsupported(
            control=control,
            transformers=transformers,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
            extra_kwargs=kwargs,
        )
        sanitized, request = v3_request(
            self.assistant_id, self._merged(config), self._headers(headers)
        )
        client = self._client(lane)
        return lane.run_stream._over(
            client,
            sdk_thread=client.threads.stream(**request),
            input=input,
            config=sanitized,
            metadata=kwargs.get("metadata"),
        )

    stream_events, astream_events = twins(_stream_events)  # type: ignore[assignment]

    # LangGraph's name for the config sanitiser, kept as a method
    def _sanitize_config(self, config: RunnableConfig) -> RunnableConfig:
        return sanitize_config(config)


class _Lane(NamedTuple):
    """What a core asks of its spelling: ``prefix`` ``""`` (plain) or ``"a"`` (async: its
    method names' prefix, its client the async one) and its v3 run handle."""

    prefix: str
    run_stream: type[_RemoteGraphRunStream] | type[_AsyncRemoteGraphRunStream]


_PLAIN_LANE = _Lane("", _RemoteGraphRunStream)
_ASYNC_LANE = _Lane("a", _AsyncRemoteGraphRunStream)


async def _async_lane() -> _Lane:
    return _ASYNC_LANE


_LANE = Block(lambda: _PLAIN_LANE, _async_lane)
"""The block whose value is the spelling's `_Lane`."""


def _call(method: Callable[..., Any], **kwargs: Any) -> Block:
    """A client call as a block: the plain client's answer, or the async one's awaitable."""
    call = partial(method, **kwargs)
    return Block(call, call)


def _final(last: Any, version: str) -> Any:
    if last is SKIP:
        logger.warning("No events received from remote graph")
        return None
    if version == "v2":
        return GraphOutput(value=last["data"], interrupts=tuple(last.get("interrupts", ())))
    return last
