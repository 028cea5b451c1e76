"""Properties of the pure half over random plans and states (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from superstep_core.plan import (
    compensation_plan,
    estimate_cost,
    ready_steps,
    validate_workflow,
    workflow_status,
)

from .strategies import Plan, State, plans, plans_and_states, shuffled

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CEILINGS = st.none() | st.integers(0, 150)


def everything(plan: Plan, state: State, ceiling: int | None) -> object:
    return (
        workflow_status(plan, state, max_cost_minor=ceiling).as_document(),
        ready_steps(plan, state, max_cost_minor=ceiling),
        [c.as_document() for c in compensation_plan(plan, state)],
        estimate_cost(plan, currency="EUR").as_document(),
        validate_workflow(plan).forward,
    )


@SETTINGS
@given(st.data(), plans_and_states(), CEILINGS)
def test_results_do_not_depend_on_the_order_of_any_input_list(
    data: st.DataObject, case: tuple[Plan, State], ceiling: int | None
) -> None:
    plan, state = case
    other_plan, other_state = data.draw(shuffled(plan, state))
    assert everything(plan, state, ceiling) == everything(other_plan, other_state, ceiling)


@SETTINGS
@given(plans_and_states(compensations=False), CEILINGS)
def test_without_compensations_status_is_succeeded_iff_every_step_succeeded(
    case: tuple[Plan, State], ceiling: int | None
) -> None:
    plan, state = case
    every = len(state["succeeded"]) == len(plan["steps"])
    assert (workflow_status(plan, state, max_cost_minor=ceiling).status == "succeeded") == every


@SETTINGS
@given(plans_and_states(), CEILINGS)
def test_status_is_succeeded_iff_every_forward_step_succeeded_and_nothing_is_in_flight(
    case: tuple[Plan, State], ceiling: int | None
) -> None:
    plan, state = case
    forward = {s["id"] for s in plan["steps"] if "compensates" not in s}
    expected = forward <= set(state["succeeded"]) and not state["in_flight"]
    assert (workflow_status(plan, state, max_cost_minor=ceiling).status == "succeeded") == expected


@SETTINGS
@given(plans_and_states(), CEILINGS)
def test_every_step_is_exactly_one_of_ready_in_flight_settled_unreachable_or_waiting(
    case: tuple[Plan, State], ceiling: int | None
) -> None:
    plan, state = case
    report = workflow_status(plan, state, max_cost_minor=ceiling)
    places = [
        *report.ready,
        *report.in_flight,
        *report.succeeded,
        *report.failed,
        *(u.id for u in report.unreachable),
        *report.waiting,
    ]
    assert sorted(places) == sorted(s["id"] for s in plan["steps"])


@SETTINGS
@given(plans_and_states())
def test_the_compensation_order_respects_every_edge(case: tuple[Plan, State]) -> None:
    plan, state = case
    workflow = validate_workflow(plan)
    order = [c.step_id for c in compensation_plan(workflow, state)]
    for step in workflow.steps:
        for dep in step.depends_on:
            if step.id in order and dep.id in order:
                assert order.index(step.id) < order.index(dep.id), (step.id, dep.id, order)


@SETTINGS
@given(plans(), CEILINGS, st.randoms(use_true_random=False))
def test_the_plan_loop_ends_with_each_step_run_at_most_once_within_the_budget(
    plan: Plan, ceiling: int | None, rng: random.Random
) -> None:
    """Start every ready step, settle an in-flight one either way, repeat: the run ends (not
    running), no step starts twice, the started steps' estimates fit the ceiling, and no step
    reported unreachable ever started."""
    workflow = validate_workflow(plan)
    state: State = {"succeeded": [], "failed": [], "in_flight": []}
    started: list[str] = []
    for _ in range(2 * len(workflow.steps) + 1):
        ready = ready_steps(workflow, state, max_cost_minor=ceiling)
        started.extend(ready)
        state["in_flight"].extend(ready)
        if not state["in_flight"]:
            break
        done = state["in_flight"].pop(rng.randrange(len(state["in_flight"])))
        state[rng.choice(["succeeded", "failed"])].append(done)
    report = workflow_status(workflow, state, max_cost_minor=ceiling)
    assert report.status != "running"
    assert len(started) == len(set(started))
    if ceiling is not None:
        assert sum(workflow.by_id[s].estimate_minor or 0 for s in started) <= ceiling
    assert not {u.id for u in report.unreachable} & set(started)
