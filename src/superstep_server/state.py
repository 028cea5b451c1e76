"""Thread state as the API shows it: views of the checkpoints through the served graph's
public methods (``get_state``, ``update_state``, ``get_state_history``).

Shapes (``langgraph_sdk.schema.ThreadState``): ``values``, ``next``, ``tasks`` (``id``,
``name``, ``path``, ``error``, ``interrupts``, ``checkpoint``, ``state``, ``result``),
``metadata``, ``created_at``, ``checkpoint`` and ``parent_checkpoint`` (``thread_id``,
``checkpoint_ns``, ``checkpoint_id``, and ``checkpoint_map`` when the config has one, as the
reference shows them), ``interrupts``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from superstep_server import serde
from superstep_server.bodies import check_command
from superstep_server.deferred import deferred_models
from superstep_server.errors import ApiError, not_found
from superstep_server.graphs import Access, GraphRegistry
from superstep_server.rows import count_field
from superstep_server.threads import Threads


def _refused() -> tuple[type[Exception], ...]:
    from superstep_compat.errors import InvalidUpdateError

    return (ValueError, KeyError, TypeError, InvalidUpdateError)


_REFUSED = _refused()
"""What a graph raises for an update it refuses (a bad node name, values that do not fit)."""

__all__ = [
    "StateViews",
    "checkpoint_of",
    "command_from_json",
    "interrupts_by_task",
    "state_json",
    "status_after",
]


def command_from_json(spec: Mapping[str, Any]) -> Any:
    """A ``Command`` from the API's JSON (a run's ``command``, a seeding superstep's):
    ``resume``, ``update`` (a dict, or ``[key, value]`` pairs) and ``goto`` (node names, or
    ``{"node", "input"}`` objects that become ``Send``s)."""
    from superstep_compat.types import Command, Send

    def goto(target: Any) -> Any:
        if isinstance(target, Mapping) and "node" in target:
            return Send(target["node"], target.get("input", target.get("arg")))
        return target

    kwargs: dict[str, Any] = {}
    if "resume" in spec:
        kwargs["resume"] = spec["resume"]
    if spec.get("update") is not None:
        update = spec["update"]
        kwargs["update"] = [tuple(u) for u in update] if isinstance(update, list) else update
    if spec.get("goto") is not None:
        target = spec["goto"]
        kwargs["goto"] = [goto(t) for t in target] if isinstance(target, list) else goto(target)
    return Command(**kwargs)


def checkpoint_of(config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The ``checkpoint`` object of a config (``None`` for none)."""
    if not config:
        return None
    c = config.get("configurable", {})
    if "thread_id" not in c:
        return None
    shown = {
        "thread_id": c.get("thread_id"),
        "checkpoint_ns": c.get("checkpoint_ns", ""),
        "checkpoint_id": c.get("checkpoint_id"),
    }
    if c.get("checkpoint_map") is not None:  # a subgraph's: the reference omits a root's
        shown["checkpoint_map"] = c["checkpoint_map"]
    return shown


def update_answer(config: Mapping[str, Any]) -> dict[str, Any]:
    """What ``POST /threads/{id}/state`` answers, as the reference: the new checkpoint's
    config (``thread_id``, ``checkpoint_ns``, ``checkpoint_id``) as ``checkpoint`` and as
    ``configurable``, and its ``checkpoint_id``."""
    configurable = dict(config.get("configurable") or {})
    return {
        "checkpoint": configurable,
        "configurable": configurable,
        "checkpoint_id": configurable.get("checkpoint_id"),
    }


def _interrupt(i: Any) -> dict[str, Any]:
    return {"value": serde.jsonable(i.value), "id": i.id}


def _task_error(error: Any) -> str | None:
    """A task's error as the reference shows it: LangGraph keeps a failed task's error in
    the checkpoint as its repr, a string already (written again, it would gain quotes)."""
    if error is None or isinstance(error, str):
        return error
    return repr(error)


def _task(task: Any) -> dict[str, Any]:
    state = task.state
    sub_state: Any = None
    sub_checkpoint: Any = None
    if state is not None and hasattr(state, "values") and hasattr(state, "next"):
        sub_state = state_json(state)
    elif isinstance(state, Mapping):
        # the reference shows a subgraph task's config as LangGraph gives it (``thread_id``
        # and ``checkpoint_ns``: no ``checkpoint_id`` of a checkpoint it does not name)
        sub_checkpoint = serde.jsonable(dict(state.get("configurable") or {})) or None
    return {
        "id": task.id,
        "name": task.name,
        "path": serde.jsonable(list(task.path)) if getattr(task, "path", None) else [],
        "error": _task_error(task.error),
        "interrupts": [_interrupt(i) for i in task.interrupts],
        "checkpoint": sub_checkpoint,
        "state": sub_state,
        "result": serde.jsonable(task.result) if task.result is not None else None,
    }


