"""The definition DSL: build a `Graph`, then `compile()` it into an immutable `CompiledGraph`.

    g = Graph("pipeline", version="1").with_channels(docs=Append(), count=Reducer(add))
    g.add_node("receive", receive).add_node("parse", parse)
    g.start_at("receive").connect("receive", "parse")
    compiled = g.compile()

Validation happens in `compile()`, before anything runs, and every error names the culprit.

Owns: `Graph`, `NodeSpec`, `CompiledGraph`, validation.
Must never import: the runtime, the host, persistence, llm, compat.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from superstep_core.channel import Channel
from superstep_core.edge import (
    All,
    AnyOf,
    AtLeast,
    Branch,
    Connect,
    FailFast,
    FailurePolicy,
    FirePolicy,
    Join,
    Route,
    RouteFailuresTo,
    Router,
)
from superstep_core.errors import GraphValidationError
from superstep_core.node import NodeFn, RetryPolicy

__all__ = ["ANY_NODE", "CompiledGraph", "Graph", "NodeSpec"]

ANY_NODE = "*"
"""``may_activate=[ANY_NODE]``: the node may activate any node of the graph."""


@dataclass(frozen=True, slots=True)
class NodeSpec:
    """A node: its key; its reducer; the channels it may write (``None``: any declared
    channel); the nodes it may `Activate`/`Spawn` by control action (``None``: any node;
    reachability is then unknown, so a node reached only that way must be listed to pass
    validation; ``[ANY_NODE]``: any node, all counted reachable from it); its retry policy;
    and whether activations requested for it in one superstep coalesce into one (``coalesce``:
    LangGraph's "a node runs once per step"); ``defer``: its activations wait until nothing
    else is queued or awaited; ``defer_beside_spawns`` (with ``defer``): spawned activations
    (fan-out items) neither wait nor hold it back: a `Spawn` to the node runs at once, and
    its deferred activations are released as soon as the queue holds spawned activations
    only, running beside them (LangGraph's ``defer=True``: a deferred node runs in the first
    step that no edge triggers, beside that step's ``Send`` tasks); ``retry_holds_step``:
    when one of its activations fails and is retried, the other events of that superstep
    wait and are delivered again, with the retried activation's, in the superstep where it
    settles (so the step commits once, in canonical order: LangGraph's "a step ends when
    all its tasks have", retries included); ``triggers``: channels the node subscribes to:
    a superstep (or edit, or input) that writes one of them activates the node in the next
    superstep
    (LangGraph's low-level ``Pregel``: a node runs when a channel it subscribes to changed);
    ``suspend_holds_step``: when one of its activations suspends
    (an interrupt) beside other events of its superstep, nothing of that superstep commits:
    the other events wait (``held``) and are delivered again, with the resumed activation's,
    in the superstep where every suspended activation of it has settled (LangGraph keeps a
    paused step's finished tasks as pending writes and applies the whole step, in task
    order, once it completes after the resume). Its suspending reaction may not write.
    ``retry_keeps``: the keys of an activation's memory that its next attempt after a
    failure keeps (what the activation was given rather than what it did: LangGraph keeps the
    answers a task's interrupts were given across its retries, so an answered question is
    not asked again); every other key starts afresh."""

    key: str
    fn: NodeFn
    writes: frozenset[str] | None = None
    may_activate: frozenset[str] | None = None
    retry: RetryPolicy | None = None
    coalesce: bool = False
    defer: bool = False
    metadata: Mapping[str, Any] = field(default_factory=dict)
    retry_holds_step: bool = False
    triggers: frozenset[str] = frozenset()
    suspend_holds_step: bool = False
    on_failure: str | None = None
    defer_beside_spawns: bool = False
    retry_keeps: frozenset[str] = frozenset()


def _always(_: Any) -> bool:
    return True


class Graph:
    """A mutable graph definition. Builder methods return ``self`` so calls chain."""

    def __init__(self, name: str = "graph", *, version: str = "1") -> None:
        self.name = name
        self.version = version
        self._channels: dict[str, Channel] = {}
        self._nodes: dict[str, NodeSpec] = {}
        self._starts: list[str] = []
        self._ends: list[str] = []
        self._connects: list[Connect] = []
        self._branches: list[Branch] = []
        self._routes: list[Route] = []
        self._joins: list[Join] = []

    # --- declarations ------------------------------------------------------------------

    def with_channels(
        self, channels: Mapping[str, Channel] | None = None, **more: Channel
    ) -> Graph:
        """Declare channels: ``with_channels(docs=Append(), count=Reducer(operator.add))``.

        Raises `GraphValidationError` naming the channel for a duplicate name or a strategy
        that cannot work (``Reducer(5)``: its function is not callable)."""
        for name, strategy in {**(channels or {}), **more}.items():
            if not isinstance(strategy, Channel):
                raise GraphValidationError(
                    f"channel {name!r}: expected a Channel strategy (LastValue(), Reducer(fn), "
                    f"Append(), Ephemeral(), Barrier(names)), got {strategy!r}"
                )
            if name in self._channels:
                raise GraphValidationError(f"channel {name!r} is declared twice")
            strategy.validate(name)
            self._channels[name] = strategy
        return self

    def add_node(
        self,
        key: str,
        fn: NodeFn,
        *,
        writes: Iterable[str] | None = None,
        may_activate: Iterable[str] | None = None,
        retry: RetryPolicy | None = None,
        coalesce: bool = False,
        defer: bool = False,
        metadata: Mapping[str, Any] | None = None,
        retry_holds_step: bool = False,
        triggers: Iterable[str] = (),
        suspend_holds_step: bool = False,
        on_failure: str | None = None,
        defer_beside_spawns: bool = False,
        retry_keeps: Iterable[str] = (),
    ) -> Graph:
        """Add node ``key`` whose reducer is ``fn(ctx, event) -> Reaction``. ``triggers``:
        channels whose writes activate it (in the superstep after the one that wrote them).
        ``on_failure``: the node's failure route: an activation that fails for good (no retry
        left, no join absorbing it) is handed to that node instead of failing the execution:
        the same activation goes on as an activation of ``on_failure`` with a `NodeFailed`
        payload (with ``retry_holds_step``, inside the same superstep, like a retry).
        ``retry_keeps``: memory keys a retry keeps (see `NodeSpec`).

        Raises `GraphValidationError` for a duplicate key, a non-callable ``fn``, or
        ``defer_beside_spawns`` without ``defer``."""
        if not isinstance(key, str) or not key:
            raise GraphValidationError(f"node key must be a non-empty string, got {key!r}")
        if key in self._nodes:
            raise GraphValidationError(f"node {key!r} is already defined")
        if not callable(fn):
            raise GraphValidationError(f"node {key!r}: reducer {fn!r} is not callable")
        if defer_beside_spawns and not defer:
            raise GraphValidationError(f"node {key!r}: defer_beside_spawns needs defer=True")
        self._nodes[key] = NodeSpec(
            key=key,
            fn=fn,
            writes=None if writes is None else frozenset(writes),
            may_activate=None if may_activate is None else frozenset(may_activate),
            retry=retry,
            coalesce=coalesce,
            defer=defer,
            metadata=dict(metadata or {}),
            retry_holds_step=retry_holds_step,
            triggers=frozenset(triggers),
            suspend_holds_step=suspend_holds_step,
            on_failure=on_failure,
            defer_beside_spawns=defer_beside_spawns,
            retry_keeps=frozenset(retry_keeps),
        )
        return self

    def start_at(self, *keys: str) -> Graph:
        """Activate ``keys`` when an execution starts (the input is their payload)."""
        self._starts.extend(k for k in keys if k not in self._starts)
        return self

    def end_at(self, *keys: str) -> Graph:
        """Declare terminal nodes: they may have no outgoing edges, and their completion
        outputs are the execution's outputs."""
        self._ends.extend(k for k in keys if k not in self._ends)
        return self

    def connect(self, source: str, target: str) -> Graph:
        """When ``source`` completes, activate ``target``. The same edge declared again is
        kept once (as LangGraph's ``add_edge`` does), so ``target`` runs once per completion."""
        edge = Connect(source, target)
        if edge not in self._connects:
            self._connects.append(edge)
        return self

    def fork(self, source: str, targets: Sequence[str]) -> Graph:
        """When ``source`` completes, activate every one of ``targets`` (same superstep)."""
        for target in targets:
            self.connect(source, target)
        return self

    def branch(self, source: str, router: Router, targets: Sequence[str]) -> Graph:
        """When ``source`` completes, activate the targets ``router(state, output)`` returns
        (one key, a list of keys, or ``None``); each must be one of ``targets``."""
        self._branches.append(Branch(source, router, tuple(targets)))
        return self

    def route(self, name: str, predicate: Callable[[Any], bool] | None, node: str) -> Graph:
        """Deliver external events named ``name`` whose payload passes ``predicate`` (every
        payload when ``None``) to ``node``."""
        self._routes.append(Route(name, predicate or _always, node))
        return self

    def join_all(
        self,
        name: str,
        sources: Sequence[str],
        target: str,
        *,
        on_failure: FailurePolicy | None = None,
        on_incomplete: str = "fail",
    ) -> Graph:
        """Activate ``target`` once every one of ``sources`` completed (per lineage)."""
        return self._join(name, sources, target, All(), on_failure, on_incomplete)

    def join_any(
        self,
        name: str,
        sources: Sequence[str],
        target: str,
        *,
        on_failure: FailurePolicy | None = None,
        on_incomplete: str = "fail",
    ) -> Graph:
        """Activate ``target`` when the first of ``sources`` completes (per lineage)."""
        return self._join(name, sources, target, AnyOf(), on_failure, on_incomplete)

    def join_at_least(
        self,
        n: int,
        name: str,
        sources: Sequence[str],
        target: str,
        *,
        on_failure: FailurePolicy | None = None,
        on_incomplete: str = "fail",
    ) -> Graph:
        """Activate ``target`` once ``n`` of ``sources`` completed (per lineage)."""
        return self._join(name, sources, target, AtLeast(n), on_failure, on_incomplete)

    def _join(
        self,
        name: str,
        sources: Sequence[str],
        target: str,
        fire: FirePolicy,
        on_failure: FailurePolicy | None,
        on_incomplete: str,
    ) -> Graph:
        if any(j.name == name for j in self._joins):
            raise GraphValidationError(f"join {name!r} is already defined")
        if on_incomplete not in ("fail", "keep"):
            raise GraphValidationError(
                f"join {name!r}: on_incomplete must be 'fail' or 'keep', got {on_incomplete!r}"
            )
        self._joins.append(
            Join(name, tuple(sources), target, fire, on_failure or FailFast(), on_incomplete)
        )
        return self

    # --- compile -------------------------------------------------------------------------

    def compile(self) -> CompiledGraph:
        """Validate and freeze. Raises `GraphValidationError` naming the culprit."""
        _validate(self)
        return CompiledGraph(self)


class CompiledGraph:
    """An immutable, validated graph with precomputed adjacency for the runtime."""

    def __init__(self, graph: Graph) -> None:
        self.name = graph.name
        self.version = graph.version
        self.channels: Mapping[str, Channel] = MappingProxyType(dict(graph._channels))
        self.nodes: Mapping[str, NodeSpec] = MappingProxyType(dict(graph._nodes))
        self.starts: tuple[str, ...] = tuple(graph._starts)
        self.ends: tuple[str, ...] = tuple(graph._ends)
        self.connects: tuple[Connect, ...] = tuple(graph._connects)
        self.branches: tuple[Branch, ...] = tuple(graph._branches)
        self.routes: tuple[Route, ...] = tuple(graph._routes)
        self.joins: tuple[Join, ...] = tuple(graph._joins)
        successors: dict[str, list[str]] = {}
        for c in self.connects:
            successors.setdefault(c.source, []).append(c.target)
        self.successors: Mapping[str, tuple[str, ...]] = {
            k: tuple(v) for k, v in successors.items()
        }
        branches: dict[str, list[Branch]] = {}
        for b in self.branches:
            branches.setdefault(b.source, []).append(b)
        self.branches_of: Mapping[str, tuple[Branch, ...]] = {
            k: tuple(v) for k, v in branches.items()
        }
        joins: dict[str, list[Join]] = {}
        for j in self.joins:
            for s in j.sources:
                joins.setdefault(s, []).append(j)
        self.joins_of: Mapping[str, tuple[Join, ...]] = {k: tuple(v) for k, v in joins.items()}
        self.joins_by_name: Mapping[str, Join] = {j.name: j for j in self.joins}
        routes: dict[str, list[Route]] = {}
        for r in self.routes:
            routes.setdefault(r.name, []).append(r)
        self.routes_of: Mapping[str, tuple[Route, ...]] = {k: tuple(v) for k, v in routes.items()}
        subscribers: dict[str, list[str]] = {}
        for key, spec in self.nodes.items():
            for channel in sorted(spec.triggers):
                subscribers.setdefault(channel, []).append(key)
        self.subscribers: Mapping[str, tuple[str, ...]] = {
            k: tuple(v) for k, v in subscribers.items()
        }
        """By channel: the nodes a write to it activates (in node declaration order)."""

    @property
    def identity(self) -> str:
        """``name@version``: recorded with every persisted execution."""
        return f"{self.name}@{self.version}"

    def __repr__(self) -> str:
        return f"<CompiledGraph {self.identity}: {len(self.nodes)} nodes>"


# --- validation ------------------------------------------------------------------------------


def _validate(g: Graph) -> None:
    nodes = g._nodes
    if not nodes:
        raise GraphValidationError(f"graph {g.name!r} has no nodes")
    triggered = [k for k, n in nodes.items() if n.triggers]
    if not g._starts and not g._routes and not triggered:
        raise GraphValidationError(
            f"graph {g.name!r} has no start: call start_at(node) (or declare a route for "
            f"external events, or a node triggered by a channel)"
        )

    def known(key: str, where: str) -> None:
        if key not in nodes:
            hint = _close(key, nodes)
            raise GraphValidationError(f"{where} refers to unknown node {key!r}{hint}")

    for key in g._starts:
        known(key, "start_at")
    for key, spec in nodes.items():
        if spec.on_failure is not None:
            known(spec.on_failure, f"node {key!r}'s on_failure")
    for key in g._ends:
        known(key, "end_at")
    for c in g._connects:
        known(c.source, f"edge {c.source!r} -> {c.target!r}")
        known(c.target, f"edge {c.source!r} -> {c.target!r}")
    for b in g._branches:
        known(b.source, f"branch from {b.source!r}")
        if not b.targets:
            raise GraphValidationError(f"branch from {b.source!r} declares no targets")
        for t in b.targets:
            known(t, f"branch {b.source!r} -> {t!r}")
    for r in g._routes:
        known(r.node, f"route {r.name!r}")
    for j in g._joins:
        if not j.sources:
            raise GraphValidationError(f"join {j.name!r} has no sources")
        for s in j.sources:
            known(s, f"join {j.name!r} source")
        known(j.target, f"join {j.name!r} target")
        if isinstance(j.on_failure, RouteFailuresTo):
            known(j.on_failure.node, f"join {j.name!r} failure route")
        if isinstance(j.fire, AtLeast) and not 1 <= j.fire.n <= len(j.sources):
            raise GraphValidationError(
                f"join {j.name!r} waits for {j.fire.n} of {len(j.sources)} sources: it can "
                f"never fire"
            )
        if len(set(j.sources)) != len(j.sources):
            raise GraphValidationError(f"join {j.name!r} lists a source twice: {j.sources}")
    _check_single_activation(g)
    for end in g._ends:
        outgoing = [c.target for c in g._connects if c.source == end]
        outgoing += [t for b in g._branches if b.source == end for t in b.targets]
        if outgoing:
            raise GraphValidationError(
                f"end node {end!r} has outgoing edges to {sorted(set(outgoing))}"
            )
    for spec in nodes.values():
        for target in sorted((spec.may_activate or frozenset()) - {ANY_NODE}):
            known(target, f"node {spec.key!r} may_activate")
        for ch in sorted(spec.triggers - g._channels.keys()):
            raise GraphValidationError(
                f"node {spec.key!r} is triggered by channel {ch!r}, which is not declared; "
                f"declare it with with_channels({ch}=...)"
            )
        if spec.writes is not None:
            for ch in sorted(spec.writes - g._channels.keys()):
                raise GraphValidationError(
                    f"node {spec.key!r} writes channel {ch!r}, which is not declared; "
                    f"declare it with with_channels({ch}=...)"
                )

    edges = _adjacency(g)
    # a node triggered by a channel can run whenever the channel is written (by a node, an
    # edit or the input): it is a root of its own
    roots = list(g._starts) + [r.node for r in g._routes] + triggered
    reachable = _reach(edges, roots)
    unreachable = [k for k in nodes if k not in reachable]
    if unreachable:
        raise GraphValidationError(
            f"node(s) {', '.join(repr(k) for k in unreachable)} can never run: not reachable "
            f"from any start ({', '.join(g._starts) or 'none'}) or route"
        )
    for j in g._joins:
        _check_join_satisfiable(g, j, edges, roots)


def _check_single_activation(g: Graph) -> None:
    """One completion activates a target once: refuse an edge and a branch, or two branches,
    from one node to the same target (both could fire, running it twice per superstep and
    doubling every superstep after)."""
    by_edge = {(c.source, c.target) for c in g._connects}
    by_branch: set[tuple[str, str]] = set()
    for b in g._branches:
        for t in dict.fromkeys(b.targets):
            if (b.source, t) in by_edge:
                raise GraphValidationError(
                    f"node {b.source!r} reaches {t!r} both by an edge and by a branch: one "
                    f"completion would activate {t!r} twice; drop the edge or the branch target"
                )
            if (b.source, t) in by_branch:
                raise GraphValidationError(
                    f"node {b.source!r} reaches {t!r} by two branches: one completion could "
                    f"activate {t!r} twice; route to it from one branch"
                )
            by_branch.add((b.source, t))


def _adjacency(g: Graph, without: Join | None = None) -> dict[str, set[str]]:
    """Which nodes each node may activate; ``without``: leaving that join's firing out."""
    everything = set(g._nodes)
    edges: dict[str, set[str]] = {
        k: everything if ANY_NODE in (n.may_activate or ()) else set(n.may_activate or ())
        for k, n in g._nodes.items()
    }
    for c in g._connects:
        edges[c.source].add(c.target)
    for k, n in g._nodes.items():  # a failure route runs when its node fails
        if n.on_failure is not None:
            edges[k].add(n.on_failure)
    for b in g._branches:
        edges[b.source].update(b.targets)
    for j in g._joins:
        if j is without:
            continue
        for s in j.sources:
            edges[s].add(j.target)
            if isinstance(j.on_failure, RouteFailuresTo):
                edges[s].add(j.on_failure.node)
    return edges


def _reach(edges: Mapping[str, set[str]], roots: Iterable[str], avoid: str = "") -> set[str]:
    seen: set[str] = set()
    todo = deque(r for r in roots if r != avoid)
    while todo:
        k = todo.popleft()
        if k in seen:
            continue
        seen.add(k)
        todo.extend(t for t in edges.get(k, ()) if t != avoid and t not in seen)
    return seen


def _path(edges: Mapping[str, set[str]], start: str, goal: str) -> list[str]:
    parents: dict[str, str] = {}
    todo = deque([start])
    while todo:
        k = todo.popleft()
        for t in sorted(edges.get(k, ())):
            if t not in parents and t != start:
                parents[t] = k
                if t == goal:
                    path = [goal]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return path[::-1]
                todo.append(t)
    return [start, goal]


def _check_join_satisfiable(
    g: Graph, j: Join, edges: Mapping[str, set[str]], roots: Sequence[str]
) -> None:
    """A source reachable only through the join's own target can never complete before the
    join fires the first time: the barrier could never fill."""
    if isinstance(j.fire, AnyOf):
        return
    without_target = _reach(edges, roots, avoid=j.target)
    for s in j.sources:
        if s == j.target:
            # the target is a source of its own join (``[a, t] -> t``): it completes before
            # the join's first firing if some other route activates it
            others = _adjacency(g, without=j)
            if j.target in roots or any(j.target in others[k] for k in without_target):
                continue
        if s not in without_target:
            path = " -> ".join(_path(edges, j.target, s))
            raise GraphValidationError(
                f"join {j.name!r} can never fire: source {s!r} is only reachable through the "
                f"join's own target ({path})"
            )


def _close(key: str, names: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(key, list(names), n=3)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
