"""The budget ceiling: ready steps are admitted in id order while the estimated spending fits;
the first that does not halts the run (status blocked, a reason naming the step and amounts)."""

from __future__ import annotations

from typing import Any

import pytest

from superstep_core.plan import (
    BudgetHalt,
    WorkflowError,
    ready_steps,
    validate_workflow,
    workflow_status,
)
from superstep_core.plan.model import Workflow


def build(**estimates: int | None) -> Workflow:
    """Independent steps with the given estimates, plus ``after_<id>`` depending on each."""
    steps: list[dict[str, Any]] = []
    for sid, cost in estimates.items():
        doc: dict[str, Any] = {"id": sid, "kind": "work"}
        if cost is not None:
            doc["estimateMinor"] = cost
        steps.append(doc)
        steps.append({"id": f"after_{sid}", "kind": "work", "dependsOn": [sid], "estimateMinor": 1})
    return validate_workflow({"steps": steps})


def test_without_a_ceiling_every_ready_step_is_admitted() -> None:
    assert ready_steps(build(a=500, b=500), {}) == ("a", "b")


def test_ready_steps_are_admitted_in_id_order_while_they_fit() -> None:
    assert ready_steps(build(a=40, b=40, c=40), {}, max_cost_minor=100) == ("a", "b")


def test_the_step_that_does_not_fit_halts_the_run_naming_the_amounts() -> None:
    report = workflow_status(build(a=40, b=40, c=40), {}, max_cost_minor=100)
    assert report.status == "running"
    assert report.halted == BudgetHalt("c", 40, 80, 100)
    assert report.halted.reason == (
        'step "c" would cost 40 minor units, but only 20 of the budget of 100 are left'
    )


def test_a_halted_run_ends_blocked_and_its_steps_are_unreachable() -> None:
    report = workflow_status(build(a=40, b=40, c=40), {"succeeded": ["a", "b"]}, max_cost_minor=100)
    assert report.status == "blocked"
    assert report.reason == (
        '4 steps can never run: step "c" would cost 40 minor units, but only 20 of the budget '
        "of 100 are left"
    )
    assert {u.id: u.because for u in report.unreachable} == {
        "after_a": "c",
        "after_b": "c",
        "c": "c",
        "after_c": "c",
    }


def test_no_step_starts_after_a_halt_even_one_that_would_fit() -> None:
    wf = build(big=90, small=5)
    report = workflow_status(wf, {}, max_cost_minor=50)
    assert report.ready == ()
    assert report.halted == BudgetHalt("big", 90, 0, 50)
    assert [(u.id, u.reason) for u in report.unreachable if u.id == "small"] == [
        ("small", 'step "small" cannot start: the budget ran out before "big"')
    ]


def test_dependents_of_a_refused_step_name_the_budget_as_their_cause() -> None:
    report = workflow_status(build(big=90), {}, max_cost_minor=50)
    assert report.unreachable[-1].reason == (
        'step "after_big" needs "big", which can never run: the budget ran out before "big"'
    )


def test_spending_counts_every_started_step_whatever_its_outcome() -> None:
    wf = build(a=30, b=30, c=30)
    report = workflow_status(wf, {"succeeded": ["a"], "failed": ["b"], "in_flight": ["c"]})
    assert report.spent_minor == 90


def test_steps_without_an_estimate_cost_nothing() -> None:
    assert ready_steps(build(a=None, b=None), {}, max_cost_minor=0) == ("a", "b")


def test_an_overspent_state_refuses_every_ready_step() -> None:
    report = workflow_status(build(a=10, b=0), {"succeeded": ["a"]}, max_cost_minor=5)
    assert report.halted is not None
    assert (report.halted.step, report.halted.left_minor, report.halted.spent_minor) == (
        "after_a",
        0,
        10,
    )
    assert report.halted.as_document() == {
        "step": "after_a",
        "estimate_minor": 1,
        "spent_minor": 10,
        "left_minor": 0,
        "ceiling_minor": 5,
        "reason": 'step "after_a" would cost 1 minor units, but only 0 of the budget of 5 are left',
    }


@pytest.mark.parametrize("ceiling", [1.5, -1, True, "100"])
def test_a_ceiling_must_be_a_non_negative_integer(ceiling: Any) -> None:
    with pytest.raises(WorkflowError, match="max_cost_minor must be a non-negative integer"):
        workflow_status(build(a=1), {}, max_cost_minor=ceiling)