def state_json(snapshot: Any, *, values: bool = True) -> dict[str, Any]:
    """A ``StateSnapshot`` as the API writes a thread state (``values`` ``None`` unless
    ``values``: writing a large state as JSON is most of a history page's time)."""
    return {
        "values": serde.jsonable(snapshot.values) if values else None,
        "next": list(snapshot.next),
        "tasks": [_task(t) for t in snapshot.tasks],
        "metadata": serde.jsonable(snapshot.metadata or {}),
        "created_at": snapshot.created_at,
        "checkpoint": checkpoint_of(snapshot.config),
        "parent_checkpoint": checkpoint_of(snapshot.parent_config),
        "interrupts": [_interrupt(i) for i in getattr(snapshot, "interrupts", ())],
        # the reference still writes these two (deprecated) beside ``checkpoint`` and
        # ``parent_checkpoint``; older clients read them
        "checkpoint_id": _checkpoint_id(snapshot.config),
        "parent_checkpoint_id": _checkpoint_id(snapshot.parent_config),
    }


def _checkpoint_id(config: Mapping[str, Any] | None) -> Any:
    if not config:
        return None
    return config.get("configurable", {}).get("checkpoint_id")


EMPTY_STATE: Mapping[str, Any] = {
    "values": {},
    "next": [],
    "tasks": [],
    "metadata": None,
    "created_at": None,
    "checkpoint": None,
    "parent_checkpoint": None,
    "interrupts": [],
    "checkpoint_id": None,
    "parent_checkpoint_id": None,
}
"""The state of a thread no run has given a graph, as the reference answers it."""


def interrupts_by_task(snapshot: Any) -> dict[str, list[dict[str, Any]]]:
    """The pending interrupts of a snapshot, by task id (the thread's ``interrupts``)."""
    return {t.id: [_interrupt(i) for i in t.interrupts] for t in snapshot.tasks if t.interrupts}


def status_after(snapshot: Any) -> str:
    """The thread status a snapshot means once no run is on it: ``interrupted`` when it
    waits (an ``interrupt()`` or a breakpoint: tasks left to run), else ``idle``."""
    return "interrupted" if snapshot.next or getattr(snapshot, "interrupts", ()) else "idle"


