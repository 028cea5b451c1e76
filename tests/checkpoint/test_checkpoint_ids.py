"""Checkpoint ids are derived from (step, namespace) and sort in superstep order."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from superstep_core.checkpoint import checkpoint_id, parse_checkpoint_id

namespaces = st.text(max_size=12)
steps = st.integers(min_value=-1, max_value=10**12 - 1)


@settings(database=None)
@given(steps, namespaces)
def test_an_id_parses_back_to_its_step_and_namespace(step: int, namespace: str) -> None:
    assert parse_checkpoint_id(checkpoint_id(step, namespace)) == (namespace, step)


@settings(database=None)
@given(steps, steps, namespaces)
def test_ids_of_one_namespace_sort_in_superstep_order(a: int, b: int, namespace: str) -> None:
    assert (checkpoint_id(a, namespace) < checkpoint_id(b, namespace)) == (a < b)


def test_root_ids_are_the_padded_step_and_subgraph_ids_carry_the_namespace() -> None:
    assert checkpoint_id(7) == "000000000007"
    assert checkpoint_id(-1) == "-00000000001"
    assert checkpoint_id(7, "outer:1|inner:2") == "outer:1|inner:2#000000000007"


@pytest.mark.parametrize("bad", ["", "latest", "7", "#000000000007", "ns#12", "ns#abc"])
def test_anything_else_is_not_a_checkpoint_id(bad: str) -> None:
    with pytest.raises(ValueError, match="not a checkpoint id"):
        parse_checkpoint_id(bad)


def test_steps_below_minus_one_are_refused() -> None:
    with pytest.raises(ValueError, match="out of range"):
        checkpoint_id(-2)
