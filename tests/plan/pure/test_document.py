"""The plan document and its frozen `Workflow`: what is accepted, how it is normalised, and
every refusal naming its culprit before anything can run."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Any

import pytest

from superstep_core.plan import (
    CycleError,
    Dependency,
    Step,
    Workflow,
    WorkflowError,
    estimate_cost,
    is_plan_document,
    validate_workflow,
)


def plan(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"steps": list(steps)}


def step(sid: str, *deps: Any, **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"id": sid, "kind": "work", **more}
    if deps:
        out["dependsOn"] = list(deps)
    return out


def test_a_bare_dependency_id_is_short_for_when_succeeded() -> None:
    wf = validate_workflow(plan(step("a"), step("b", "a")))
    assert wf.by_id["b"].depends_on == (Dependency("a", "succeeded"),)


def test_every_field_is_read_into_snake_case_attributes() -> None:
    wf = validate_workflow(
        plan(
            step("a", input={"url": "x"}, requires=["net"], estimateMinor=250),
            step("b", {"id": "a", "when": "always"}),
            step("undo_a", compensates="a"),
        )
    )
    a, b, undo = wf.by_id["a"], wf.by_id["b"], wf.by_id["undo_a"]
    assert (a.input, a.requires, a.estimate_minor) == ({"url": "x"}, ("net",), 250)
    assert b.depends_on == (Dependency("a", "always"),)
    assert undo.compensates == "a" and undo.is_compensation


def test_the_document_round_trips_through_as_document() -> None:
    doc = plan(
        step("a", input=[1, 2], requires=["x", "net"], estimateMinor=3),
        step("b", "a", {"id": "c", "when": "failed"}),
        step("c"),
        step("undo", compensates="a"),
    )
    wf = validate_workflow(doc)
    assert validate_workflow(wf.as_document()) == wf
    assert wf.as_document()["steps"][0] == {
        "id": "a",
        "kind": "work",
        "input": [1, 2],
        "requires": ["net", "x"],
        "estimateMinor": 3,
    }


def test_list_order_does_not_matter() -> None:
    one = validate_workflow(plan(step("a"), step("b", "a", "c", requires=["p", "q"]), step("c")))
    two = validate_workflow(plan(step("c"), step("b", "c", "a", requires=["q", "p"]), step("a")))
    assert one == two
    assert [s.id for s in two.steps] == ["a", "b", "c"]


def test_forward_order_puts_dependencies_first_and_ties_by_id() -> None:
    wf = validate_workflow(plan(step("z"), step("m", "z"), step("a", "m"), step("b")))
    assert wf.forward == ("b", "z", "m", "a")
    assert wf.dependents["z"] == ("m",)


def test_frozen_inputs_are_accepted_and_left_untouched() -> None:
    payload = {"n": 1}
    doc = MappingProxyType(
        {
            "steps": (
                MappingProxyType({"id": "a", "kind": "k", "input": payload}),
                MappingProxyType({"id": "b", "kind": "k", "dependsOn": ("a",)}),
            )
        }
    )
    wf = validate_workflow(doc)
    assert wf.by_id["a"].input is payload
    assert payload == {"n": 1}


def test_a_workflow_is_frozen() -> None:
    wf = validate_workflow(plan(step("a")))
    with pytest.raises(dataclasses.FrozenInstanceError):
        wf.steps = ()  # type: ignore[misc]


def test_validating_a_workflow_returns_it() -> None:
    wf = validate_workflow(plan(step("a")))
    assert validate_workflow(wf) is wf


def test_a_workflow_assembled_from_steps_equals_the_document_one() -> None:
    built = Workflow((Step("b", "work", depends_on=(Dependency("a"),)), Step("a", "work")))
    assert built == validate_workflow(plan(step("a"), step("b", "a")))


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        pytest.param([], "a plan is an object", id="not-an-object"),
        pytest.param({"steps": [], "name": "x"}, 'unknown key "name"', id="unknown-top-key"),
        pytest.param({"step": []}, 'unknown key "step" (did you mean "steps"?)', id="typo-key"),
        pytest.param({}, '"steps" is missing', id="no-steps"),
        pytest.param({"steps": "a"}, '"steps" must be a list', id="steps-not-a-list"),
        pytest.param({"steps": []}, '"steps" is empty', id="empty"),
        pytest.param(plan("a"), "steps[0]: a step is an object", id="step-not-an-object"),
        pytest.param(plan({"kind": "k"}), 'steps[0]: "id" must be a non-empty string', id="no-id"),
        pytest.param(plan({"id": "", "kind": "k"}), 'steps[0]: "id"', id="empty-id"),
        pytest.param(
            plan(step("a", depends_on=["b"])),
            'step "a": unknown key "depends_on" (did you mean "dependsOn"?)',
            id="unknown-step-key",
        ),
        pytest.param(plan({"id": "a"}), 'step "a": "kind" must be', id="no-kind"),
        pytest.param(plan(step("a", requires="net")), '"requires" must be a list', id="requires"),
        pytest.param(plan(step("a", requires=[1])), 'each entry of "requires"', id="requires-int"),
        pytest.param(
            plan(step("a", requires=["x", "x"])), 'requires lists "x" twice', id="requires-twice"
        ),
        pytest.param(plan(step("a", estimateMinor=1.5)), "got 1.5 (float)", id="float-estimate"),
        pytest.param(plan(step("a", estimateMinor=-1)), "non-negative integer", id="negative"),
        pytest.param(plan(step("a", estimateMinor=True)), "got True (bool)", id="bool-estimate"),
        pytest.param(plan(step("a", estimateMinor="5")), "got '5' (str)", id="string-estimate"),
        pytest.param(plan(step("a", dependsOn="b")), '"dependsOn" must be a list', id="deps"),
        pytest.param(plan(step("a", 5)), "a dependsOn item is a step id or", id="dep-int"),
        pytest.param(plan(step("a", "")), "a dependsOn item is a step id or", id="dep-empty"),
        pytest.param(
            plan(step("a", {"id": "b", "after": 1})), 'unknown key "after"', id="dep-unknown-key"
        ),
        pytest.param(plan(step("a", {"when": "failed"})), "a dependsOn item", id="dep-no-id"),
        pytest.param(
            plan(step("a"), step("b", {"id": "a", "when": "sometimes"})),
            'step "b": dependency on "a": when must be one of "succeeded", "failed", "always"',
            id="bad-when",
        ),
        pytest.param(
            plan(step("a"), step("a")), 'step id "a" is used by more than one step', id="dup-id"
        ),
        pytest.param(
            plan(step("a"), step("b", "a", {"id": "a", "when": "failed"})),
            'step "b" depends on "a" twice (duplicate edge)',
            id="duplicate-edge",
        ),
        pytest.param(
            plan(step("fetch"), step("b", "fecth")),
            'step "b" depends on unknown step "fecth" (did you mean "fetch"?)',
            id="unknown-edge",
        ),
        pytest.param(
            plan(step("a", compensates="zz")),
            'step "a" compensates unknown step "zz"',
            id="compensates-unknown",
        ),
        pytest.param(
            plan(step("a", compensates="a")), "compensates itself", id="self-compensation"
        ),
        pytest.param(
            plan(step("a"), step("u", compensates="a"), step("uu", compensates="u")),
            'step "uu" compensates "u", which is itself a compensating step',
            id="compensates-a-compensation",
        ),
        pytest.param(
            plan(step("a"), step("b"), step("u", "b", compensates="a")),
            'step "u" compensates "a" and has dependsOn',
            id="compensation-with-dependencies",
        ),
        pytest.param(
            plan(step("a"), step("u", compensates="a"), step("b", "u")),
            'step "b" depends on "u", a compensating step',
            id="depends-on-a-compensation",
        ),
        pytest.param(plan(step("a", compensates=5)), '"compensates" must be', id="compensates-int"),
    ],
)
def test_bad_documents_are_refused_naming_the_culprit(doc: Any, message: str) -> None:
    with pytest.raises(WorkflowError) as caught:
        validate_workflow(doc)
    assert message in str(caught.value)


def test_a_cycle_is_refused_with_its_closed_path() -> None:
    with pytest.raises(CycleError) as caught:
        validate_workflow(plan(step("a", "b"), step("b", "c"), step("c", "a"), step("d", "a")))
    assert str(caught.value) == "dependency cycle: a -> b -> c -> a"
    assert caught.value.cycle == ["a", "b", "c", "a"]
    assert isinstance(caught.value, WorkflowError)


def test_a_cycle_is_named_from_its_smallest_id_whatever_the_list_order() -> None:
    with pytest.raises(CycleError) as caught:
        validate_workflow(plan(step("x", "c"), step("c", "b"), step("b", "x"), step("a")))
    assert caught.value.cycle == ["b", "x", "c", "b"]


def test_a_step_depending_on_itself_is_a_cycle() -> None:
    with pytest.raises(CycleError, match=r"^dependency cycle: a -> a$"):
        validate_workflow(plan(step("a", "a")))


@pytest.mark.parametrize(
    ("build", "message"),
    [
        pytest.param(lambda: Step(5, "k"), 'step: "id" must be', id="step-id"),  # type: ignore[arg-type]
        pytest.param(lambda: Step("a", ""), 'step "a": "kind"', id="step-kind"),
        pytest.param(
            lambda: Step("a", "k", depends_on="b"),  # type: ignore[arg-type]
            "dependsOn must be a list",
            id="deps-string",
        ),
        pytest.param(
            lambda: Step("a", "k", depends_on=("b",)),  # type: ignore[arg-type]
            "not a Dependency",
            id="deps-not-dependencies",
        ),
        pytest.param(lambda: Step("a", "k", estimate_minor=0.5), "got 0.5", id="float"),  # type: ignore[arg-type]
        pytest.param(
            lambda: Step("a", "k", requires="net"),  # type: ignore[arg-type]
            '"requires" must be a list of strings',
            id="requires-string",
        ),
        pytest.param(lambda: Dependency(""), 'dependency: "id"', id="dependency-id"),
        pytest.param(lambda: Workflow("ab"), "must be a list of steps", id="steps-string"),  # type: ignore[arg-type]
        pytest.param(lambda: Workflow(("a",)), "must be Step values", id="steps-not-steps"),  # type: ignore[arg-type]
    ],
)
def test_values_built_in_code_check_themselves(build: Any, message: str) -> None:
    with pytest.raises(WorkflowError) as caught:
        build()
    assert message in str(caught.value)


def test_an_estimate_swapped_for_a_float_after_validation_is_refused_again_by_estimate_cost() -> (
    None
):
    wf = validate_workflow(plan(step("a", estimateMinor=5)))
    object.__setattr__(wf.by_id["a"], "estimate_minor", 4.99)
    with pytest.raises(WorkflowError, match=r'step "a": estimateMinor .* got 4.99 \(float\)'):
        estimate_cost(wf, currency="EUR")


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ({"steps": []}, True),
        ({"name": "flow", "state": {}, "nodes": [], "edges": []}, False),
        ({"steps": [], "name": "x"}, False),
        ([{"steps": []}], False),
    ],
)
def test_a_plan_document_is_recognised_by_its_keys(doc: Any, expected: bool) -> None:
    assert is_plan_document(doc) is expected
