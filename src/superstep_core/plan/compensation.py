"""Undoing a failed run: which succeeded steps to compensate, by which compensating step, in
which order. It only computes; running the compensations is the caller's business (the
engine's runner does it as ordinary, recorded steps).

Pure: no I/O, no clock, no randomness, no callbacks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from superstep_core.plan.document import validate_workflow
from superstep_core.plan.model import Workflow, smallest_first_order
from superstep_core.plan.state import PlanState, as_state

__all__ = ["Compensation", "compensation_plan", "undo_order"]


@dataclass(frozen=True, slots=True)
class Compensation:
    """Undo forward step ``step_id`` by running step ``compensated_by``."""

    step_id: str
    compensated_by: str

    def as_document(self) -> dict[str, str]:
        return {"step_id": self.step_id, "compensated_by": self.compensated_by}


def undo_order(plan: Workflow) -> tuple[str, ...]:
    """Every forward step id, dependents before what they depend on (a reverse topological
    order over all edges, whatever their ``when``), ties taken by smallest id."""
    pending = {sid: len(plan.dependents[sid]) for sid in plan.forward}
    dependencies = {sid: [d.id for d in plan.by_id[sid].depends_on] for sid in plan.forward}
    return smallest_first_order(pending, dependencies)


def compensation_plan(
    plan: Workflow | Mapping[str, Any], state: PlanState | Mapping[str, Iterable[str]]
) -> tuple[Compensation, ...]:
    """The compensations still to perform, in the order to perform them: one entry per
    (succeeded forward step, step that compensates it), in `undo_order`; several compensating
    steps of one step by id. An entry whose compensating step already succeeded is done and
    left out; one that failed or is in flight stays. Steps that failed or never ran have
    nothing to undo. Raises `WorkflowError` / `StateError` for a bad plan or state."""
    workflow = validate_workflow(plan)
    current = as_state(state, workflow)
    return tuple(
        Compensation(sid, by)
        for sid in undo_order(workflow)
        if sid in current.succeeded
        for by in workflow.compensated_by.get(sid, ())
        if by not in current.succeeded
    )
