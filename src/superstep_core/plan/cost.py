"""What a plan costs: the total of its estimates and its critical path, in integer minor
units of one currency. No float exists here: money is an ``int`` of minor units (cents for
EUR) with its currency.

Pure: no I/O, no clock, no randomness, no callbacks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from superstep_core.plan.document import validate_workflow
from superstep_core.plan.model import Workflow, estimate_of

__all__ = ["CostEstimate", "Money", "estimate_cost"]


@dataclass(frozen=True, slots=True)
class Money:
    """``amount_minor`` minor units of ``currency`` (an ISO 4217 code such as ``"EUR"``).
    Raises ``ValueError`` for an amount that is not an ``int`` or a malformed currency."""

    amount_minor: int
    currency: str

    def __post_init__(self) -> None:
        if type(self.amount_minor) is not int:
            raise ValueError(
                f"Money.amount_minor must be an integer of minor units, got "
                f"{self.amount_minor!r} ({type(self.amount_minor).__name__})"
            )
        currency = self.currency
        if not (
            isinstance(currency, str)
            and len(currency) == 3
            and currency.isascii()
            and currency.isalpha()
            and currency.isupper()
        ):
            raise ValueError(
                f"currency must be an ISO 4217 code of three capital letters such as 'EUR', "
                f"got {currency!r}"
            )

    def as_document(self) -> dict[str, object]:
        return {"amount_minor": self.amount_minor, "currency": self.currency}


@dataclass(frozen=True, slots=True)
class CostEstimate:
    """``total``: every step's estimate (compensations included) summed; ``critical_path``:
    the most expensive chain of dependencies (from a step with none to a step nothing depends
    on), whose ids, first to last, are ``critical_path_ids``; ``unknown_steps``: the steps
    without an estimate (counted 0)."""

    total: Money
    critical_path: Money
    critical_path_ids: tuple[str, ...]
    unknown_steps: tuple[str, ...]

    def as_document(self) -> dict[str, object]:
        return {
            "total": self.total.as_document(),
            "critical_path": self.critical_path.as_document(),
            "critical_path_ids": list(self.critical_path_ids),
            "unknown_steps": list(self.unknown_steps),
        }


def estimate_cost(plan: Workflow | Mapping[str, Any], *, currency: str) -> CostEstimate:
    """The worst-case cost of ``plan`` in ``currency``: conditions are ignored (every step
    counts, ``when: "failed"`` branches and compensations too). Each estimate is checked again
    here (a non-integer raises `WorkflowError`), for plans assembled in code. Of equally
    expensive chains the critical path is the one whose ids come first in order."""
    workflow = validate_workflow(plan)
    cost = {s.id: estimate_of(s) for s in workflow.steps}
    best: dict[str, tuple[int, tuple[str, ...]]] = {}
    for sid in workflow.forward:
        chains = [best[d.id] for d in workflow.by_id[sid].depends_on]
        before = min(chains, key=_dearest) if chains else (0, ())
        best[sid] = (before[0] + cost[sid], (*before[1], sid))
    for step in workflow.steps:
        if step.is_compensation:
            best[step.id] = (cost[step.id], (step.id,))
    # Only whole chains (ending at a step nothing depends on): with zero estimates a prefix
    # can cost as much as the whole chain, and the whole chain is the one to show.
    ends = [chain for sid, chain in best.items() if not workflow.dependents[sid]]
    amount, path = min(ends, key=_dearest)
    return CostEstimate(
        total=Money(sum(cost.values()), currency),
        critical_path=Money(amount, currency),
        critical_path_ids=path,
        unknown_steps=tuple(s.id for s in workflow.steps if s.estimate_minor is None),
    )


def _dearest(chain: tuple[int, tuple[str, ...]]) -> tuple[int, tuple[str, ...]]:
    return (-chain[0], chain[1])
