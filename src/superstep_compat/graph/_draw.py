"""`get_graph()` for a builder: a langchain-core `Graph` drawn exactly as LangGraph draws it.

LangGraph does not draw a graph from its declared edges: it dry-runs the compiled graph,
step by step, with empty state, and draws an edge wherever a write of one node triggered
another (a static edge always writes, a conditional edge or a `Command` node declares the
targets it may write, once, the first time the node runs). What that dry run reaches,
which edges come out solid or dotted, the label each one carries and the order they are
listed in all follow from it, so drawings (and the snapshot tests and viewers that compare
them) only match when the same dry run is made. `DryRun` makes it over the builder's
plain spec: one trigger channel per node (``branch:to:<node>``, held until the run is idle
for a deferred node) and one barrier per join, with LangGraph's versioning rules. Nothing
runs: no node function, router or engine is called.

`LangGraphDrawing.to_json()` names the façade's node runnables by the LangGraph classes they
stand for (``["langgraph", "_internal", "_runnable", "RunnableCallable"]``), as LangGraph's
JSON does. Imports only the builder's spec types and langchain-core; never the engine.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from langchain_core.runnables.graph import Graph

from superstep_compat._internal._constants import END, START
from superstep_compat.graph._spec import BranchSpec, NodeSpec

__all__ = ["DryRun", "LangGraphDrawing", "assemble", "draw_graph"]

_STEP_LIMIT = 250
"""LangGraph's bound on the dry run: a loop stops being followed after this many steps."""


class _Edge(NamedTuple):
    source: str
    target: str
    conditional: bool
    label: str | None


class _Trigger(NamedTuple):
    """A write a node made: to ``channel``, through a conditional edge or not."""

    channel: str
    conditional: bool
    label: str | None


def _edge_key(edge: _Edge) -> tuple[str, str, bool, bool, str]:
    # LangGraph sorts the plain tuples; a None label sorts before any text here (where
    # LangGraph would fail comparing None with a str).
    return (edge.source, edge.target, edge.conditional, edge.label is not None, edge.label or "")


@dataclass
class _Channel:
    """A trigger channel of the dry run: ``names`` set for a join's barrier (available once
    every name wrote), empty for a node's own trigger (available once written); an
    ``after_finish`` channel (into a deferred node) only becomes available when a step
    triggers nothing else, and stays until its node consumes it."""

    names: frozenset[str] = frozenset()
    after_finish: bool = False
    seen: set[str] = field(default_factory=set)
    written: bool = False
    finished: bool = False

    def _complete(self) -> bool:
        return self.seen == self.names if self.names else self.written

    def available(self) -> bool:
        return self._complete() and (self.finished or not self.after_finish)

    def update(self, values: Sequence[str | None]) -> bool:
        if self.names:
            new = {v for v in values if v is not None} - self.seen
            self.seen |= new
            return bool(new)
        if not values:
            # a node's trigger is ephemeral: cleared by a step that does not write it
            if self.after_finish or not self.written:
                return False
            self.written = False
            return True
        self.written = True
        self.finished = False
        return True

    def consume(self) -> bool:
        if self.names and not self.after_finish:
            if self.seen == self.names:
                self.seen = set()
                return True
            return False
        if self.after_finish and self.finished and self._complete():
            self.finished = False
            self.seen = set()
            self.written = False
            return True
        return False

    def finish(self) -> bool:
        if self.after_finish and not self.finished and self._complete():
            self.finished = True
            return True
        return False


def _to(node: str) -> str:
    return f"branch:to:{node}"


@dataclass
class _Writer:
    """What a node writes when it runs: ``always`` on every run (static edges, joins) and
    ``declared`` (conditional targets as (channel, label)) on its first run only."""

    always: list[tuple[str, Any]] = field(default_factory=list)
    declared: list[tuple[str, str | None]] = field(default_factory=list)


class DryChannel(Protocol):
    """What the dry run does with a channel (LangGraph's `BaseChannel` calls it makes)."""

    def available(self) -> bool: ...

    def update(self, values: Sequence[Any]) -> bool: ...

    def consume(self) -> bool: ...

    def finish(self) -> bool: ...


