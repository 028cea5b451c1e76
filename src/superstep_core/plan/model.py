"""The values of a plan: `Dependency`, `Step` and `Workflow`, and the errors that refuse a plan.

Every value is frozen and checks itself when it is built, so a `Workflow` assembled in code is
as valid as one read from a document: unique step ids, dependencies on known steps and at most
one edge per pair, compensations of known forward steps, integer estimates, no cycle. Lists are
normalised (steps, dependencies and ``requires`` sorted), so two plans that differ only in the
order of their lists are equal and give equal results everywhere.

Pure: no I/O, no clock, no randomness, no callbacks. Must never import the engine (graph,
runtime, host, persistence, checkpoint) nor `superstep_core.plan.runner`.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

__all__ = [
    "WHENS",
    "CycleError",
    "Dependency",
    "Step",
    "When",
    "Workflow",
    "WorkflowError",
    "checked_minor",
    "estimate_of",
    "quote",
]

When: TypeAlias = Literal["succeeded", "failed", "always"]
"""On which outcome of its dependency an edge is satisfied."""

WHENS: tuple[When, ...] = ("succeeded", "failed", "always")


class WorkflowError(ValueError):
    """A plan that cannot run: the message names the step, edge or field and what to change."""


class CycleError(WorkflowError):
    """The plan's dependencies form a cycle. ``cycle`` is the closed path, each arrow reading
    "depends on", starting and ending at its smallest id: ``["a", "b", "c", "a"]``; the message
    is ``dependency cycle: a -> b -> c -> a``."""

    def __init__(self, cycle: list[str]) -> None:
        self.cycle = list(cycle)
        super().__init__("dependency cycle: " + " -> ".join(self.cycle))


def quote(text: str) -> str:
    """``text`` in double quotes (inner quotes escaped), as ids appear in every message."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def checked_minor(value: object, where: str) -> int:
    """``value`` as an amount of minor units (cents for EUR): an ``int`` >= 0, never a bool
    or a float. Raises `WorkflowError` naming ``where``."""
    if type(value) is not int or value < 0:
        raise WorkflowError(
            f"{where}: estimateMinor must be a non-negative integer of minor units (12.50 EUR "
            f"is 1250), got {value!r} ({type(value).__name__})"
        )
    return value


def estimate_of(step: Step) -> int:
    """The step's estimate in minor units, 0 when unknown; checked again here, so a step
    whose estimate was swapped for a non-integer after validation is still refused."""
    if step.estimate_minor is None:
        return 0
    return checked_minor(step.estimate_minor, f"step {quote(step.id)}")


