"""What differs between kinds of served engine graph (`superstep_server.engine_graphs`):
`ServedKind` is the plain engine graph's behaviour, which the libraries on the engine
(workflow documents, plans: `superstep_server.engine_kinds`) subclass: how a run's input
starts an execution, how an interrupt's answer is checked, which channels a client sees,
the JSON Schemas the API reports, what a node's writes look like in an ``updates`` chunk,
which steps are left when the execution can go no further, and the viewer's workflow panel.

Must never be imported by the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from superstep_core.graph import CompiledGraph
from superstep_core.host import Handler
from superstep_core.host.durable import DurableExecution, DurableRunner

__all__ = ["RunStart", "ServedKind", "release_nothing"]


@dataclass(frozen=True)
class RunStart:
    """How a run's input starts an execution: the execution's ``payload``, the channel
    ``updates`` made before its first superstep, and what the kind adds to the run's
    ``metadata``."""

    payload: Any = None
    updates: Mapping[str, Any] | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)


class ServedKind:
    """The plain engine graph: a run's input is the execution's payload, values are the
    channels whose names do not start with ``__``, and a resume value goes to the
    interrupt unchanged. Subclass it for the libraries on the engine (documents, plans)."""

    name = "graph"

    def open(self) -> tuple[Mapping[str, Handler], Callable[[], None]]:
        """The effect handlers of one run (runs of one graph may go on at once on several
        workers, so each gets its own) and what releases them when the run ends."""
        return {}, release_nothing

    def start(
        self,
        runner: DurableRunner,
        graph: CompiledGraph,
        thread_id: str,
        payload: Any,
        metadata: Mapping[str, Any],
    ) -> DurableExecution:
        """A new execution of ``graph`` on thread ``thread_id`` for the run input
        ``payload`` (as `run_start` reads it). Raises ``ValueError`` for an input the graph
        cannot take."""
        start = self.run_start(graph, payload)
        return runner.start(
            graph,
            thread_id,
            payload=start.payload,
            updates=start.updates,
            metadata={**metadata, **start.metadata},
        )

    def run_start(self, graph: CompiledGraph, payload: Any) -> RunStart:
        """How the run input ``payload`` starts an execution of ``graph``: as its payload,
        for a plain graph. Raises ``ValueError`` for an input the graph cannot take."""
        return RunStart(payload=payload)

    def answer(self, interrupt: Any, value: Any) -> Any:
        """The value an activation suspended on ``interrupt`` resumes with for the client's
        ``value``; raises ``ValueError`` for an answer that does not fit."""
        return value

    def values(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The thread's values as a client sees them, from the execution's channels."""
        return {k: v for k, v in values.items() if not k.startswith("__")}

    def schemas(self, graph: CompiledGraph) -> tuple[Any, Any, Any]:
        """JSON Schemas of a run's input, the run's output and the thread's values
        (``/assistants/{id}/schemas``). A plain graph's values are its visible channels,
        of any JSON type (a channel declares a strategy, not a type); its input is whatever
        payload its start nodes take."""
        state = {
            "title": graph.name,
            "type": "object",
            "properties": {name: {} for name in graph.channels if not name.startswith("__")},
        }
        return {"title": f"{graph.name} input"}, state, state

    def update(self, written: Mapping[str, Any]) -> dict[str, Any]:
        """What a client sees of one node's writes in a superstep (``written``: channel ->
        the value the node wrote, before the channel's strategy), for its ``updates``
        chunk; the visible channels by default."""
        return self.values(written)

    def left(self, values: Mapping[str, Any]) -> tuple[str, ...]:
        """Steps the execution will never reach although it ended without an error (none
        for a plain graph: when nothing is queued, awaited or suspended it is done)."""
        return ()

    def workflow(self, runner: DurableRunner, thread_id: str) -> dict[str, Any] | None:
        """The viewer's workflow panel for the thread (`superstep_server.workflow_runs`
        shapes), or ``None`` for a kind that has none (a plain graph)."""
        return None


def release_nothing() -> None:
    """What releases the handlers of a kind that holds no resource."""