class DryRun:
    """LangGraph's dry run over ``channels``, the ``triggers`` of each node (in LangGraph's
    node order) and what each node writes (``writers``); `reads` says whether a triggered
    node has its input (LangGraph drops the task otherwise)."""

    def __init__(
        self,
        channels: dict[str, DryChannel],
        triggers: dict[str, list[str]],
        writers: Mapping[str, _Writer],
    ) -> None:
        self.channels = channels
        self.triggers = triggers
        self.writers = writers
        self.trigger_to_nodes: dict[str, list[str]] = defaultdict(list)
        for name, channels_of in self.triggers.items():
            for channel in channels_of:
                self.trigger_to_nodes[channel].append(name)
        self.versions: dict[str, int] = {}
        self.seen: dict[str, dict[str, int]] = defaultdict(dict)

    def reads(self, name: str) -> bool:
        return True

    @classmethod
    def of_builder(
        cls,
        nodes: Mapping[str, NodeSpec],
        edges: Iterable[tuple[str, str]],
        waiting_edges: Iterable[tuple[tuple[str, ...], str]],
        branches: Mapping[str, Mapping[str, BranchSpec]],
        *,
        start_node: bool,
    ) -> DryRun:
        """The dry run of a builder's plain spec (see the module docstring)."""
        edges = list(edges)
        channels: dict[str, DryChannel] = {START: _Channel()}
        triggers: dict[str, list[str]] = {START: [START]} if start_node else {}
        for name, spec in nodes.items():
            channels[_to(name)] = _Channel(after_finish=spec.defer)
            triggers[name] = [_to(name)]
        if not start_node:  # the input triggers the first nodes itself
            for target in sorted(e for s, e in edges if s == START):
                triggers[target].append(START)
            edges = [(s, e) for s, e in edges if s != START]
        writers: dict[str, _Writer] = defaultdict(_Writer)
        for name, spec in nodes.items():
            ends = (
                spec.ends.items()
                if isinstance(spec.ends, Mapping)
                else ((e, None) for e in spec.ends)
            )
            writers[name].declared += [(e if e == END else _to(e), label) for e, label in ends]
        for start, end in edges:
            if end != END:
                writers[start].always.append((_to(end), None))
        for starts, end in waiting_edges:
            if end != END:
                join = f"join:{'+'.join(starts)}:{end}"
                channels[join] = _Channel(frozenset(starts), after_finish=nodes[end].defer)
                triggers[end].append(join)
                for start in starts:
                    writers[start].always.append((join, start))
        for start, by_name in branches.items():
            for branch in by_name.values():
                for key, target in (branch.ends or {}).items():
                    channel = target if target == END else _to(target)
                    writers[start].declared.append((channel, str(key)))
        return cls(channels, triggers, writers)

    def _apply(self, tasks: Mapping[str, list[tuple[str, Any]]], *, step: bool = True) -> set[str]:
        """Apply one step's writes (``step=False``: the input's, which ends no step)."""
        for task in tasks if step else ():
            for channel in self.triggers[task]:
                if channel in self.versions:
                    self.seen[task][channel] = self.versions[channel]
        version = max(self.versions.values(), default=0) + 1
        for channel in {c for task in tasks if step for c in self.triggers[task]}:
            if self.channels[channel].consume():
                self.versions[channel] = version
        by_channel: dict[str, list[Any]] = defaultdict(list)
        for writes in tasks.values():
            for channel, value in writes:
                by_channel[channel].append(value)
        updated: set[str] = set()
        for channel, values in by_channel.items():
            if self.channels[channel].update(values):
                self.versions[channel] = version
                if self.channels[channel].available():
                    updated.add(channel)
        if not step:
            return updated
        for name, chan in self.channels.items():
            if chan.available() and name not in updated and chan.update([]):
                self.versions[name] = version
                if chan.available():
                    updated.add(name)
        if updated.isdisjoint(self.trigger_to_nodes):
            for name, chan in self.channels.items():
                if chan.finish():
                    self.versions[name] = version
                    if chan.available():
                        updated.add(name)
        return updated

    def _next(self, updated: set[str]) -> list[str]:
        if updated:
            candidates: Iterable[str] = sorted(
                {n for c in updated for n in self.trigger_to_nodes.get(c, ())}
            )
        else:
            candidates = list(self.triggers)
        return [
            name
            for name in candidates
            if any(
                self.channels[c].available() and self.versions.get(c, 0) > self.seen[name].get(c, 0)
                for c in self.triggers[name]
            )
            and self.reads(name)
        ]

    def run(
        self, inputs: Sequence[tuple[str, Any]] = ((START, None),)
    ) -> tuple[list[str], set[_Edge], dict[str, set[_Trigger]]]:
        """The nodes the input (its writes: ``inputs``) triggered, the edges the dry run
        found, and what the nodes of its last step wrote."""
        edges: set[_Edge] = set()
        declared_once: set[str] = set()
        declared: dict[str, set[_Trigger]] = defaultdict(set)
        sources: dict[str, set[_Trigger]] = {}
        step_sources: dict[str, set[_Trigger]] = {}
        tasks = first = self._next(self._apply({START: list(inputs)}, step=False))
        for _ in range(-1, _STEP_LIMIT):
            if not tasks:
                break
            writes: dict[str, list[tuple[str, Any]]] = {}
            conditionals: dict[tuple[str, str], str | None] = {}
            for task in tasks:
                writer = self.writers.get(task, _Writer())
                writes[task] = list(writer.always)
                if task not in declared_once:
                    declared_once.add(task)
                    for channel, label in writer.declared:
                        if channel == END:
                            edges.add(_Edge(task, END, True, label))
                            continue
                        conditionals[(task, channel)] = label
                        declared[task].add(_Trigger(channel, True, label))
                        writes[task].append((channel, None))
            step_sources = {}
            for task in tasks:
                made = {
                    _Trigger(
                        c,
                        (task, c) in conditionals and v is None,
                        conditionals.get((task, c)) if v is None else None,
                    )
                    for c, v in writes[task]
                }
                step_sources[task] = made | declared.get(task, set())
            sources.update(step_sources)
            trigger_sources: dict[str, set[_Trigger]] = defaultdict(set)
            for src, made in sources.items():
                for channel, conditional, label in made:
                    trigger_sources[channel].add(_Trigger(src, conditional, label))
            tasks = self._next(self._apply(writes))
            for task in tasks:
                from_this_step = False
                for trigger in sorted(self.triggers[task]):
                    for src, conditional, label in sorted(
                        trigger_sources[trigger], key=_trigger_key
                    ):
                        edges.add(_Edge(src, task, conditional, label))
                        if _Trigger(trigger, conditional, label) in step_sources.get(src, set()):
                            from_this_step = True
                        else:
                            sources[src].discard(_Trigger(trigger, conditional, label))
                if not from_this_step:
                    # triggered by writes of earlier steps only (a join, a deferred node):
                    # LangGraph draws it as reachable from every node of the last step
                    for src in step_sources:
                        edges.add(_Edge(src, task, True, None))
        return first, edges, step_sources