def _name(value: object, where: str, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise WorkflowError(f"{where}: {what} must be a non-empty string, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Dependency:
    """An edge: the step that holds it runs only once step ``id`` settled with an outcome
    that ``when`` accepts (``"succeeded"``, ``"failed"``, or ``"always"``: either)."""

    id: str
    when: When = "succeeded"

    def __post_init__(self) -> None:
        _name(self.id, "dependency", '"id"')
        if self.when not in WHENS:
            raise WorkflowError(
                f"dependency on {quote(self.id)}: when must be one of "
                f"{', '.join(map(quote, WHENS))}, got {self.when!r}"
            )

    def as_document(self) -> str | dict[str, str]:
        """The document form: the bare id when ``when`` is ``"succeeded"``."""
        return self.id if self.when == "succeeded" else {"id": self.id, "when": self.when}


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a plan. ``kind`` names the handler that performs it; ``input`` is handed
    to that handler untouched (any JSON value); ``requires`` names capabilities the step
    needs (free-form, for the handler and for people); ``estimate_minor`` is its cost in
    minor units (``None``: unknown); ``depends_on`` its edges; ``compensates`` the id of the
    forward step it undoes (a compensating step runs only when a failed run is undone).

    Raises `WorkflowError` naming the step for a bad field, or two edges to one step."""

    id: str
    kind: str
    input: Any = None
    requires: tuple[str, ...] = ()
    estimate_minor: int | None = None
    depends_on: tuple[Dependency, ...] = ()
    compensates: str | None = None

    def __post_init__(self) -> None:
        _name(self.id, "step", '"id"')
        where = f"step {quote(self.id)}"
        _name(self.kind, where, '"kind"')
        requires = _strings(self.requires, where, '"requires"')
        if len(set(requires)) != len(requires):
            twice = sorted({r for r in requires if requires.count(r) > 1})
            raise WorkflowError(f"{where}: requires lists {quote(twice[0])} twice")
        object.__setattr__(self, "requires", tuple(sorted(requires)))
        if self.estimate_minor is not None:
            checked_minor(self.estimate_minor, where)
        deps = self.depends_on
        if isinstance(deps, str | bytes) or not isinstance(deps, Iterable):
            raise WorkflowError(f"{where}: dependsOn must be a list, got {deps!r}")
        deps = tuple(deps)
        for dep in deps:
            if not isinstance(dep, Dependency):
                raise WorkflowError(f"{where}: dependsOn holds {dep!r}, not a Dependency")
        seen: set[str] = set()
        for dep in deps:
            if dep.id in seen:
                raise WorkflowError(
                    f"{where} depends on {quote(dep.id)} twice (duplicate edge): keep one, "
                    f'with the "when" it needs'
                )
            seen.add(dep.id)
        object.__setattr__(self, "depends_on", tuple(sorted(deps, key=lambda d: d.id)))
        if self.compensates is not None:
            _name(self.compensates, where, '"compensates"')
            if self.compensates == self.id:
                raise WorkflowError(f"{where} compensates itself: name the step it undoes")

    @property
    def is_compensation(self) -> bool:
        """Whether this step undoes another (it never runs forward)."""
        return self.compensates is not None

    def as_document(self) -> dict[str, Any]:
        """The document form (camelCase keys; absent optional fields left out)."""
        doc: dict[str, Any] = {"id": self.id, "kind": self.kind}
        if self.input is not None:
            doc["input"] = self.input
        if self.requires:
            doc["requires"] = list(self.requires)
        if self.estimate_minor is not None:
            doc["estimateMinor"] = self.estimate_minor
        if self.depends_on:
            doc["dependsOn"] = [d.as_document() for d in self.depends_on]
        if self.compensates is not None:
            doc["compensates"] = self.compensates
        return doc


def _strings(value: object, where: str, what: str) -> tuple[str, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise WorkflowError(f"{where}: {what} must be a list of strings, got {value!r}")
    items = tuple(value)
    for item in items:
        _name(item, where, f"each entry of {what}")
    return items


@dataclass(frozen=True)
class Workflow:
    """A validated plan (build one with `validate_workflow`, or from `Step` values).

    ``steps`` are kept sorted by id. Derived, read-only: ``by_id`` (id -> `Step`),
    ``forward`` (ids of the steps that are not compensations, in a deterministic topological
    order: dependencies first, ties by id), ``dependents`` (id -> ids of the steps that
    depend on it), ``compensated_by`` (forward id -> ids of the steps that compensate it).

    A compensating step takes no dependencies, no step depends on one, and it undoes a
    forward step; so a plan always has a forward step.

    Raises `WorkflowError` (duplicate ids, unknown or misplaced edges and compensations) or
    `CycleError`, naming the culprit."""

    steps: tuple[Step, ...]
    by_id: Mapping[str, Step] = field(init=False, repr=False, compare=False)
    forward: tuple[str, ...] = field(init=False, repr=False, compare=False)
    dependents: Mapping[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    compensated_by: Mapping[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        steps = self.steps
        if isinstance(steps, str | bytes) or not isinstance(steps, Iterable):
            raise WorkflowError(f"a plan's steps must be a list of steps, got {steps!r}")
        steps = tuple(steps)
        for step in steps:
            if not isinstance(step, Step):
                raise WorkflowError(f"a plan's steps must be Step values, got {step!r}")
        by_id: dict[str, Step] = {}
        for step in steps:
            if step.id in by_id:
                raise WorkflowError(
                    f"step id {quote(step.id)} is used by more than one step: ids must be unique"
                )
            by_id[step.id] = step
        ordered = tuple(sorted(steps, key=lambda s: s.id))
        _check_edges(ordered, by_id)
        dependents: dict[str, list[str]] = {s.id: [] for s in ordered}
        compensated_by: dict[str, list[str]] = {}
        for step in ordered:
            for dep in step.depends_on:
                dependents[dep.id].append(step.id)
            if step.compensates is not None:
                compensated_by.setdefault(step.compensates, []).append(step.id)
        _check_acyclic(ordered)
        object.__setattr__(self, "steps", ordered)
        object.__setattr__(self, "by_id", MappingProxyType(by_id))
        object.__setattr__(self, "forward", _topological(ordered))
        object.__setattr__(
            self, "dependents", MappingProxyType({k: tuple(v) for k, v in dependents.items()})
        )
        object.__setattr__(
            self,
            "compensated_by",
            MappingProxyType({k: tuple(v) for k, v in compensated_by.items()}),
        )

    def as_document(self) -> dict[str, Any]:
        """The plan as a JSON-shaped document (``validate_workflow`` of it gives an equal
        `Workflow`)."""
        return {"steps": [s.as_document() for s in self.steps]}


def _unknown(name: str, known: Mapping[str, Step]) -> str:
    close = get_close_matches(name, sorted(known), n=1)
    return f" (did you mean {quote(close[0])}?)" if close else ""


def _check_edges(steps: tuple[Step, ...], by_id: Mapping[str, Step]) -> None:
    for step in steps:
        where = f"step {quote(step.id)}"
        for dep in step.depends_on:
            target = by_id.get(dep.id)
            if target is None:
                raise WorkflowError(
                    f"{where} depends on unknown step {quote(dep.id)}{_unknown(dep.id, by_id)}"
                )
            if target.is_compensation:
                raise WorkflowError(
                    f"{where} depends on {quote(dep.id)}, a compensating step (it runs only "
                    f"when a failed run is undone): depend on a forward step"
                )
        if step.compensates is None:
            continue
        undone = by_id.get(step.compensates)
        if undone is None:
            raise WorkflowError(
                f"{where} compensates unknown step {quote(step.compensates)}"
                f"{_unknown(step.compensates, by_id)}"
            )
        if undone.is_compensation:
            raise WorkflowError(
                f"{where} compensates {quote(undone.id)}, which is itself a compensating step: "
                f"compensate the forward step it undoes"
            )
        if step.depends_on:
            raise WorkflowError(
                f"{where} compensates {quote(undone.id)} and has dependsOn: a compensating step "
                f"runs only when a failed run is undone, after the steps that depend on "
                f"{quote(undone.id)}, so it takes no dependencies"
            )


def _check_acyclic(steps: tuple[Step, ...]) -> None:
    """Raise `CycleError` for the first cycle a depth-first walk meets (roots and edges in
    id order, so the same plan always names the same cycle)."""
    by_id = {s.id: s for s in steps}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for root in by_id:
        if root in state:
            continue
        path: list[str] = [root]
        state[root] = 1
        todo = [iter(by_id[root].depends_on)]
        while todo:
            dep = next(todo[-1], None)
            if dep is None:
                state[path.pop()] = 2
                todo.pop()
                continue
            mark = state.get(dep.id)
            if mark == 1:
                loop = path[path.index(dep.id) :]
                start = loop.index(min(loop))
                loop = loop[start:] + loop[:start]
                raise CycleError([*loop, loop[0]])
            if mark is None:
                state[dep.id] = 1
                path.append(dep.id)
                todo.append(iter(by_id[dep.id].depends_on))


def _topological(steps: tuple[Step, ...]) -> tuple[str, ...]:
    """Forward step ids, dependencies before dependents, ready ties taken by smallest id."""
    waiting = {s.id: len(s.depends_on) for s in steps if not s.is_compensation}
    dependents: dict[str, list[str]] = {}
    for s in steps:
        for dep in s.depends_on:
            dependents.setdefault(dep.id, []).append(s.id)
    return smallest_first_order(waiting, dependents)


def smallest_first_order(
    waiting: dict[str, int], released_by: Mapping[str, Iterable[str]]
) -> tuple[str, ...]:
    """Every id of ``waiting`` (id -> how many others must come first), each after those it
    waits on; when several are free, the smallest id first. ``released_by[id]``: the ids
    that each wait one less once ``id`` is placed. ``waiting`` is consumed."""
    heap = [sid for sid, n in waiting.items() if n == 0]
    heapq.heapify(heap)
    order: list[str] = []
    while heap:
        sid = heapq.heappop(heap)
        order.append(sid)
        for after in released_by.get(sid, ()):
            waiting[after] -= 1
            if waiting[after] == 0:
                heapq.heappush(heap, after)
    return tuple(order)
