"""The pure half's public names are exactly the documented ones, and importing it does not
load the runner half."""

from __future__ import annotations

import subprocess
import sys

import superstep_core.plan

DOCUMENTED = {
    # the document
    "PLAN_KEYS", "STEP_KEYS", "WHENS", "When", "Dependency", "Step", "Workflow",
    "is_plan_document", "validate_workflow",
    # state and status
    "STATE_KEYS", "PlanState", "RunStatus", "StatusReport", "Unreachable", "BudgetHalt",
    "ready_steps", "workflow_status",
    # compensation
    "Compensation", "compensation_plan", "undo_order",
    # cost
    "Money", "CostEstimate", "estimate_cost",
    # errors
    "WorkflowError", "CycleError", "StateError",
}  # fmt: skip


def test_the_exported_names_are_exactly_the_documented_ones() -> None:
    assert set(superstep_core.plan.__all__) == DOCUMENTED
    assert len(superstep_core.plan.__all__) == len(DOCUMENTED)
    for name in DOCUMENTED:
        assert getattr(superstep_core.plan, name) is not None


def test_importing_the_pure_half_does_not_load_the_runner() -> None:
    code = "import sys, superstep_core.plan; print('superstep_core.plan.runner' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
