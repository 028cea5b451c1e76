"""The served graphs and their system assistants.

Each graph of ``langgraph.json`` gets a system assistant whose id is
``uuid5(NAMESPACE_GRAPH, graph_id)``, with ``NAMESPACE_GRAPH =
6ba7b821-9dad-11d1-80b4-00c04fd430c8`` as the LangGraph server (``langgraph_api.graph``)
uses; so an id a client computed, or saved, against the reference works here. The graph id
itself is accepted wherever an assistant id is.

A graph of ``langgraph.json`` may also be a factory, as the reference server allows: a
function building the graph each time the server needs it (a run, a state read or update, a
drawing or schema), called with nothing, with the run's config (a parameter of any other
type), or with a ``langgraph_sdk.runtime.ServerRuntime`` (a parameter annotated so): the
access context, the store and, for a run, its context. It may be a coroutine function, and
it may return (or be) a context manager, sync or async, whose graph is used while it is
open: `GraphRegistry.open` enters it for the time the server uses the graph.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID, uuid5

__all__ = [
    "NAMESPACE_GRAPH",
    "Access",
    "GraphRegistry",
    "LoadedGraph",
    "check_servable",
    "is_factory",
    "system_assistant_id",
]

NAMESPACE_GRAPH = UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")

log = logging.getLogger("superstep.server")


def system_assistant_id(graph_id: str) -> str:
    """The id of the system assistant of ``graph_id`` (the reference's)."""
    return str(uuid5(NAMESPACE_GRAPH, graph_id))


# Why the server needs a factory's graph (``ServerRuntime.access_context``).
Access = Literal["threads.create_run", "threads.update", "threads.read", "assistants.read"]


@dataclass
class LoadedGraph:
    graph_id: str
    target: str
    graph: Any  # the compiled graph, or None for a factory
    factory: Callable[..., Any] | None = None


def _compiled(obj: Any) -> bool:
    return callable(getattr(obj, "stream", None)) and callable(getattr(obj, "get_state", None))


def is_factory(obj: Any) -> bool:
    """A function (or other callable that is not a graph or a class) building a graph."""
    return callable(obj) and not _compiled(obj) and not inspect.isclass(obj)


def check_servable(graph_id: str, obj: Any, target: str = "") -> None:
    """Raise `ValueError` naming the graph unless ``obj`` is a compiled graph the server
    can run (``stream`` and ``get_state``) or a graph factory."""
    if _compiled(obj) or is_factory(obj):
        return
    raise ValueError(
        f"graph {graph_id!r} ({target or type(obj).__name__}) is a {type(obj).__name__}, "
        f"not a compiled graph or a function building one: serve a StateGraph's compile(), "
        f"an @entrypoint or a graph factory"
    )


def _wants_runtime(factory: Callable[..., Any]) -> bool | None:
    """``None``: the factory takes no argument; ``True``: a ``ServerRuntime``; ``False``:
    the config."""
    try:
        params = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: give it the config
        return False
    positional = [
        p
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    if not positional:
        return None
    annotation = positional[0].annotation
    named = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    named = named or str(annotation)
    return "ServerRuntime" in named or "_ExecutionRuntime" in named or "_ReadRuntime" in named


async def _awaited(value: Any) -> Any:
    return await value


def _runtime(access: Access, store: Any, context: Any) -> Any:
    try:
        from langgraph_sdk import runtime
    except ImportError as e:  # the factory's own module imported it: rarely reached
        raise RuntimeError("a ServerRuntime factory needs langgraph-sdk installed") from e
    if access == "threads.create_run":
        return runtime._ExecutionRuntime(access_context=access, store=store, context=context)
    return runtime._ReadRuntime(access_context=access, store=store)


class GraphRegistry:
    """Graph id -> compiled graph, each given the server's checkpointer (and store)."""

    def __init__(self) -> None:
        self.graphs: dict[str, LoadedGraph] = {}
        self.checkpointer: Any = None
        self.store: Any = None

    def load(
        self,
        targets: dict[str, str],
        *,
        checkpointer: Any,
        store: Any = None,
        options: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        """Import each target (`superstep_server.engine_kinds.load_served`: a file path or
        a module, a workflow document or a plan, with its entry's ``options``) and give it
        ``checkpointer`` and ``store``. Raises `ValueError` naming the graph that cannot be
        served."""
        from superstep_core.cli_support import UsageError
        from superstep_server.engine_kinds import load_served

        for graph_id, target in targets.items():
            try:
                obj = load_served(target, (options or {}).get(graph_id))
            except UsageError as e:
                raise ValueError(f"graph {graph_id!r}: {e}") from e
            self.add(graph_id, obj, target=target, checkpointer=checkpointer, store=store)

    def add(
        self, graph_id: str, obj: Any, *, target: str = "", checkpointer: Any, store: Any = None
    ) -> None:
        """Serve ``obj`` (a compiled LangGraph-style graph, a graph factory, or an engine
        graph: `superstep_server.engine_graphs`) as ``graph_id``."""
        from superstep_core.graph import CompiledGraph, Graph
        from superstep_server.engine_graphs import EngineGraph

        if isinstance(obj, Graph):
            obj = obj.compile()
        if isinstance(obj, CompiledGraph):  # no handlers given: its effects need none
            obj = EngineGraph(obj)
        check_servable(graph_id, obj, target)
        self.checkpointer = checkpointer
        self.store = store
        if is_factory(obj):
            self.graphs[graph_id] = LoadedGraph(graph_id, target, None, obj)
            return
        self.graphs[graph_id] = LoadedGraph(graph_id, target, self._attach(graph_id, obj))

    def _attach(self, graph_id: str, obj: Any) -> Any:
        """``obj`` with the server's checkpointer and store (warning if it had its own),
        named ``graph_id`` when it has LangGraph's default name, as the reference serves it
        (the root run of ``events``, LangSmith traces): a copy then, as one graph object
        may be served under two ids."""
        if getattr(obj, "name", None) == "LangGraph" and hasattr(obj, "copy"):
            obj = obj.copy(update={"name": graph_id})
        checkpointer, store = self.checkpointer, self.store
        own = getattr(obj, "checkpointer", None)
        if own not in (None, False, True) and own is not checkpointer:
            log.warning(
                "graph %r was compiled with its own checkpointer (%s); the server keeps "
                "threads in its database instead",
                graph_id,
                type(own).__name__,
            )
        obj.checkpointer = checkpointer
        if store is not None:
            obj.store = store
        return obj

    @contextlib.contextmanager
    def open(
        self,
        graph_id: str,
        access: Access = "assistants.read",
        config: dict[str, Any] | None = None,
        context: Any = None,
    ) -> Iterator[Any]:
        """The graph of ``graph_id`` for the time of the ``with`` block: the served graph,
        or the one its factory builds for ``access`` (a context manager it returns stays
        open until the block ends)."""
        loaded = self.graphs[graph_id]
        if loaded.factory is None:
            yield loaded.graph
            return
        wants = _wants_runtime(loaded.factory)
        if wants is None:
            made = loaded.factory()
        elif wants:
            made = loaded.factory(_runtime(access, self.store, context))
        else:
            made = loaded.factory(config or {})
        if not inspect.isawaitable(made) and not hasattr(made, "__aenter__"):
            if hasattr(made, "__enter__") and not _compiled(made):
                with made as graph:
                    yield self._built(loaded, graph)
            else:
                yield self._built(loaded, made)
            return
        # An async factory, or an async context manager: a loop of its own, in this worker
        # thread, for its set-up and its clean-up.
        with asyncio.Runner() as runner:
            if inspect.isawaitable(made):
                made = runner.run(_awaited(made))
            if not hasattr(made, "__aenter__"):
                yield self._built(loaded, made)
                return
            graph = runner.run(_awaited(made.__aenter__()))
            try:
                yield self._built(loaded, graph)
            except BaseException as e:
                if not runner.run(_awaited(made.__aexit__(type(e), e, e.__traceback__))):
                    raise
            else:
                runner.run(_awaited(made.__aexit__(None, None, None)))

    def _built(self, loaded: LoadedGraph, graph: Any) -> Any:
        """A factory's ``graph``, checked and given the server's checkpointer and store."""
        if not _compiled(graph):
            raise ValueError(
                f"graph {loaded.graph_id!r}: its factory ({loaded.target or 'a function'}) "
                f"gave a {type(graph).__name__}, not a compiled graph"
            )
        return self._attach(loaded.graph_id, graph)

    def __contains__(self, graph_id: object) -> bool:
        return graph_id in self.graphs

    def ids(self) -> list[str]:
        return list(self.graphs)
