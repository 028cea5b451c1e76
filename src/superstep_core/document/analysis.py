"""The shape of a document's graph, as the validator and the compiler both need it: successor
groups, reachability, loops without a condition, which nodes run in parallel branches, and
which nodes join parallel branches.

Parallel branches: the edges of one node that leave together (every edge of a tool, llm or
human node, and of ``start``; the edges of a condition node that share a label) start
branches that run side by side. Nodes reachable from one such branch and not from its sibling
(without passing back through the forking node) run in parallel with the sibling's own nodes.
A node that parallel branches lead into is a join: it runs once, after all of them arrived.

Must never import the runtime, the host, the llm layer or compat.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from superstep_core.document.model import END, START, Document

__all__ = ["Fork", "Shape", "describe_path", "shape"]


@dataclass(frozen=True, slots=True)
class Fork:
    """Two branches leaving ``node`` together: ``first`` and ``second`` are their first
    nodes."""

    node: str
    first: str
    second: str


@dataclass(slots=True)
class Shape:
    """What `shape` found. ``successors``: node (or ``start``) -> targets in edge order
    (``end`` included); ``groups``: node -> lists of targets that leave together;
    ``parallel``: unordered node pairs -> the fork that makes them parallel; ``joins``: node
    -> its predecessors it waits for (in edge order); ``conditional``: join -> sources whose
    arrival a condition decides (a join cannot wait for those); ``reentries``: node -> (fork,
    predecessor) for a node that both branches reach but only one enters from its own side:
    it would run twice, once beside the other branch (this also catches a loop that goes
    back below a fork, which makes the branches' nodes reachable from each other);
    ``fork_groups``: parallel pair -> every (node, index into its ``groups``) whose group
    starts both; ``bypassed``: join -> (source, fork node) for a source that some path from
    ``start`` reaches without passing through any group that starts it together with the
    join's other sources (a condition's other label, or an edge from outside the fork): on
    that path the source runs alone and the join waits forever for its siblings."""

    successors: dict[str, list[str]] = field(default_factory=dict)
    predecessors: dict[str, list[str]] = field(default_factory=dict)
    groups: dict[str, list[list[str]]] = field(default_factory=dict)
    conditions: frozenset[str] = frozenset()
    parallel: dict[frozenset[str], Fork] = field(default_factory=dict)
    joins: dict[str, list[str]] = field(default_factory=dict)
    conditional: dict[str, list[str]] = field(default_factory=dict)
    reentries: dict[str, tuple[Fork, str]] = field(default_factory=dict)
    fork_groups: dict[frozenset[str], list[tuple[str, int]]] = field(default_factory=dict)
    bypassed: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def reach(self, roots: Iterable[str], *, avoid: str = "") -> set[str]:
        """Nodes reachable from ``roots`` (themselves included), never entering ``avoid``."""
        seen: set[str] = set()
        todo = deque(r for r in roots if r != avoid and r != END)
        while todo:
            n = todo.popleft()
            if n in seen:
                continue
            seen.add(n)
            todo.extend(t for t in self.successors.get(n, ()) if t not in (avoid, END))
        return seen

    def loop_without_condition(self) -> list[str] | None:
        """A cycle through no condition node, as a path ``[a, b, ..., a]``, or ``None``."""
        plain = {
            n: [t for t in ts if t not in self.conditions and t not in (END, START)]
            for n, ts in self.successors.items()
            if n not in self.conditions and n != START
        }
        # depth-first with an explicit stack (a chain of thousands of nodes is a valid
        # document): grey nodes are on the current path, black ones are done
        colour: dict[str, int] = {}
        for root in sorted(plain):
            if root in colour:
                continue
            colour[root] = 1
            path = [root]
            pending = [iter(plain.get(root, ()))]
            while pending:
                for t in pending[-1]:
                    if colour.get(t) == 1:
                        return [*path[path.index(t) :], t]
                    if t not in colour:
                        colour[t] = 1
                        path.append(t)
                        pending.append(iter(plain.get(t, ())))
                        break
                else:
                    colour[path.pop()] = 2
                    pending.pop()
        return None


def shape(doc: Document) -> Shape:
    """Analyse ``doc``'s edges (edges to unknown nodes are ignored: the validator reports
    them)."""
    known = {n.id for n in doc.nodes} | {START, END}
    conditions = frozenset(n.id for n in doc.nodes if n.type == "condition")
    s = Shape(conditions=conditions)
    labelled: dict[str, dict[str, list[str]]] = {}
    for e in doc.edges:
        if e.source not in known or e.target not in known:
            continue
        targets = s.successors.setdefault(e.source, [])
        if e.target not in targets:
            targets.append(e.target)
        preds = s.predecessors.setdefault(e.target, [])
        if e.source not in preds:
            preds.append(e.source)
        if e.source in conditions:
            group = labelled.setdefault(e.source, {}).setdefault(e.label or "", [])
            if e.target not in group:
                group.append(e.target)
    for source, targets in s.successors.items():
        if source in conditions:
            s.groups[source] = list(labelled.get(source, {}).values())
        else:
            s.groups[source] = [targets]
    _parallel(s)
    _joins(s)
    return s


def _parallel(s: Shape) -> None:
    for fork, groups in s.groups.items():
        for index, group in enumerate(groups):
            branches = [t for t in group if t != END]
            for i, first in enumerate(branches):
                for second in branches[i + 1 :]:
                    a = s.reach([first], avoid=fork)
                    b = s.reach([second], avoid=fork)
                    found = Fork(fork, first, second)
                    for u in a - b:
                        for v in b - a:
                            pair = frozenset((u, v))
                            s.parallel.setdefault(pair, found)
                            starts = s.fork_groups.setdefault(pair, [])
                            if (fork, index) not in starts:
                                starts.append((fork, index))
                    _merge_checks(s, found, a, b)


def _merge_checks(s: Shape, fork: Fork, a: set[str], b: set[str]) -> None:
    """Where two parallel branches ``a`` and ``b`` (node sets) meet, they must meet in a join:
    a node both reach that is entered from one branch's own nodes must be entered from the
    other's too."""
    merged, only_a, only_b = a & b, a - b, b - a
    for m in sorted(merged):
        preds = s.predecessors.get(m, [])
        from_a = [p for p in preds if p in only_a]
        from_b = [p for p in preds if p in only_b]
        if bool(from_a) != bool(from_b):
            s.reentries.setdefault(m, (fork, (from_a or from_b)[0]))


