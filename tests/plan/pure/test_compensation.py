"""`compensation_plan`: what to undo after a failure, by which step, in which order."""

from __future__ import annotations

from typing import Any

from superstep_core.plan import Compensation, compensation_plan, undo_order, validate_workflow
from superstep_core.plan.model import Workflow

STEPS: list[dict[str, Any]] = [
    {"id": "reserve", "kind": "k"},
    {"id": "charge", "kind": "k", "dependsOn": ["reserve"]},
    {"id": "ship", "kind": "k", "dependsOn": ["charge"]},
    {"id": "email", "kind": "k", "dependsOn": ["reserve"]},
    {"id": "release", "kind": "k", "compensates": "reserve"},
    {"id": "refund", "kind": "k", "compensates": "charge"},
    {"id": "recall", "kind": "k", "compensates": "ship"},
]
PLAN: Workflow = validate_workflow({"steps": STEPS})


def test_only_succeeded_steps_are_undone() -> None:
    entries = compensation_plan(PLAN, {"succeeded": ["reserve", "charge"], "failed": ["ship"]})
    assert entries == (Compensation("charge", "refund"), Compensation("reserve", "release"))


def test_dependents_are_undone_before_what_they_depended_on() -> None:
    entries = compensation_plan(
        PLAN, {"succeeded": ["reserve", "charge", "ship"], "failed": ["email"]}
    )
    assert [e.step_id for e in entries] == ["ship", "charge", "reserve"]


def test_undo_order_covers_every_forward_step_with_ties_by_id() -> None:
    assert undo_order(PLAN) == ("email", "ship", "charge", "reserve")


def test_an_entry_whose_compensation_succeeded_is_done() -> None:
    entries = compensation_plan(
        PLAN, {"succeeded": ["reserve", "charge", "refund"], "failed": ["ship"]}
    )
    assert entries == (Compensation("reserve", "release"),)


def test_an_entry_whose_compensation_failed_or_is_in_flight_stays() -> None:
    state = {
        "succeeded": ["reserve", "charge"],
        "failed": ["ship", "refund"],
        "in_flight": ["release"],
    }
    assert [e.compensated_by for e in compensation_plan(PLAN, state)] == ["refund", "release"]


def test_several_compensations_of_one_step_come_in_id_order() -> None:
    wf = validate_workflow(
        {
            "steps": [
                {"id": "a", "kind": "k"},
                {"id": "z_undo", "kind": "k", "compensates": "a"},
                {"id": "m_undo", "kind": "k", "compensates": "a"},
            ]
        }
    )
    assert [e.as_document() for e in compensation_plan(wf, {"succeeded": ["a"]})] == [
        {"step_id": "a", "compensated_by": "m_undo"},
        {"step_id": "a", "compensated_by": "z_undo"},
    ]


def test_steps_without_a_compensation_are_skipped() -> None:
    assert compensation_plan(PLAN, {"succeeded": ["reserve", "email"]}) == (
        Compensation("reserve", "release"),
    )
