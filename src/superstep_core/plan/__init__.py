"""DAG plans: the pure half. A plan is a JSON document of steps and their dependencies; this
package says what may run now, where a run stands, what to undo after a failure and what it
costs. It computes and never acts:

    plan = validate_workflow({"steps": [
        {"id": "fetch", "kind": "http_get", "estimateMinor": 5},
        {"id": "score", "kind": "model", "dependsOn": ["fetch"], "estimateMinor": 40},
        {"id": "alert", "kind": "page", "dependsOn": [{"id": "score", "when": "failed"}]},
    ]})
    state = {"succeeded": ["fetch"], "failed": [], "in_flight": []}
    ready_steps(plan, state)               # ("score",)
    workflow_status(plan, state).status    # "running"

State is the caller's (`PlanState`, or a mapping of id lists); results are frozen values with
an ``as_document()`` JSON form. The same input gives the same output on any machine and in
any order of the input lists; nothing mutates its inputs.

Running plans on the engine (durably, with compensation and a budget ceiling) is the other
half, `superstep_core.plan.runner`, which this package never imports.

Pure: no I/O, no clock, no randomness, no callbacks. Must never import the engine (graph,
runtime, host, persistence, checkpoint), and nothing in the engine imports it
(`.importlinter`; `tests/plan/test_no_transport.py` reads this package's source).
"""

from superstep_core.plan.budget import BudgetHalt
from superstep_core.plan.compensation import Compensation, compensation_plan, undo_order
from superstep_core.plan.cost import CostEstimate, Money, estimate_cost
from superstep_core.plan.document import PLAN_KEYS, STEP_KEYS, is_plan_document, validate_workflow
from superstep_core.plan.model import (
    WHENS,
    CycleError,
    Dependency,
    Step,
    When,
    Workflow,
    WorkflowError,
)
from superstep_core.plan.state import STATE_KEYS, PlanState, StateError
from superstep_core.plan.status import (
    RunStatus,
    StatusReport,
    Unreachable,
    ready_steps,
    workflow_status,
)

__all__ = [  # noqa: RUF022 - grouped by concept
    # the document
    "PLAN_KEYS",
    "STEP_KEYS",
    "WHENS",
    "When",
    "Dependency",
    "Step",
    "Workflow",
    "is_plan_document",
    "validate_workflow",
    # state and status
    "STATE_KEYS",
    "PlanState",
    "RunStatus",
    "StatusReport",
    "Unreachable",
    "BudgetHalt",
    "ready_steps",
    "workflow_status",
    # compensation
    "Compensation",
    "compensation_plan",
    "undo_order",
    # cost
    "Money",
    "CostEstimate",
    "estimate_cost",
    # errors
    "WorkflowError",
    "CycleError",
    "StateError",
]
