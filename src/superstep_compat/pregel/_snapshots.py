"""`StateViews`, what a compiled graph's `get_state`, `get_state_history`, `update_state` and
`bulk_update_state` do: views of saved checkpoints (`snapshot_of`), and edits committed
through the engine as one superstep each (source "update"), made by a `StateEditor`
(`_state_edits`).

A config whose ``checkpoint_ns`` names a subgraph (as `get_state(subgraphs=True)` hands them
out) addresses that subgraph's own checkpoints: its edits go through the subgraph's nodes and
channels, in the parent's saver.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver

from superstep_compat._internal._constants import (
    CONFIG_KEY_CHECKPOINTER,
    END,
    ROOT_KEY,
)
from superstep_compat._internal._merge import merge_configs
from superstep_compat.pregel._lgdelta import delta_channels, hydrate_delta_channels
from superstep_compat.pregel._lgnull import with_null_values
from superstep_compat.pregel._lgread import list_records, load_record
from superstep_compat.pregel._lgrestore import rebuild
from superstep_compat.pregel._record import (
    CheckpointRecord,
    TaskRecord,
    record_config,
    task_state_config,
)
from superstep_compat.pregel._state_edits import StateEditor
from superstep_compat.pregel._task_inputs import check_task_inputs
from superstep_compat.pregel._task_results import task_results
from superstep_compat.types import PregelTask, StateSnapshot, StateUpdate

if TYPE_CHECKING:
    from superstep_compat.pregel._compile import Pregel

__all__ = ["StateViews", "snapshot_of"]


def snapshot_of(
    record: CheckpointRecord,
    saver: BaseCheckpointSaver[Any] | None = None,
    *,
    subgraphs: bool = False,
    live: bool = False,
    output: str | Sequence[str] | None = None,
    root: bool = False,
    subgraph_of: Callable[[str], Any] | None = None,
) -> StateSnapshot:
    """The `StateSnapshot` of one saved checkpoint. A task running a subgraph carries the
    subgraph's own snapshot (``subgraphs=True``) or the config that names it.

    ``live`` (the thread's latest state, as `get_state` without a ``checkpoint_id`` shows
    it): a step that did not finish shows the writes of its finished tasks, lists only the
    others as ``next`` and their interrupts as pending. Otherwise the snapshot is the record
    of the step: values as it started, every task, every interrupt raised.

    ``output``: the graph's output channels (a str: the one channel that is its whole
    output): each task's result is read from the checkpoint's pending writes as LangGraph
    reads it (see `task_results`); None keeps the record's own. ``root``: the state is one
    value (``__root__``), shown bare. ``subgraph_of``: the graph's subgraph run by a node
    (None when it runs none that LangGraph finds): only such a task shows a state."""
    parent = None if record.parent_id is None else record_config(record, record.parent_id)
    finished = frozenset(record.finished) if live else frozenset()
    results = None if output is None else task_results(record.pending, output)
    tasks = tuple(
        PregelTask(
            t.id,
            t.name,
            t.path,
            t.error,  # type: ignore[arg-type]
            () if t.id in finished else tuple(t.interrupts),
            _task_state(record, t, saver, subgraphs, subgraph_of),
            t.result if results is None else results.get(t.id),
        )
        for t in record.tasks
    )
    values = record.values
    next_ = tuple(record.next)
    interrupts = tuple(record.interrupts)
    if record.finished:
        interrupts = tuple(i for t in tasks for i in t.interrupts)
    if finished:
        next_ = tuple(t.name for t in record.tasks if t.id not in finished)
        if record.current_values is not None:
            values = record.current_values
    return StateSnapshot(
        values=values.get(ROOT_KEY) if root else dict(values),
        next=next_,
        config=cast(RunnableConfig, record_config(record, record.checkpoint_id)),
        metadata=dict(record.metadata),
        created_at=record.created_at,
        parent_config=cast(RunnableConfig | None, parent),
        tasks=tasks,
        interrupts=interrupts,
    )


def read_for_view(graph: Any, record: CheckpointRecord, saver: Any) -> None:
    """Make ``record`` (read from ``saver``) what ``get_state`` and history show: the engine
    state of a checkpoint LangGraph wrote rebuilt, `DeltaChannel` keys read back, and the
    values with its writes of no task applied (its next tasks without them, as LangGraph's
    view: see `_lgnull`)."""
    if record.null_applied:
        # saved again with an engine state that has its writes of no task applied (and
        # their tasks): LangGraph's view reads the tasks from the stored channels alone
        record.engine = None
    if record.engine is None:
        rebuild(graph, record, record.pending, saver)  # a checkpoint LangGraph wrote
    else:
        hydrate_delta_channels(graph, record, saver)
    with_null_values(graph, record)


def _task_state(
    record: CheckpointRecord,
    task: TaskRecord,
    saver: BaseCheckpointSaver[Any] | None,
    subgraphs: bool,
    subgraph_of: Callable[[str], Any] | None,
) -> Any:
    """A task's ``state``, as LangGraph's: for a task of a node whose subgraph it finds,
    the config naming the subgraph's checkpoints, or (``subgraphs``) the subgraph's own
    snapshot (an empty one before it ran); None for any other task."""
    graph = None if subgraph_of is None else subgraph_of(task.name)
    if graph is None:
        return None
    config = task_state_config(record, task)
    if not subgraphs or saver is None:
        return config
    ns = config["configurable"]["checkpoint_ns"]
    child = load_record(saver, record.thread_id, ns, None)
    if child is None:  # LangGraph's empty snapshot shows the config it read with
        conf = {CONFIG_KEY_CHECKPOINTER: saver, "thread_id": record.thread_id, "checkpoint_ns": ns}
        return StateSnapshot({}, (), {"configurable": conf}, None, None, None, (), ())
    read_for_view(graph, child, saver)
    views = StateViews(graph)
    shown = snapshot_of(
        child, saver, subgraphs=True, live=True, subgraph_of=views.subgraph_of(), **views.shown()
    )
    return graph._as_shown(shown)


class StateViews:
    """The state views and edits of one compiled graph: what its `get_state`,
    `get_state_history`, `update_state` and `bulk_update_state` (and their async twins) do.
    Made per call over the graph asked (a `with_config` copy is a graph of its own, with its
    own bound config), so it holds nothing else."""

    __slots__ = ("graph",)

    def __init__(self, graph: Pregel[Any, Any, Any, Any]) -> None:
        self.graph = graph

    def _saver(self, config: Mapping[str, Any]) -> BaseCheckpointSaver[Any]:
        saver = self.graph.saver_for(config)
        if saver is None:
            raise ValueError("No checkpointer set")
        return saver

    def shown(self) -> dict[str, Any]:
        """How `snapshot_of` shows the graph's state: its output channels (one that is the
        whole output as a str, as LangGraph names a root state's or an entrypoint's), and
        whether the state is one root value."""
        graph = self.graph
        output: str | Sequence[str] = graph.output_names
        if len(output) == 1 and output[0] in (ROOT_KEY, END):
            output = output[0]
        return {"output": output, "root": graph.state_channels == (ROOT_KEY,)}

    def subgraph_of(self) -> Callable[[str], Any]:
        """The subgraph node ``name`` runs, or None (found when first asked: LangGraph looks
        for them on every state view, a function node's among the names its code reaches)."""
        found: dict[str, Any] | None = None
        graph = self.graph

        def subgraph_of(name: str) -> Any:
            nonlocal found
            if found is None:
                found = dict(graph.get_subgraphs())
            return found.get(name)

        return subgraph_of

    def state(self, config: Mapping[str, Any], subgraphs: bool) -> StateSnapshot:
        """`Pregel.get_state`: the thread's latest checkpoint (or the one ``checkpoint_id``
        names), read with ``config`` over the graph's bound config. A ``config`` without
        ``configurable`` is a KeyError('configurable'), as LangGraph's (it reads the
        namespace from the config as given, before the bound config is merged in)."""
        graph = self.graph
        given = config
        if graph.config:
            config = merge_configs(graph.config, config)
        saver = self._saver(config)
        _require_configurable(given)
        views = self._viewing(config)  # a subgraph's config: the subgraph's own view
        graph = views.graph
        conf = config.get("configurable", {})
        checkpoint_id = conf.get("checkpoint_id")
        # LangGraph reads a thread by its id as a string (a run saves it so)
        thread = str(conf["thread_id"])
        record = load_record(saver, thread, conf.get("checkpoint_ns", ""), checkpoint_id)
        if record is not None:
            read_for_view(graph, record, saver)
            check_task_inputs(graph, record)
        if record is None:
            empty = cast(RunnableConfig, {"configurable": dict(conf)})
            return graph._as_shown(StateSnapshot({}, (), empty, None, None, None, (), ()))
        return graph._as_shown(
            snapshot_of(
                record,
                saver,
                subgraphs=subgraphs,
                live=checkpoint_id is None,
                subgraph_of=views.subgraph_of(),
                **views.shown(),
            )
        )

    def history(
        self, config: Mapping[str, Any], filter: Any, before: Any, limit: int | None
    ) -> Iterator[StateSnapshot]:
        """`Pregel.get_state_history`: the thread's checkpoints, newest first (LangGraph's
        history takes the thread from ``config`` alone, not the bound config)."""
        saver = self._saver(config)
        views = self._viewing(config)  # a subgraph's config: the subgraph's own view
        graph = views.graph
        conf = config.get("configurable", {})
        subgraph_of = views.subgraph_of()
        shown = views.shown()
        records: Iterator[CheckpointRecord] = list_records(
            saver,
            str(conf["thread_id"]),  # as saved (LangGraph's string)
            conf.get("checkpoint_ns", ""),
            checkpoint_id=conf.get("checkpoint_id"),
            filter=filter,
            before=before,
            limit=limit,
        )
        if delta_channels(graph):
            # a saver's list may hold its connection's lock while it yields (SqliteSaver),
            # and rebuilding a DeltaChannel's value reads the saver again: list them first
            records = iter(list(records))
        for record in records:
            read_for_view(graph, record, saver)
            check_task_inputs(graph, record)
            yield graph._as_shown(snapshot_of(record, subgraph_of=subgraph_of, **shown))

    def update(
        self, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]
    ) -> dict[str, Any]:
        """`Pregel.bulk_update_state`: each of ``supersteps`` committed as one checkpoint by
        a `StateEditor` of the graph ``config`` addresses; the last one's config. Raises, in
        LangGraph's order: ValueError (no checkpointer, no supersteps, an empty one), then
        KeyError('configurable') for a ``config`` without it."""
        saver = self._saver(config)
        if len(supersteps) == 0:
            raise ValueError("No supersteps provided")
        if any(len(updates) == 0 for updates in supersteps):
            raise ValueError("No updates provided")
        _require_configurable(config)
        graph = self.graph_for(config)
        current: dict[str, Any] = dict(config)
        for updates in supersteps:
            current = StateEditor(graph).apply(saver, current, [_update_of(u) for u in updates])
        return current

    def _viewing(self, config: Mapping[str, Any]) -> StateViews:
        """The views of the graph whose checkpoints ``config`` addresses (these, or a
        subgraph's)."""
        graph = self.graph_for(config, for_update=False)
        return self if graph is self.graph else StateViews(graph)

    def graph_for(
        self, config: Mapping[str, Any], *, for_update: bool = True
    ) -> Pregel[Any, Any, Any, Any]:
        """The graph whose checkpoints ``config`` addresses: this one, or the subgraph its
        ``checkpoint_ns`` names (``"node:<task>|inner:<task>"``). A namespace naming no
        subgraph found is a ValueError ``for_update`` (an edit would write this graph's
        channels into it), else this graph (LangGraph reads it with this graph's)."""
        ns = config.get("configurable", {}).get("checkpoint_ns", "") or ""
        graph = self.graph
        if not ns:
            return graph
        names = [part.split(":")[0] for part in ns.split("|")]
        for name in names:
            node = getattr(getattr(graph, "spec", None), "nodes", {}).get(name)
            # the node's action, or the graph its function calls (as LangGraph finds it)
            found = None if node is None else next(iter(node.subgraphs), None)
            if found is None:
                if not for_update:
                    return self.graph
                raise ValueError(f"Subgraph {'|'.join(names)} not found")
            graph = cast("Pregel[Any, Any, Any, Any]", found)
        return graph


def _require_configurable(config: Mapping[str, Any]) -> None:
    """KeyError('configurable') when ``config`` has no ``configurable``: LangGraph's
    `get_state` and `bulk_update_state` index it to find the namespace, so a config without
    it fails there, before the thread id is read (`get_state_history` fills it in first and
    fails on the thread id instead)."""
    if "configurable" not in config:
        raise KeyError("configurable")


def _update_of(update: Any) -> StateUpdate:
    """An update as LangGraph unpacks it: exactly (values, as_node, task_id)."""
    if isinstance(update, StateUpdate):
        return update
    values, as_node, task_id = update
    return StateUpdate(values, as_node, task_id)