def _trigger_key(t: _Trigger) -> tuple[str, bool, bool, str]:
    return (t.channel, t.conditional, t.label is not None, t.label or "")


class LangGraphDrawing(Graph):
    """A langchain-core `Graph` whose JSON names the façade's runnables as LangGraph does."""

    def to_json(self, *, with_schemas: bool = False) -> dict[str, list[dict[str, Any]]]:
        drawn = super().to_json(with_schemas=with_schemas)
        for node in drawn["nodes"]:
            data = node.get("data")
            if isinstance(data, dict) and isinstance(data.get("id"), list):
                data["id"] = _langgraph_id(data["id"])
        return drawn


# Façade classes LangGraph has under another name: the prebuilt agent's model nodes, which
# LangGraph adds as `RunnableCallable`s.
_LANGGRAPH_IDS: dict[tuple[str, ...], list[str]] = {
    ("superstep_compat", "prebuilt", "_agent_nodes", name): [
        "langgraph",
        "_internal",
        "_runnable",
        "RunnableCallable",
    ]
    for name in ("CallModel", "GenerateStructuredResponse")
}


def _langgraph_id(ident: list[str]) -> list[str]:
    # the façade's classes show their public module (`_internal._names`): LangGraph's path
    if not ident or ident[0] != "superstep_compat":
        return ident
    return _LANGGRAPH_IDS.get(tuple(ident)) or ["langgraph", *ident[1:]]