class StateViews:
    def __init__(self, graphs: GraphRegistry, threads: Threads) -> None:
        self.graphs = graphs
        self.threads = threads

    def graph_id_of(self, thread_id: str) -> str | None:
        """The graph a thread runs: its ``graph_id`` metadata (set by its first run or at
        creation), else the only served graph; ``None`` for a thread no run has given one."""
        graph_id = self.threads.get(thread_id)["metadata"].get("graph_id")
        if graph_id is None and len(self.graphs.ids()) == 1:
            graph_id = self.graphs.ids()[0]
        return None if graph_id is None else str(graph_id)

    @contextlib.contextmanager
    def graph_of(self, thread_id: str, access: Access = "threads.read") -> Iterator[Any]:
        """The graph thread ``thread_id`` runs (`graph_id_of`; a factory's, built for
        ``access`` with the thread's config); `ApiError` 400 for a thread with none yet,
        with the reference's words."""
        graph_id = self.graph_id_of(thread_id)
        if graph_id is None:
            raise ApiError(
                400,
                f"Thread '{thread_id}' has no assigned graph ID. This usually occurs when no "
                f"runs have been made on this particular thread. This operation requires a "
                f"graph ID. Please ensure a run has been made for the thread or manually "
                f"update the thread metadata (by setting the 'graph_id' field) before running "
                f"this operation.",
            )
        if graph_id not in self.graphs:
            raise not_found(f"Thread {thread_id!r} runs graph {graph_id!r}, not served here")
        config = {"configurable": {"thread_id": thread_id, "graph_id": graph_id}}
        with self.graphs.open(graph_id, access, config) as graph:
            yield graph

    def workflow(self, thread_id: str) -> dict[str, Any] | None:
        """The viewer's workflow panel for a thread running a served workflow document or
        plan (`EngineGraph.workflow`; shapes in `superstep_server.workflow_runs`), ``None``
        for a thread of any other graph."""
        from superstep_server.engine_graphs import EngineGraph

        if self.graph_id_of(thread_id) is None:
            return None
        with self.graph_of(thread_id) as graph:
            return graph.workflow(thread_id) if isinstance(graph, EngineGraph) else None

    @staticmethod
    def _config(thread_id: str, checkpoint: Mapping[str, Any] | None) -> dict[str, Any]:
        configurable: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": ""}
        for key, value in (checkpoint or {}).items():
            if value is not None and key != "thread_id":
                configurable[key] = value
        return {"configurable": configurable}

    def require_checkpoint(
        self, thread_id: str, checkpoint: Mapping[str, Any] | None, graph_id: str
    ) -> None:
        """Raise `ApiError` 404 when ``checkpoint`` names a ``checkpoint_id`` that thread
        ``thread_id`` (run by graph ``graph_id``) does not have (a fork from it would
        silently start afresh); nothing for no checkpoint id."""
        if not checkpoint or not checkpoint.get("checkpoint_id"):
            return
        config = {"configurable": {"thread_id": thread_id, "graph_id": graph_id}}
        with self.graphs.open(graph_id, "threads.read", config) as graph:
            self._require(graph, thread_id, checkpoint)

    def _require(
        self,
        graph: Any,
        thread_id: str,
        checkpoint: Mapping[str, Any] | None,
        subgraphs: bool = False,
    ) -> Any:
        """The state at ``checkpoint``; `ApiError` 404 if it names a missing checkpoint id."""
        snapshot = graph.get_state(self._config(thread_id, checkpoint), subgraphs=subgraphs)
        if checkpoint and checkpoint.get("checkpoint_id") and snapshot.created_at is None:
            raise not_found(
                f"Thread {thread_id!r} has no checkpoint {checkpoint['checkpoint_id']!r}"
            )
        return snapshot

    def get(
        self, thread_id: str, checkpoint: Mapping[str, Any] | None = None, subgraphs: bool = False
    ) -> dict[str, Any]:
        if self.graph_id_of(thread_id) is None:  # no run yet: the reference's empty state
            return dict(EMPTY_STATE)
        with self.graph_of(thread_id) as graph, deferred_models():
            snapshot = self._require(graph, thread_id, checkpoint, subgraphs)
            return state_json(snapshot)

    def update(
        self,
        thread_id: str,
        values: Any,
        *,
        as_node: str | None = None,
        checkpoint: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        with self.graph_of(thread_id, "threads.update") as graph:
            if as_node is not None and as_node not in getattr(graph, "nodes", {as_node: None}):
                # the reference's code and words (LangGraph's InvalidUpdateError)
                raise ApiError(400, f"Node {as_node} does not exist")
            self._require(graph, thread_id, checkpoint)
            try:
                at = self._config(thread_id, checkpoint)
                # as the reference: the thread's graph id in the configurable, so LangGraph
                # writes it into the new checkpoint's metadata
                at["configurable"].setdefault("graph_id", self.graph_id_of(thread_id))
                config = graph.update_state(at, values, as_node=as_node)
            except _REFUSED as e:
                raise ApiError(422, f"cannot update thread {thread_id!r}: {e}") from e
            self._record_state(graph, thread_id)
            return update_answer(config)

    def apply_supersteps(self, thread_id: str, supersteps: list[Any]) -> None:
        """Seed a new thread: each superstep's updates become one checkpoint (the graph's
        ``bulk_update_state``): ``values``, or a ``command`` (its ``update`` written and its
        ``goto`` scheduled, as if node ``as_node`` had returned it). Raises `ApiError` 422
        naming the superstep, the update and the field of a malformed one."""
        from superstep_compat.types import StateUpdate

        with self.graph_of(thread_id, "threads.update") as graph:
            steps: list[list[Any]] = []
            for i, step in enumerate(supersteps):
                updates = step.get("updates") if isinstance(step, Mapping) else None
                if not isinstance(updates, list) or not updates:
                    raise ApiError(422, f"supersteps[{i}].updates: a non-empty list of updates")
                batch = []
                for j, update in enumerate(updates):
                    where = f"supersteps[{i}].updates[{j}]"
                    named = isinstance(update, Mapping) and isinstance(update.get("as_node"), str)
                    if not named:
                        raise ApiError(422, f"{where}: an object with as_node (a node name)")
                    command = update.get("command")
                    check_command(command, f"{where}.command")
                    # as the reference: a command, when given, is what the node "returned"
                    values = command_from_json(command) if command else update.get("values")
                    batch.append(StateUpdate(values, update["as_node"]))
                steps.append(batch)
            try:
                graph.bulk_update_state({"configurable": {"thread_id": thread_id}}, steps)
            except _REFUSED as e:
                raise ApiError(422, f"supersteps: cannot apply them: {e}") from e
            self._record_state(graph, thread_id)

    def _record_state(self, graph: Any, thread_id: str) -> None:
        """The thread's row after an edit of its state: the status, values and interrupts
        of its latest checkpoint."""
        snapshot = graph.get_state({"configurable": {"thread_id": thread_id}})
        self.threads.set_status(
            thread_id,
            status_after(snapshot),
            values=serde.jsonable(snapshot.values),
            interrupts=interrupts_by_task(snapshot),
        )

    def history(
        self, thread_id: str, body: Mapping[str, Any], *, values: bool = True
    ) -> list[dict[str, Any]]:
        """``POST /threads/{id}/history``; without each state's ``values`` (``None``) for
        the viewer's ``/history/steps``. Models in the checkpoints are decoded only as far as
        they are written (`superstep_server.deferred`): not at all without ``values``. A
        thread no run has given a graph has no history (``[]``, as the reference)."""
        if self.graph_id_of(thread_id) is None:
            return []
        with self.graph_of(thread_id, "threads.read") as graph, deferred_models():
            limit = count_field(body, "limit", 10, least=1)
            before = body.get("before")
            if isinstance(before, str):
                before = {"checkpoint_id": before}
            before_config = self._config(thread_id, before) if before else None
            snapshots = graph.get_state_history(
                self._config(thread_id, body.get("checkpoint")),
                filter=body.get("metadata") or None,
                before=before_config,
                limit=limit,
            )
            return [state_json(s, values=values) for s in snapshots]
