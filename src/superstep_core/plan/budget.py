"""The budget ceiling: which ready steps may start without the run's estimated spending
passing ``max_cost_minor``, and the halt when one may not.

Spending is the sum of the estimates of every step that started (succeeded, failed or in
flight; compensations included; unknown estimates count 0). Ready steps are admitted in id
order while the running total stays within the ceiling. The first step that does not fit
halts the run: it and every ready step after it never start, and no step starts later either,
even one that would fit, because a ready step that no longer fits stays ready and over
budget (spending only grows). Compensations are never refused: undoing is not optional.

Pure: no I/O, no clock, no randomness, no callbacks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from superstep_core.plan.model import Workflow, WorkflowError, estimate_of, quote
from superstep_core.plan.state import PlanState

__all__ = ["BudgetHalt", "admit", "checked_ceiling", "spent_minor"]


@dataclass(frozen=True, slots=True)
class BudgetHalt:
    """The run halted before ``step``: its estimate ``estimate_minor`` is more than what is
    left of ``ceiling_minor`` after ``spent_minor`` (the started steps, plus the steps
    admitted beside this one), all in minor units."""

    step: str
    estimate_minor: int
    spent_minor: int
    ceiling_minor: int

    @property
    def left_minor(self) -> int:
        return max(self.ceiling_minor - self.spent_minor, 0)

    @property
    def reason(self) -> str:
        return (
            f"step {quote(self.step)} would cost {self.estimate_minor} minor units, but only "
            f"{self.left_minor} of the budget of {self.ceiling_minor} are left"
        )

    def as_document(self) -> dict[str, object]:
        return {
            "step": self.step,
            "estimate_minor": self.estimate_minor,
            "spent_minor": self.spent_minor,
            "left_minor": self.left_minor,
            "ceiling_minor": self.ceiling_minor,
            "reason": self.reason,
        }


def checked_ceiling(value: object) -> int:
    """``max_cost_minor`` as an ``int`` >= 0; raises `WorkflowError` otherwise."""
    if type(value) is not int or value < 0:
        raise WorkflowError(
            f"max_cost_minor must be a non-negative integer of minor units, got {value!r}"
        )
    return value


def spent_minor(plan: Workflow, state: PlanState) -> int:
    """The estimates of every started step, summed (minor units)."""
    return sum(estimate_of(plan.by_id[sid]) for sid in sorted(state.started))


def admit(
    plan: Workflow, ready: Sequence[str], spent: int, ceiling: int
) -> tuple[tuple[str, ...], BudgetHalt | None]:
    """The ready steps (ids, sorted) that may start, and the halt if some may not.

    A ready step whose estimate alone exceeds what is left halts the run outright (nothing
    more starts); otherwise steps are admitted in order until the next would not fit."""
    left = ceiling - spent
    for sid in ready:
        cost = estimate_of(plan.by_id[sid])
        if cost > left:
            return (), BudgetHalt(sid, cost, spent, ceiling)
    admitted: list[str] = []
    for sid in ready:
        cost = estimate_of(plan.by_id[sid])
        if cost > left:
            return tuple(admitted), BudgetHalt(sid, cost, ceiling - left, ceiling)
        admitted.append(sid)
        left -= cost
    return tuple(admitted), None