def _joins(s: Shape) -> None:
    for node, preds in s.predecessors.items():
        if node == END:
            continue
        sources = [
            p for p in preds if any(frozenset((p, q)) in s.parallel for q in preds if q != p)
        ]
        if len(sources) < 2:
            continue
        s.joins[node] = sources
        conditional: list[str] = []
        for p in sources:
            fork = next(
                s.parallel[frozenset((p, q))]
                for q in sources
                if q != p and frozenset((p, q)) in s.parallel
            )
            if p not in _before_conditions(s, _branch_of(s, fork, p), fork.node):
                conditional.append(p)
        if conditional:
            s.conditional[node] = conditional
        bypassed: list[tuple[str, str]] = []
        for p in sources:
            starts = {
                start
                for q in sources
                if q != p
                for start in s.fork_groups.get(frozenset((p, q)), ())
            }
            if p in _reach_without(s, starts):
                fork = next(
                    s.parallel[frozenset((p, q))]
                    for q in sources
                    if q != p and frozenset((p, q)) in s.parallel
                )
                bypassed.append((p, fork.node))
        if bypassed:
            s.bypassed[node] = bypassed


def _reach_without(s: Shape, skipped: set[tuple[str, int]]) -> set[str]:
    """Nodes reachable from ``start`` never following a group in ``skipped`` ((node, index
    into its ``groups``)): where a join's source is among them, it can run without the
    branches it is joined with."""
    seen: set[str] = set()
    todo = deque([START])
    while todo:
        n = todo.popleft()
        if n in seen or n == END:
            continue
        seen.add(n)
        for index, group in enumerate(s.groups.get(n, ())):
            if (n, index) not in skipped:
                todo.extend(group)
    return seen


def _branch_of(s: Shape, fork: Fork, p: str) -> str:
    return fork.first if p in s.reach([fork.first], avoid=fork.node) else fork.second


def _before_conditions(s: Shape, first: str, fork: str) -> set[str]:
    """Nodes reachable from ``first`` on paths through no condition node (a condition
    decides whether what follows it runs)."""
    seen: set[str] = set()
    todo = deque([first])
    while todo:
        n = todo.popleft()
        if n in seen or n in s.conditions or n in (END, fork):
            continue
        seen.add(n)
        todo.extend(s.successors.get(n, ()))
    return seen


def describe_path(path: list[str], names: Mapping[str, str] | None = None) -> str:
    """``a -> b -> a`` (with labels from ``names`` when given)."""
    return " -> ".join((names or {}).get(p, p) for p in path)
