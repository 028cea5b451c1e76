"""`ready_steps` and `workflow_status`: what may start, where a run stands, and why a step can
never run (its root cause, in a sentence)."""

from __future__ import annotations

from typing import Any

import pytest

from superstep_core.plan import (
    PlanState,
    StateError,
    Unreachable,
    ready_steps,
    validate_workflow,
    workflow_status,
)
from superstep_core.plan.model import Workflow


def build(*steps: tuple[str, list[Any]] | tuple[str, list[Any], str]) -> Workflow:
    """Steps as (id, dependsOn) or (id, dependsOn, compensates)."""
    docs: list[dict[str, Any]] = []
    for item in steps:
        doc: dict[str, Any] = {"id": item[0], "kind": "work", "dependsOn": item[1]}
        if len(item) == 3:
            doc["compensates"] = item[2]
        docs.append(doc)
    return validate_workflow({"steps": docs})


def state(succeeded: str = "", failed: str = "", in_flight: str = "") -> dict[str, list[str]]:
    return {
        "succeeded": succeeded.split(),
        "failed": failed.split(),
        "in_flight": in_flight.split(),
    }


FAN = build(
    ("fetch", []),
    *((f"score{i}", ["fetch"]) for i in range(1, 7)),
    ("rank", [f"score{i}" for i in range(1, 7)]),
)
CHAIN = build(("s1", []), ("s2", ["s1"]), ("s3", ["s2"]), ("s4", ["s3"]))


def test_ready_steps_is_every_step_whose_edges_are_satisfied_at_once() -> None:
    assert ready_steps(FAN, state("fetch")) == tuple(f"score{i}" for i in range(1, 7))


def test_roots_are_ready_in_an_empty_state() -> None:
    assert ready_steps(FAN, {}) == ("fetch",)


def test_settled_and_in_flight_steps_are_not_ready() -> None:
    assert ready_steps(FAN, state("fetch score1", "score2", "score3")) == (
        "score4",
        "score5",
        "score6",
    )


def test_a_join_is_ready_only_when_every_dependency_succeeded() -> None:
    done = " ".join(f"score{i}" for i in range(1, 6))
    assert "rank" not in ready_steps(FAN, state(f"fetch {done}"))
    assert ready_steps(FAN, state(f"fetch {done} score6")) == ("rank",)


def test_a_when_failed_edge_is_satisfied_only_by_failure() -> None:
    wf = build(("a", []), ("h", [{"id": "a", "when": "failed"}]))
    assert ready_steps(wf, state(failed="a")) == ("h",)
    assert ready_steps(wf, state("a")) == ()


def test_a_when_always_edge_is_satisfied_by_either_outcome() -> None:
    wf = build(("a", []), ("cleanup", [{"id": "a", "when": "always"}]))
    assert ready_steps(wf, state("a")) == ("cleanup",)
    assert ready_steps(wf, state(failed="a")) == ("cleanup",)
    assert ready_steps(wf, state(in_flight="a")) == ()


def test_the_run_is_running_while_a_step_is_in_flight() -> None:
    report = workflow_status(CHAIN, state("s1", in_flight="s2"))
    assert (report.status, report.reason) == ("running", "0 steps ready, 1 in flight")
    assert report.waiting == ("s3", "s4")


def test_the_run_is_running_while_a_step_is_ready() -> None:
    report = workflow_status(CHAIN, state("s1"))
    assert (report.status, report.ready, report.reason) == (
        "running",
        ("s2",),
        "1 step ready, 0 in flight",
    )


def test_every_step_succeeded_is_succeeded() -> None:
    report = workflow_status(CHAIN, state("s1 s2 s3 s4"))
    assert (report.status, report.reason) == ("succeeded", "all 4 steps succeeded")
    assert report.remaining == () and report.unreachable == ()


def test_every_step_settled_and_one_failed_is_failed() -> None:
    wf = build(("a", []), ("b", []))
    report = workflow_status(wf, state("a", "b"))
    assert (report.status, report.reason, report.failed) == ("failed", '1 step failed: "b"', ("b",))


def test_a_step_that_can_never_run_makes_the_run_blocked_not_failed() -> None:
    report = workflow_status(CHAIN, state("s1", "s2"))
    assert report.status == "blocked"
    assert report.reason == '2 steps can never run: step "s3" needs "s2" to succeed, but it failed'
    assert report.failed == ("s2",)


def test_unreachable_names_the_root_cause_not_the_immediate_parent() -> None:
    report = workflow_status(CHAIN, state("s1", "s2"))
    assert report.unreachable == (
        Unreachable("s3", "s2", 'step "s3" needs "s2" to succeed, but it failed'),
        Unreachable("s4", "s2", 'step "s4" needs "s3", which can never run: "s2" failed'),
    )


