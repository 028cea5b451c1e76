"""`estimate_cost`: total, critical path and unknown steps, as integer money."""

from __future__ import annotations

from typing import Any

import pytest

from superstep_core.plan import CostEstimate, Money, estimate_cost, validate_workflow


def plan(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"steps": list(steps)}


INVOICE = plan(
    {"id": "fetch", "kind": "k", "estimateMinor": 100},
    {"id": "score_a", "kind": "k", "dependsOn": ["fetch"], "estimateMinor": 50},
    {"id": "score_b", "kind": "k", "dependsOn": ["fetch"], "estimateMinor": 70},
    {"id": "rank", "kind": "k", "dependsOn": ["score_a", "score_b"]},
    {
        "id": "alert",
        "kind": "k",
        "dependsOn": [{"id": "rank", "when": "failed"}],
        "estimateMinor": 5,
    },
    {"id": "undo", "kind": "k", "compensates": "fetch", "estimateMinor": 9},
)


def test_the_total_counts_every_step_including_conditional_ones_and_compensations() -> None:
    assert estimate_cost(INVOICE, currency="EUR").total == Money(234, "EUR")


def test_the_critical_path_is_the_dearest_chain_ignoring_conditions() -> None:
    cost = estimate_cost(INVOICE, currency="EUR")
    assert cost.critical_path == Money(175, "EUR")
    assert cost.critical_path_ids == ("fetch", "score_b", "rank", "alert")


def test_steps_without_an_estimate_count_zero_and_are_listed() -> None:
    assert estimate_cost(INVOICE, currency="EUR").unknown_steps == ("rank",)


def test_equally_dear_chains_resolve_to_the_smallest_ids() -> None:
    wf = plan(
        {"id": "b", "kind": "k", "estimateMinor": 5},
        {"id": "a", "kind": "k", "estimateMinor": 5},
        {"id": "c", "kind": "k", "dependsOn": ["b", "a"]},
    )
    assert estimate_cost(wf, currency="USD").critical_path_ids == ("a", "c")


def test_a_compensation_dearer_than_any_chain_is_the_critical_path() -> None:
    wf = plan(
        {"id": "a", "kind": "k", "estimateMinor": 1},
        {"id": "u", "kind": "k", "compensates": "a", "estimateMinor": 7},
    )
    assert estimate_cost(wf, currency="JPY").critical_path_ids == ("u",)


def test_the_estimate_has_a_json_form() -> None:
    doc = estimate_cost(validate_workflow(INVOICE), currency="EUR").as_document()
    assert doc == {
        "total": {"amount_minor": 234, "currency": "EUR"},
        "critical_path": {"amount_minor": 175, "currency": "EUR"},
        "critical_path_ids": ["fetch", "score_b", "rank", "alert"],
        "unknown_steps": ["rank"],
    }
    assert isinstance(estimate_cost(INVOICE, currency="EUR"), CostEstimate)


@pytest.mark.parametrize("currency", ["eur", "EURO", "E1R", "", 978])
def test_a_currency_is_an_iso_4217_code(currency: Any) -> None:
    with pytest.raises(ValueError, match="ISO 4217"):
        estimate_cost(INVOICE, currency=currency)


@pytest.mark.parametrize("amount", [1.0, True, "5"])
def test_money_is_an_integer_of_minor_units(amount: Any) -> None:
    with pytest.raises(ValueError, match="must be an integer of minor units"):
        Money(amount, "EUR")
