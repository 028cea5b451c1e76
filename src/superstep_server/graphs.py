"""The served graphs and their system assistants.

Each graph of ``langgraph.json`` gets a system assistant whose id is
``uuid5(NAMESPACE_GRAPH, graph_id)``, with ``NAMESPACE_GRAPH =
6ba7b821-9dad-11d1-80b4-00c04fd430c8`` as the LangGraph server (``langgraph_api.graph``)
uses; so an id a client computed, or saved, against the reference works here. The graph id
itself is accepted wherever an assistant id is.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any
from uuid import UUID, uuid5

__all__ = [
    "NAMESPACE_GRAPH",
    "GraphRegistry",
    "LoadedGraph",
    "check_servable",
    "system_assistant_id",
]

NAMESPACE_GRAPH = UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")

log = logging.getLogger("superstep.server")


def system_assistant_id(graph_id: str) -> str:
    """The id of the system assistant of ``graph_id`` (the reference's)."""
    return str(uuid5(NAMESPACE_GRAPH, graph_id))


@dataclass
class LoadedGraph:
    graph_id: str
    target: str
    graph: Any


def check_servable(graph_id: str, obj: Any, target: str = "") -> None:
    """Raise `ValueError` naming the graph unless ``obj`` is a compiled graph the server
    can run (``stream`` and ``get_state``); graph factories are not served yet."""
    if callable(getattr(obj, "stream", None)) and callable(getattr(obj, "get_state", None)):
        return
    what = (
        "a function (graph factories are not served yet)"
        if callable(obj)
        else (f"a {type(obj).__name__}")
    )
    raise ValueError(
        f"graph {graph_id!r} ({target or type(obj).__name__}) is {what}, not a compiled "
        f"graph: serve a StateGraph's compile() or an @entrypoint"
    )


class GraphRegistry:
    """Graph id -> compiled graph, each given the server's checkpointer (and store)."""

    def __init__(self) -> None:
        self.graphs: dict[str, LoadedGraph] = {}

    def load(self, targets: dict[str, str], *, checkpointer: Any, store: Any = None) -> None:
        """Import each target (``superstep_core.cli_support.load_target``: a file path or a
        module) and give it ``checkpointer`` and ``store``. Raises `ValueError` naming the
        graph that cannot be served."""
        from superstep_core.cli_support import UsageError, load_target

        for graph_id, target in targets.items():
            try:
                obj, _module = load_target(target)
            except UsageError as e:
                raise ValueError(f"graph {graph_id!r}: {e}") from e
            self.add(graph_id, obj, target=target, checkpointer=checkpointer, store=store)

    def add(
        self, graph_id: str, obj: Any, *, target: str = "", checkpointer: Any, store: Any = None
    ) -> None:
        """Serve ``obj`` (a compiled LangGraph-style graph) as ``graph_id``."""
        check_servable(graph_id, obj, target)
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
        self.graphs[graph_id] = LoadedGraph(graph_id, target, obj)

    def get(self, graph_id: str) -> Any:
        return self.graphs[graph_id].graph

    def __contains__(self, graph_id: object) -> bool:
        return graph_id in self.graphs

    def ids(self) -> list[str]:
        return list(self.graphs)
