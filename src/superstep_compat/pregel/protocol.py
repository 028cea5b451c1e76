"""`langgraph.pregel.protocol`: what a graph-like object offers (`PregelProtocol`), and the
handle through which a graph run inside a task streams to its caller (`StreamProtocol`).

LangGraph's compiled graph and its `RemoteGraph` both implement `PregelProtocol`; here
`RemoteGraph` (`superstep_compat.pregel.remote`) does. The module imports only types: it
must never import the runtime (`_run*`, `_task*`), so a client can use it without the engine.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, Generic, Self

from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.graph import Graph as DrawableGraph

from superstep_compat.types import StateSnapshot, StreamMode
from superstep_compat.typing import ContextT, InputT, OutputT, StateT

__all__ = ("PregelProtocol", "StreamProtocol")

StreamChunk = tuple[tuple[str, ...], str, Any]
"""One chunk for a caller's stream: (namespace, stream mode, payload)."""


class PregelProtocol(Runnable[InputT, Any], Generic[StateT, ContextT, InputT, OutputT]):
    """The graph interface (LangGraph's `PregelProtocol`): a runnable that also draws
    itself and reads, lists and edits the state of a thread. Subclasses implement every
    method below; ``invoke``/``stream`` and their async twins come from `Runnable` and are
    overridden with the graph's own keyword arguments (``stream_mode``, ``subgraphs``,
    ``interrupt_before``, ``version``, ...)."""

    @abstractmethod
    def with_config(self, config: RunnableConfig | None = None, **kwargs: Any) -> Self:
        """A copy whose config is ``config`` (and ``kwargs``) merged over this one's."""

    @abstractmethod
    def get_graph(
        self, config: RunnableConfig | None = None, *, xray: int | bool = False
    ) -> DrawableGraph:
        """The drawable graph (`langchain_core.runnables.graph.Graph`)."""

    @abstractmethod
    async def aget_graph(
        self, config: RunnableConfig | None = None, *, xray: int | bool = False
    ) -> DrawableGraph:
        """`get_graph` on asyncio."""

    @abstractmethod
    def get_state(self, config: RunnableConfig, *, subgraphs: bool = False) -> StateSnapshot:
        """The thread's state at the checkpoint ``config`` names (its newest if none)."""

    @abstractmethod
    async def aget_state(self, config: RunnableConfig, *, subgraphs: bool = False) -> StateSnapshot:
        """`get_state` on asyncio."""

    @abstractmethod
    def get_state_history(
        self,
        config: RunnableConfig,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[StateSnapshot]:
        """The thread's states, newest first."""

    @abstractmethod
    def aget_state_history(
        self,
        config: RunnableConfig,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[StateSnapshot]:
        """`get_state_history` on asyncio."""

    @abstractmethod
    def bulk_update_state(self, config: RunnableConfig, updates: Any) -> RunnableConfig:
        """Apply several supersteps of state updates; the config of the last checkpoint."""

    @abstractmethod
    async def abulk_update_state(self, config: RunnableConfig, updates: Any) -> RunnableConfig:
        """`bulk_update_state` on asyncio."""

    @abstractmethod
    def update_state(
        self,
        config: RunnableConfig,
        values: dict[str, Any] | Any | None,
        as_node: str | None = None,
    ) -> RunnableConfig:
        """Write ``values`` as if ``as_node`` had returned them; the new checkpoint's config."""

    @abstractmethod
    async def aupdate_state(
        self,
        config: RunnableConfig,
        values: dict[str, Any] | Any | None,
        as_node: str | None = None,
    ) -> RunnableConfig:
        """`update_state` on asyncio."""


class StreamProtocol:
    """A caller's stream as a graph run inside one of its tasks sees it: the caller's
    stream ``modes`` and a callable taking one `StreamChunk` ``(namespace, mode, payload)``.
    LangGraph passes it in ``config["configurable"]["__pregel_stream"]`` when the caller
    streams subgraphs; `RemoteGraph` forwards the remote run's chunks through it."""

    __slots__ = ("_put", "modes")

    def __init__(
        self, __call__: Callable[[StreamChunk], None], modes: set[StreamMode] | Sequence[str]
    ) -> None:
        self._put = __call__
        self.modes: set[str] = set(modes)

    def __call__(self, chunk: StreamChunk) -> None:
        self._put(chunk)
