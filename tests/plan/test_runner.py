"""`plan_graph`: plans run on the engine, each step an effect performed once with its key,
conditions as edges, compensation and the budget, and the report from the pure half."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from superstep_core import EffectCompleted, EffectContext, Execution, Host, Status
from superstep_core.checkpoint import InMemorySaver
from superstep_core.host.durable import DurableRunner
from superstep_core.plan import (
    WorkflowError,
    compensation_plan,
    ready_steps,
    validate_workflow,
    workflow_status,
)
from superstep_core.plan.runner import PlanGraph, plan_graph, plan_outcomes, plan_state

from .pure.strategies import Plan, plans


class Recorder:
    """Handlers for any kinds: each call is recorded (step, idempotency key); the steps named
    in ``failing`` raise."""

    def __init__(self, kinds: Iterable[str], failing: Iterable[str] = ()) -> None:
        self.failing = set(failing)
        self.calls: list[tuple[str, str]] = []
        self.requests: dict[str, Mapping[str, Any]] = {}
        self._lock = threading.Lock()
        self.handlers = {kind: self.handle for kind in kinds}

    def handle(self, request: Mapping[str, Any], ctx: EffectContext) -> Any:
        with self._lock:
            self.calls.append((request["step"], ctx.idempotency_key))
            self.requests[request["step"]] = request
        if request["step"] in self.failing:
            raise RuntimeError(f"{request['step']} broke")
        return {"done": request["step"]}

    @property
    def steps(self) -> list[str]:
        return [step for step, _ in self.calls]


def doc(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"steps": list(steps)}


def s(sid: str, *deps: Any, kind: str = "work", **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"id": sid, "kind": kind, **more}
    if deps:
        out["dependsOn"] = list(deps)
    return out


def run(pg: PlanGraph) -> Any:
    with Host(pg.handlers) as host:
        ex = host.run_graph(pg.graph)
    assert ex.failure is None, ex.failure
    assert ex.status is Status.COMPLETED
    return ex


INVOICE = doc(
    s("fetch", estimateMinor=10),
    *(s(f"score{i}", "fetch", input={"n": i}, estimateMinor=5) for i in range(1, 7)),
    s("rank", *(f"score{i}" for i in range(1, 7))),
    s("charge", "rank", kind="pay", estimateMinor=30),
    s("review", "charge"),
    s("refund", kind="undo", compensates="charge"),
)


def test_every_step_is_performed_once_with_its_own_idempotency_key() -> None:
    rec = Recorder(["work", "pay"])
    ex = run(plan_graph(INVOICE, rec.handlers))
    assert sorted(rec.steps) == sorted(
        ["fetch", "rank", "charge", "review", *(f"score{i}" for i in range(1, 7))]
    )
    keys = [key for _, key in rec.calls]
    assert len(set(keys)) == len(keys)
    assert all(key.startswith(f"{ex.execution_id}/") for key in keys)


def test_a_fan_out_is_requested_in_one_superstep() -> None:
    rec = Recorder(["work", "pay"])
    pg = plan_graph(INVOICE, rec.handlers)
    with Host(pg.handlers) as host:
        steps = [o for o in host.iterate(host.start(pg.graph)) if o.effects]
    fan = [sorted(r.node for r in o.effects) for o in steps]
    assert [f"score{i}" for i in range(1, 7)] in fan


def test_a_handler_gets_the_step_input_and_its_dependencies_outcomes() -> None:
    rec = Recorder(["work", "pay"], failing=["score3"])
    plan = doc(s("a", input={"x": 1}, requires=["net"]), s("b", {"id": "a", "when": "always"}))
    run(plan_graph(plan, rec.handlers))
    assert rec.requests["a"] == {
        "step": "a",
        "kind": "work",
        "input": {"x": 1},
        "requires": ["net"],
        "dependencies": {},
    }
    assert rec.requests["b"]["dependencies"] == {
        "a": {"status": "succeeded", "result": {"done": "a"}}
    }


def test_a_failed_step_fails_the_plan_and_not_the_execution() -> None:
    rec = Recorder(["work"], failing=["a"])
    pg = plan_graph(doc(s("a"), s("b")), rec.handlers)
    ex = run(pg)
    report = pg.report(ex.values)
    assert report.status == "failed" and report.failed == ("a",)
    assert plan_outcomes(ex.values)["a"] == {
        "status": "failed",
        "error": {"type": "RuntimeError", "message": "a broke"},
    }


def test_a_when_failed_step_runs_only_after_its_dependency_failed() -> None:
    plan = doc(s("a"), s("alert", {"id": "a", "when": "failed"}))
    ok, broken = Recorder(["work"]), Recorder(["work"], failing=["a"])
    run(plan_graph(plan, ok.handlers))
    run(plan_graph(plan, broken.handlers))
    assert (ok.steps, broken.steps) == (["a"], ["a", "alert"])


def test_an_always_step_runs_after_either_outcome() -> None:
    plan = doc(s("a"), s("cleanup", {"id": "a", "when": "always"}))
    for failing in ([], ["a"]):
        rec = Recorder(["work"], failing=failing)
        run(plan_graph(plan, rec.handlers))
        assert rec.steps == ["a", "cleanup"]


def test_a_join_runs_once_after_every_dependency_succeeded() -> None:
    rec = Recorder(["work", "pay"])
    run(plan_graph(INVOICE, rec.handlers))
    assert rec.steps.count("rank") == 1
    assert rec.steps.index("rank") > max(rec.steps.index(f"score{i}") for i in range(1, 7))


def test_steps_that_can_never_run_are_reported_with_their_root_cause() -> None:
    rec = Recorder(["work", "pay"], failing=["score2"])
    pg = plan_graph(INVOICE, rec.handlers)
    ex = run(pg)
    report = pg.report(ex.values)
    assert report.status == "blocked"
    assert {u.id: u.because for u in report.unreachable} == {
        "rank": "score2",
        "charge": "score2",
        "review": "score2",
    }
    assert report == workflow_status(INVOICE, plan_state(ex.values))
    assert "rank" not in rec.steps


def test_compensation_undoes_the_succeeded_steps_after_the_forward_run() -> None:
    rec = Recorder(["work", "pay", "undo"], failing=["review"])
    pg = plan_graph(INVOICE, rec.handlers, compensate=True)
    ex = run(pg)
    assert rec.steps[-1] == "refund"
    assert rec.requests["refund"]["compensates"] == {
        "step": "charge",
        "status": "succeeded",
        "result": {"done": "charge"},
    }
    report = pg.report(ex.values)
    assert report.status == "failed"
    assert {"charge", "refund"} <= set(report.succeeded)  # two rows, never zero


def test_compensations_run_one_at_a_time_in_undo_order() -> None:
    plan = doc(
        s("reserve"),
        s("charge", "reserve"),
        s("ship", "charge"),
        s("release", kind="undo", compensates="reserve"),
        s("refund", kind="undo", compensates="charge"),
    )
    rec = Recorder(["work", "undo"], failing=["ship"])
    ex = run(plan_graph(plan, rec.handlers, compensate=True))
    assert rec.steps == ["reserve", "charge", "ship", "refund", "release"]
    started = ex.values["plan_started"]
    assert started["refund"] < started["release"]


def test_a_failed_compensation_does_not_stop_the_others() -> None:
    plan = doc(
        s("reserve"),
        s("charge", "reserve"),
        s("ship", "charge"),
        s("release", kind="undo", compensates="reserve"),
        s("refund", kind="undo", compensates="charge"),
    )
    rec = Recorder(["work", "undo"], failing=["ship", "refund"])
    pg = plan_graph(plan, rec.handlers, compensate=True)
    ex = run(pg)
    assert rec.steps[-2:] == ["refund", "release"]
    assert pg.report(ex.values).failed == ("refund", "ship")


def test_without_compensate_nothing_is_undone_and_no_undo_handler_is_needed() -> None:
    rec = Recorder(["work", "pay"], failing=["review"])
    pg = plan_graph(INVOICE, rec.handlers)
    ex = run(pg)
    assert "refund" not in rec.steps
    assert compensation_plan(INVOICE, plan_state(ex.values))[0].compensated_by == "refund"


def test_a_run_without_failure_compensates_nothing() -> None:
    rec = Recorder(["work", "pay", "undo"])
    pg = plan_graph(INVOICE, rec.handlers, compensate=True)
    assert pg.report(run(pg).values).status == "succeeded"
    assert "refund" not in rec.steps


def test_the_budget_halts_the_run_before_the_step_that_does_not_fit() -> None:
    rec = Recorder(["work", "pay"])
    pg = plan_graph(INVOICE, rec.handlers, max_cost_minor=50)
    report = pg.report(run(pg).values)
    assert report.status == "blocked"
    assert report.halted is not None and report.halted.step == "charge"
    assert report.reason.endswith(
        'step "charge" would cost 30 minor units, but only 10 of the budget of 50 are left'
    )
    assert "charge" not in rec.steps and report.spent_minor == 40


def test_parallel_steps_are_admitted_in_id_order_within_the_budget() -> None:
    rec = Recorder(["work", "pay"])
    pg = plan_graph(INVOICE, rec.handlers, max_cost_minor=32)
    report = pg.report(run(pg).values)
    assert sorted(rec.steps) == ["fetch", "score1", "score2", "score3", "score4"]
    assert report.halted is not None and report.halted.step == "score5"


def test_roots_are_admitted_by_the_budget_too() -> None:
    rec = Recorder(["work"])
    pg = plan_graph(
        doc(s("a", estimateMinor=5), s("b", estimateMinor=5)), rec.handlers, max_cost_minor=7
    )
    report = pg.report(run(pg).values)
    assert rec.steps == ["a"]
    assert (report.status, report.halted and report.halted.step) == ("blocked", "b")


@pytest.mark.parametrize(
    ("plan", "handlers", "options", "message"),
    [
        pytest.param(
            doc(s("a", kind="teleport")),
            {"work": print},
            {},
            'step "a" has kind "teleport", which no handler performs (handlers: work)',
            id="unknown-kind",
        ),
        pytest.param(
            doc(s("a", kind="call")), {"call": print}, {}, 'kind "call" is reserved', id="call"
        ),
        pytest.param(doc(s("a")), [print], {}, "handlers must be a mapping", id="not-a-mapping"),
        pytest.param(doc(s("a")), {"work": 5}, {}, "is a int, not a function", id="not-callable"),
        pytest.param(
            doc(s("a"), s("b", "a"), s("a succeeded")),
            {"work": print},
            {},
            'step id "a succeeded" is also the name of a node the plan runner adds',
            id="gate-name",
        ),
        pytest.param(
            doc(s("a"), s("compensation"), s("u", compensates="a")),
            {"work": print},
            {"compensate": True},
            'step id "compensation" is also the name',
            id="driver-name",
        ),
        pytest.param(
            doc(s("a"), s("u", kind="undo", compensates="a")),
            {"work": print},
            {"compensate": True},
            'step "u" has kind "undo", which no handler performs',
            id="undo-kind-needed-when-compensating",
        ),
        pytest.param(
            doc(s("a")), {"work": print}, {"max_cost_minor": 2.5}, "max_cost_minor", id="ceiling"
        ),
    ],
)
def test_plan_graph_refuses_what_cannot_run(
    plan: Any, handlers: Any, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(WorkflowError) as caught:
        plan_graph(plan, handlers, **options)
    assert message in str(caught.value)


def test_the_graph_version_follows_the_plan_and_its_options() -> None:
    handlers = {"work": print, "pay": print}
    versions = {
        plan_graph(INVOICE, handlers).graph.version,
        plan_graph(INVOICE, handlers, max_cost_minor=10).graph.version,
        plan_graph(doc(s("fetch")), handlers).graph.version,
    }
    assert len(versions) == 3
    assert (
        plan_graph(INVOICE, handlers).graph.version == plan_graph(INVOICE, handlers).graph.version
    )


def test_a_durable_plan_run_recovers_from_its_store_without_performing_again() -> None:
    store = InMemorySaver()
    rec = Recorder(["work", "pay", "undo"], failing=["review"])
    pg = plan_graph(INVOICE, rec.handlers, compensate=True)
    runner = DurableRunner(store, pg.handlers)
    with runner.start(pg.graph, "t1") as dx:
        first = dx.run()
    calls = list(rec.calls)
    with runner.recover(pg.graph, "t1") as dx:
        again = dx.run()
    assert rec.calls == calls
    assert pg.report(again.values) == pg.report(first.values)
    assert runner.replay(pg.graph, "t1").matched


# --- the engine and the pure half agree -----------------------------------------------------


def simulate(
    plan: Plan, failing: set[str], ceiling: int | None, compensate: bool
) -> dict[str, set[str]]:
    """The plan loop in lockstep rounds, as the engine runs it: start every ready step, settle
    them all, repeat; then, if a forward step failed, the compensations one at a time."""
    wf = validate_workflow(plan)
    state: dict[str, set[str]] = {"succeeded": set(), "failed": set(), "in_flight": set()}
    while ready := ready_steps(wf, state, max_cost_minor=ceiling):
        for sid in ready:
            state["failed" if sid in failing else "succeeded"].add(sid)
    if compensate and state["failed"] & set(wf.forward):
        while True:
            started = state["succeeded"] | state["failed"]
            nxt = [c for c in compensation_plan(wf, state) if c.compensated_by not in started]
            if not nxt:
                break
            sid = nxt[0].compensated_by
            state["failed" if sid in failing else "succeeded"].add(sid)
    return state


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), plans(), st.none() | st.integers(0, 120), st.booleans())
def test_the_engine_run_reaches_the_state_of_the_pure_plan_loop(
    data: st.DataObject, plan: Plan, ceiling: int | None, compensate: bool
) -> None:
    ids = [step["id"] for step in plan["steps"]]
    failing = set(data.draw(st.lists(st.sampled_from(ids), unique=True)))
    rec = Recorder(["a", "b", "undo"], failing=failing)
    pg = plan_graph(plan, rec.handlers, compensate=compensate, max_cost_minor=ceiling)
    ex = run(pg)
    state = pg.state(ex.values)
    expected = simulate(plan, failing, ceiling, compensate)
    assert (set(state.succeeded), set(state.failed), set(state.in_flight)) == (
        expected["succeeded"],
        expected["failed"],
        set(),
    )
    assert pg.report(ex.values).status != "running"
    assert sorted(rec.steps) == sorted(expected["succeeded"] | expected["failed"])


def run_out_of_step(pg: PlanGraph, delays: Mapping[str, int]) -> Any:
    """Drive the execution by hand, delivering each step's effect result ``delays[step]``
    supersteps late (as an executor whose results arrive at different times would), so steps
    stop settling in lockstep."""
    ex = Execution.start(pg.graph, "out-of-step")
    held: list[tuple[int, int, EffectCompleted]] = []
    with Host(pg.handlers) as host:
        while True:
            for item in [h for h in held if h[0] <= ex.step]:
                held.remove(item)
                ex.deliver(item[2])
            if not ex.queue:
                if not held:
                    return ex
                held.sort(key=lambda h: h[:2])  # ties must not compare the results
                ex.deliver(held.pop(0)[2])
                continue
            outcome = ex.run_superstep()
            assert ex.failure is None, ex.failure
            results = host.perform(ex.execution_id, outcome.effects)
            for request, result in zip(outcome.effects, results, strict=True):
                held.append((ex.step + delays.get(request.node, 0), len(held), result))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), plans(), st.none() | st.integers(0, 120), st.booleans())
def test_steps_settling_out_of_step_still_run_as_the_pure_half_says(
    data: st.DataObject, plan: Plan, ceiling: int | None, compensate: bool
) -> None:
    """Whatever the delays, every step starts at most once, the started steps fit the budget,
    and the run ends where the pure half says nothing more can start."""
    ids = [step["id"] for step in plan["steps"]]
    failing = set(data.draw(st.lists(st.sampled_from(ids), unique=True)))
    delays = {sid: data.draw(st.integers(0, 3)) for sid in ids}
    rec = Recorder(["a", "b", "undo"], failing=failing)
    pg = plan_graph(plan, rec.handlers, compensate=compensate, max_cost_minor=ceiling)
    ex = run_out_of_step(pg, delays)
    report = pg.report(ex.values)
    assert report.status != "running", report
    assert len(rec.steps) == len(set(rec.steps))
    if ceiling is not None:
        wf = validate_workflow(plan)
        forward = [sid for sid in rec.steps if not wf.by_id[sid].is_compensation]
        assert sum(wf.by_id[sid].estimate_minor or 0 for sid in forward) <= ceiling


def test_a_step_ready_earlier_is_not_preempted_by_one_ready_later_under_the_budget() -> None:
    """ "zeta" becomes ready a superstep before "alpha" (whose dependency's result arrives
    late); both fit the budget alone, not together. The budget admits the steps that became
    ready together, so "zeta" runs and the run halts before "alpha", although "alpha" comes
    first in id order."""
    plan = doc(
        s("x", estimateMinor=0),
        s("y", estimateMinor=0),
        s("zeta", "x", estimateMinor=6),
        s("alpha", "y", estimateMinor=6),
    )
    rec = Recorder(["work"])
    pg = plan_graph(plan, rec.handlers, max_cost_minor=10)
    report = pg.report(run_out_of_step(pg, {"y": 1}).values)
    assert sorted(rec.steps) == ["x", "y", "zeta"]
    assert report.halted is not None and report.halted.step == "alpha"