def test_a_when_failed_step_whose_dependency_succeeded_is_unreachable() -> None:
    wf = build(("a", []), ("h", [{"id": "a", "when": "failed"}]), ("after", ["h"]))
    report = workflow_status(wf, state("a"))
    assert report.status == "blocked"
    assert [u.as_document() for u in report.unreachable] == [
        {"id": "h", "because": "a", "reason": 'step "h" needs "a" to fail, but it succeeded'},
        {
            "id": "after",
            "because": "a",
            "reason": 'step "after" needs "h", which can never run: "a" succeeded',
        },
    ]


def test_an_always_edge_to_a_step_that_never_runs_is_dead() -> None:
    wf = build(("a", []), ("b", ["a"]), ("c", [{"id": "b", "when": "always"}]))
    report = workflow_status(wf, state(failed="a"))
    assert [(u.id, u.because) for u in report.unreachable] == [("b", "a"), ("c", "a")]


def test_the_first_dead_edge_by_id_gives_the_root_cause() -> None:
    wf = build(("x", []), ("y", []), ("z", ["y", "x"]))
    report = workflow_status(wf, state(failed="x y"))
    assert report.unreachable[0].because == "x"


def test_a_step_waits_while_a_dependency_may_still_settle() -> None:
    wf = build(("a", []), ("b", []), ("c", ["a", "b"]))
    report = workflow_status(wf, state("a", in_flight="b"))
    assert report.waiting == ("c",) and report.remaining == ("b", "c")


def test_compensating_steps_wait_and_never_become_ready() -> None:
    wf = build(("charge", []), ("refund", [], "charge"))
    assert ready_steps(wf, {}) == ("charge",)
    report = workflow_status(wf, state("charge"))
    assert report.status == "succeeded"
    assert report.waiting == ("refund",) and report.remaining == ()


def test_a_run_whose_compensation_succeeded_still_reports_failed() -> None:
    wf = build(("charge", []), ("review", ["charge"]), ("refund", [], "charge"))
    report = workflow_status(wf, state("charge refund", "review"))
    assert report.status == "failed"
    assert report.succeeded == ("charge", "refund")


def test_a_compensation_in_flight_keeps_the_run_running() -> None:
    wf = build(("charge", []), ("review", ["charge"]), ("refund", [], "charge"))
    assert workflow_status(wf, state("charge", "review", "refund")).status == "running"


def test_the_report_has_a_json_form() -> None:
    doc = workflow_status(CHAIN, state("s1", "s2")).as_document()
    assert doc["status"] == "blocked"
    assert doc["unreachable"][0] == {
        "id": "s3",
        "because": "s2",
        "reason": 'step "s3" needs "s2" to succeed, but it failed',
    }
    assert doc["halted"] is None and doc["spent_minor"] == 0


def test_a_plan_state_value_and_frozen_lists_are_accepted() -> None:
    frozen = {"succeeded": frozenset({"s1"}), "failed": ("s2",)}
    as_value = PlanState(succeeded={"s1"}, failed=["s2"])  # type: ignore[arg-type]
    assert workflow_status(CHAIN, frozen) == workflow_status(CHAIN, as_value)
    assert as_value.as_document() == {"succeeded": ["s1"], "failed": ["s2"], "in_flight": []}
    assert as_value.settled == as_value.started == {"s1", "s2"}


def test_a_plan_document_is_accepted_in_place_of_a_workflow() -> None:
    doc = {"steps": [{"id": "a", "kind": "k"}]}
    assert ready_steps(doc, {}) == ("a",)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        pytest.param(["s1"], "state: expected", id="not-a-mapping"),
        pytest.param({"done": []}, 'state: unknown key "done"', id="unknown-key"),
        pytest.param({"succeeded": "s1"}, "'succeeded' must be a list of step ids", id="string"),
        pytest.param({"failed": [1]}, "'failed' holds 1, not a step id", id="not-an-id"),
        pytest.param(
            {"succeeded": ["s1"], "in_flight": ["s1"]},
            "step \"s1\" is in both 'succeeded' and 'in_flight'",
            id="two-lists",
        ),
        pytest.param(
            {"in_flight": ["s9"]},
            "'in_flight' names \"s9\", which is not a step of the plan",
            id="unknown-step",
        ),
    ],
)
def test_a_bad_state_is_refused_naming_the_culprit(bad: Any, message: str) -> None:
    with pytest.raises(StateError) as caught:
        workflow_status(CHAIN, bad)
    assert message in str(caught.value)


def test_nothing_mutates_its_inputs() -> None:
    doc = {"steps": [{"id": "a", "kind": "k", "dependsOn": ["b"]}, {"id": "b", "kind": "k"}]}
    current = {"succeeded": ["b"], "failed": [], "in_flight": []}
    before = (repr(doc), repr(current))
    workflow_status(doc, current, max_cost_minor=10)
    assert (repr(doc), repr(current)) == before
