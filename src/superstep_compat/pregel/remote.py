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
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, Self

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

    # --- drawing -----------------------------------------------------------------------------

    def get_graph(
        self,
        config: RunnableConfig | None = None,
        *,
        xray: int | bool = False,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> DrawableGraph:
        """The assistant's graph (``GET /assistants/{id}/graph``); ``xray`` draws its
        subgraphs (an int: to that depth). ``config`` is not used."""
        graph = self._validate_sync_client().assistants.get_graph(
            assistant_id=self.assistant_id, xray=xray, headers=headers, params=params
        )
        return drawable_graph(graph)

    async def aget_graph(
        self,
        config: RunnableConfig | None = None,
        *,
        xray: int | bool = False,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> DrawableGraph:
        """`get_graph` on asyncio."""
        graph = await self._validate_client().assistants.get_graph(
            assistant_id=self.assistant_id, xray=xray, headers=headers, params=params
        )
        return drawable_graph(graph)

    # --- state -------------------------------------------------------------------------------

    def get_state(
        self,
        config: RunnableConfig,
        *,
        subgraphs: bool = False,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> StateSnapshot:
        """The thread's state at the checkpoint ``config`` names, else its newest. Needs
        ``thread_id`` in the (merged) config: KeyError without it."""
        request = state_request(self._merged(config), subgraphs, headers, params)
        state = self._validate_sync_client().threads.get_state(**request)
        return snapshot_of(state)

    async def aget_state(
        self,
        config: RunnableConfig,
        *,
        subgraphs: bool = False,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> StateSnapshot:
        """`get_state` on asyncio."""
        request = state_request(self._merged(config), subgraphs, headers, params)
        state = await self._validate_client().threads.get_state(**request)
        return snapshot_of(state)

    def get_state_history(
        self,
        config: RunnableConfig,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> Iterator[StateSnapshot]:
        """The thread's states newest first (``POST /threads/{id}/history``): at most
        ``limit`` (default 10), older than ``before``, with metadata matching ``filter``."""
        merged = self._merged(config)
        request = history_request(merged, filter, before, limit, headers, params)
        for state in self._validate_sync_client().threads.get_history(**request):
            yield snapshot_of(state)

    async def aget_state_history(
        self,
        config: RunnableConfig,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> AsyncIterator[StateSnapshot]:
        """`get_state_history` on asyncio."""
        merged = self._merged(config)
        request = history_request(merged, filter, before, limit, headers, params)
        for state in await self._validate_client().threads.get_history(**request):
            yield snapshot_of(state)

    def bulk_update_state(self, config: RunnableConfig, updates: Any) -> RunnableConfig:
        """Not offered by the server API: NotImplementedError (as LangGraph)."""
        raise NotImplementedError

    async def abulk_update_state(self, config: RunnableConfig, updates: Any) -> RunnableConfig:
        """Not offered by the server API: NotImplementedError (as LangGraph)."""
        raise NotImplementedError

    def update_state(
        self,
        config: RunnableConfig,
        values: dict[str, Any] | Any | None,
        as_node: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> RunnableConfig:
        """Write ``values`` to the thread as if ``as_node`` returned them
        (``POST /threads/{id}/state``); the config of the new checkpoint."""
        request = update_request(self._merged(config), values, as_node, headers, params)
        response: Any = self._validate_sync_client().threads.update_state(**request)
        return config_of(response["checkpoint"])

    async def aupdate_state(
        self,
        config: RunnableConfig,
        values: dict[str, Any] | Any | None,
        as_node: str | None = None,
        *,
        headers: dict[str, str] | None = None,
        params: Any = None,
    ) -> RunnableConfig:
        """`update_state` on asyncio."""
        request = update_request(self._merged(config), values, as_node, headers, params)
        response: Any = await self._validate_client().threads.update_state(**request)
        return config_of(response["checkpoint"])

    # --- runs --------------------------------------------------------------------------------

    def _run(
        self,
        input: Any,
        config: RunnableConfig | None,
        stream_mode: Any,
        subgraphs: bool,
        headers: dict[str, str] | None,
        version: str,
        options: dict[str, Any],
    ) -> tuple[ChunkRouter, dict[str, Any]]:
        """A run's chunk router and ``runs.stream`` arguments (`stream`, `astream`)."""
        plan = plan_stream(stream_mode, config)
        router = ChunkRouter(plan, config, subgraphs, version)
        merged, sent = self._merged(config), self._headers(headers)
        request = run_request(self.assistant_id, merged, input, plan, subgraphs, sent, options)
        return router, request

    def stream(  # type: ignore[override]
        self,
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
    ) -> Iterator[Any]:
        """Start a run and stream it (``POST /threads/{id}/runs/stream``, or ``/runs/stream``
        without a thread). Chunks are shaped as a local graph's ``stream`` shapes them
        (``stream_mode`` default ``"updates"``, ``subgraphs``, ``version`` ``"v1"``/``"v2"``).
        A `Command` input is sent as the run's command. Raises `RemoteException` when the
        remote run fails; inside a calling graph also `GraphInterrupt` and `ParentCommand`.
        ``kwargs`` go to ``client.runs.stream``."""
        client = self._validate_sync_client()
        options = run_options(context, interrupt_before, interrupt_after, params, kwargs)
        router, request = self._run(
            input, config, stream_mode, subgraphs, headers, version, options
        )
        for chunk in client.runs.stream(**request):
            item = router.route(chunk)
            if item is not SKIP:
                yield item

    async def astream(  # type: ignore[override]
        self,
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
    ) -> AsyncIterator[Any]:
        """`stream` on asyncio."""
        client = self._validate_client()
        options = run_options(context, interrupt_before, interrupt_after, params, kwargs)
        router, request = self._run(
            input, config, stream_mode, subgraphs, headers, version, options
        )
        async for chunk in client.runs.stream(**request):
            item = router.route(chunk)
            if item is not SKIP:
                yield item

    def invoke(  # type: ignore[override]
        self,
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
    ) -> Any:
        """Run to the end and return the last ``values`` chunk (``version="v2"``: a
        `GraphOutput` of it and its interrupts); ``None`` (logged) if the server sent none."""
        last: Any = SKIP
        for chunk in self.stream(
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
        ):
            last = chunk
        return _final(last, version)

    async def ainvoke(  # type: ignore[override]
        self,
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
    ) -> Any:
        """`invoke` on asyncio."""
        last: Any = SKIP
        async for chunk in self.astream(
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
        ):
            last = chunk
        return _final(last, version)

    # --- v3 event streams ----------------------------------------------------------------

    def _reject_v3_unsupported(
        self,
        *,
        control: Any,
        transformers: Any,
        interrupt_before: Any,
        interrupt_after: Any,
        extra_kwargs: dict[str, Any],
    ) -> None:
        """NotImplementedError naming the first argument the v3 wire protocol cannot carry
        (`_remote_requests.reject_v3_unsupported`)."""
        reject_v3_unsupported(
            control=control,
            transformers=transformers,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
            extra_kwargs=extra_kwargs,
        )

    def _v3_request(
        self,
        config: RunnableConfig | None,
        headers: dict[str, str] | None,
        unsupported: tuple[Any, Any, Any, Any],
        kwargs: dict[str, Any],
    ) -> tuple[RunnableConfig, dict[str, Any]]:
        """A v3 stream's (sanitised config, ``threads.stream`` arguments), once the
        arguments it cannot carry (control, transformers, breakpoints) are found unset."""
        control, transformers, interrupt_before, interrupt_after = unsupported
        self._reject_v3_unsupported(
            control=control,
            transformers=transformers,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
            extra_kwargs=kwargs,
        )
        return v3_request(self.assistant_id, self._merged(config), self._headers(headers))

    def stream_events(
        self,
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
    ) -> Any:
        """``version="v3"``: a run handle (`_RemoteGraphRunStream`, entered with ``with``)
        over the server's v3 thread stream, with the local handle's projections. Other
        versions: NotImplementedError (LangGraph fails there too, for want of a base
        implementation; use `stream`)."""
        v3_only("stream_events", version, "stream")
        unsupported = (control, transformers, interrupt_before, interrupt_after)
        sanitized, request = self._v3_request(config, headers, unsupported, kwargs)
        client = self._validate_sync_client()
        return _RemoteGraphRunStream(
            sync_client=client,
            sdk_thread=client.threads.stream(**request),
            input=input,
            config=sanitized,
            metadata=kwargs.get("metadata"),
        )

    async def astream_events(  # type: ignore[override]
        self,
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
    ) -> Any:
        """Awaits to ``version="v3"``'s run handle (`_AsyncRemoteGraphRunStream`, entered
        with ``async with``); other versions: NotImplementedError (use `astream`)."""
        v3_only("astream_events", version, "astream")
        unsupported = (control, transformers, interrupt_before, interrupt_after)
        sanitized, request = self._v3_request(config, headers, unsupported, kwargs)
        client = self._validate_client()
        return _AsyncRemoteGraphRunStream(
            client=client,
            sdk_thread=client.threads.stream(**request),
            input=input,
            config=sanitized,
            metadata=kwargs.get("metadata"),
        )

    # LangGraph's name for the config sanitiser, kept as a method
    def _sanitize_config(self, config: RunnableConfig) -> RunnableConfig:
        return sanitize_config(config)


def _final(last: Any, version: str) -> Any:
    if last is SKIP:
        logger.warning("No events received from remote graph")
        return None
    if version == "v2":
        return GraphOutput(value=last["data"], interrupts=tuple(last.get("interrupts", ())))
    return last
