"""Reading the plan document: ``{"steps": [{"id", "kind", "input"?, "requires"?,
"estimateMinor"?, "dependsOn"?, "compensates"?}]}`` into a frozen `Workflow`.

The document is JSON, or the same shape as Python values (any `Mapping`, any list or tuple).
A ``dependsOn`` item is a bare id (``"fetch"``, short for ``{"id": "fetch", "when":
"succeeded"}``) or ``{"id": ..., "when": "succeeded" | "failed" | "always"}``. Every refusal
names where it is (``steps[2]``, then the step's id once known) and what to change.

Pure: no I/O, no clock, no randomness, no callbacks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from difflib import get_close_matches
from typing import Any

from superstep_core.plan.model import (
    Dependency,
    Step,
    Workflow,
    WorkflowError,
    checked_minor,
    quote,
)

__all__ = ["PLAN_KEYS", "STEP_KEYS", "is_plan_document", "validate_workflow"]

PLAN_KEYS = ("steps",)
"""The keys of a plan document (exactly these)."""

STEP_KEYS = ("id", "kind", "input", "requires", "estimateMinor", "dependsOn", "compensates")
"""The keys a step may have (``id`` and ``kind`` are required)."""

_DEPENDENCY_KEYS = ("id", "when")


def is_plan_document(doc: object) -> bool:
    """Whether ``doc`` has the shape of a plan document (a mapping whose keys are exactly
    ``steps``), as opposed to another JSON document (a workflow document has ``nodes``)."""
    return isinstance(doc, Mapping) and set(doc) == set(PLAN_KEYS)


def validate_workflow(doc: Mapping[str, Any] | Workflow) -> Workflow:
    """The frozen `Workflow` of plan document ``doc`` (a `Workflow` is returned as it is: it
    was validated when built).

    Refuses, before anything can run, with `WorkflowError` naming the culprit: a key that is
    not part of the format, a missing or mistyped field, duplicate step ids, duplicate edges,
    an edge to an unknown step, a ``compensates`` naming an unknown step or itself, an
    ``estimateMinor`` that is not a non-negative integer; and with `CycleError` (a
    `WorkflowError`) for a dependency cycle, whose message is the closed path."""
    if isinstance(doc, Workflow):
        return doc
    if not isinstance(doc, Mapping):
        raise WorkflowError(
            f'a plan is an object {{"steps": [...]}}, got {type(doc).__name__}: {doc!r:.60}'
        )
    extra = sorted(str(k) for k in doc if k not in PLAN_KEYS)
    if extra:
        raise WorkflowError(
            f"plan: unknown key {quote(extra[0])}{_hint(extra[0], PLAN_KEYS)}: a plan document "
            f'has only "steps"'
        )
    if "steps" not in doc:
        raise WorkflowError('plan: "steps" is missing (a list of steps)')
    steps = doc["steps"]
    if not _is_list(steps):
        raise WorkflowError(f'plan: "steps" must be a list of steps, got {steps!r:.60}')
    if not steps:
        raise WorkflowError('plan: "steps" is empty: a plan needs at least one step')
    return Workflow(tuple(_step(i, raw) for i, raw in enumerate(steps)))


def _is_list(value: object) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _hint(key: str, known: Sequence[str]) -> str:
    close = get_close_matches(key, list(known), n=1, cutoff=0.5)
    return f" (did you mean {quote(close[0])}?)" if close else ""


def _step(index: int, raw: object) -> Step:
    where = f"steps[{index}]"
    if not isinstance(raw, Mapping):
        raise WorkflowError(f"{where}: a step is an object with id and kind, got {raw!r:.60}")
    step_id = raw.get("id")
    if not isinstance(step_id, str) or not step_id:
        raise WorkflowError(f'{where}: "id" must be a non-empty string, got {step_id!r}')
    where = f"step {quote(step_id)}"
    extra = sorted(str(k) for k in raw if k not in STEP_KEYS)
    if extra:
        raise WorkflowError(
            f"{where}: unknown key {quote(extra[0])}{_hint(extra[0], STEP_KEYS)}; a step has "
            f"{', '.join(STEP_KEYS)}"
        )
    kind = raw.get("kind")
    if not isinstance(kind, str) or not kind:
        raise WorkflowError(f'{where}: "kind" must be a non-empty string, got {kind!r}')
    requires = raw.get("requires", ())
    if not _is_list(requires):
        raise WorkflowError(f'{where}: "requires" must be a list of strings, got {requires!r}')
    estimate = raw.get("estimateMinor")
    if estimate is not None:
        checked_minor(estimate, where)
    depends_on = raw.get("dependsOn", ())
    if not _is_list(depends_on):
        raise WorkflowError(f'{where}: "dependsOn" must be a list, got {depends_on!r:.60}')
    return Step(
        id=step_id,
        kind=kind,
        input=raw.get("input"),
        requires=tuple(requires),
        estimate_minor=estimate,
        depends_on=tuple(_dependency(where, item) for item in depends_on),
        compensates=raw.get("compensates"),
    )


def _dependency(where: str, item: object) -> Dependency:
    if isinstance(item, str):
        return Dependency(item) if item else _bad_dependency(where, item)
    if not isinstance(item, Mapping):
        return _bad_dependency(where, item)
    extra = sorted(str(k) for k in item if k not in _DEPENDENCY_KEYS)
    if extra:
        raise WorkflowError(
            f"{where}: dependsOn item {dict(item)!r:.60} has unknown key {quote(extra[0])}; an "
            f'item is an id or {{"id": ..., "when": ...}}'
        )
    dep_id = item.get("id")
    if not isinstance(dep_id, str) or not dep_id:
        return _bad_dependency(where, item)
    when = item.get("when", "succeeded")
    try:
        return Dependency(dep_id, when)
    except WorkflowError as e:
        raise WorkflowError(f"{where}: {e}") from None


def _bad_dependency(where: str, item: object) -> Dependency:
    raise WorkflowError(
        f'{where}: a dependsOn item is a step id or {{"id": ..., "when": "succeeded" | '
        f'"failed" | "always"}}, got {item!r:.60}'
    )