def _start_runnable() -> Any:
    from superstep_compat._internal._runnable import RunnableCallable

    return RunnableCallable(_identity, name=START, trace=False)


def _identity(value: Any) -> Any:
    return value


def _add_edge(graph: Graph, source: str, target: str, label: str | None, conditional: bool) -> None:
    if any(e.source == source and e.target == target for e in graph.edges):
        return  # the first of a pair is drawn: a plain edge sorts before a conditional one
    if target == END and END not in graph.nodes:
        graph.add_node(None, END)
    graph.add_edge(graph.nodes[source], graph.nodes[target], label, conditional)


def _interrupt_label(name: str, before: Sequence[str] | str, after: Sequence[str] | str) -> str:
    # "*" is kept as the string it is: LangGraph's membership test never matches a node
    kinds = [kind for kind, names in (("before", before), ("after", after)) if name in names]
    return ",".join(kinds)


def draw_graph(
    nodes: Mapping[str, NodeSpec],
    edges: Iterable[tuple[str, str]],
    waiting_edges: Iterable[tuple[tuple[str, ...], str]],
    branches: Mapping[str, Mapping[str, BranchSpec]],
    *,
    interrupt_before: Sequence[str] | str = (),
    interrupt_after: Sequence[str] | str = (),
    start_node: bool = True,
) -> LangGraphDrawing:
    """The drawable graph of a builder's nodes and edges (``StateGraph.nodes`` ...).

    ``start_node=False`` draws a graph whose input triggers its first nodes directly (a
    `Pregel` such as an ``@entrypoint``): START is drawn after the nodes, as a plain node."""
    run = DryRun.of_builder(nodes, edges, waiting_edges, branches, start_node=start_node)
    drawn = [(name, spec.bound, spec.metadata, spec.defer) for name, spec in nodes.items()]
    return assemble(
        run.run(),
        drawn,
        interrupt_before=interrupt_before,
        interrupt_after=interrupt_after,
        start_node=start_node,
    )


def assemble(
    found_by_run: tuple[list[str], set[_Edge], dict[str, set[_Trigger]]],
    nodes: Sequence[tuple[str, Any, Mapping[str, Any] | None, bool]],
    *,
    interrupt_before: Sequence[str] | str = (),
    interrupt_after: Sequence[str] | str = (),
    start_node: bool = True,
) -> LangGraphDrawing:
    """The drawing of what a `DryRun` found (``found_by_run``: its `run`'s result), with
    ``nodes`` as ``(name, runnable, metadata, deferred)`` in LangGraph's node order."""
    first, found, last_step = found_by_run
    graph = LangGraphDrawing()
    if start_node:
        graph.add_node(_start_runnable(), START)
    for name, bound, node_metadata, deferred in nodes:
        metadata: dict[str, Any] = dict(node_metadata or {})
        if deferred:
            metadata["defer"] = True
        stops = _interrupt_label(name, interrupt_before or (), interrupt_after or ())
        if stops:
            metadata["__interrupt"] = stops
        tools = getattr(bound, "tools_by_name", None)
        if isinstance(tools, Mapping) and tools:
            metadata["__tools"] = list(tools)
        graph.add_node(bound, name, metadata=metadata or None)
    if not start_node:
        graph.add_node(None, START)
        for name in first:
            _add_edge(graph, START, name, None, False)

    for edge in sorted(found, key=_edge_key):
        label = edge.label if edge.label != edge.target else None
        _add_edge(graph, edge.source, edge.target, label, edge.conditional)
    termini = {e.target for e in found if e.target != END} - {e.source for e in found}
    if termini:
        for source in sorted(termini):
            _add_edge(graph, source, END, None, False)
    elif len(last_step) == 1 and not any(e.target == END for e in found):
        _add_edge(graph, next(iter(last_step)), END, None, True)
    return graph
