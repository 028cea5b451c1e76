"""Property tests: every supported value comes back equal and of the same type."""

from __future__ import annotations

from typing import Any

from codec_fixtures import assert_same, hashables, make_registry, values
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from superstep_core.persistence import Codec

CODEC = Codec(make_registry())
SETTINGS = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


@SETTINGS
@given(values())
def test_every_supported_value_round_trips_with_equal_value_and_same_type(value: Any) -> None:
    assert_same(value, CODEC.loads(CODEC.dumps(value)))


@SETTINGS
@given(st.lists(hashables(), max_size=6, unique=True), st.randoms())
def test_equal_sets_give_equal_bytes_whatever_their_insertion_order(
    items: list[Any], rnd: Any
) -> None:
    shuffled = list(items)
    rnd.shuffle(shuffled)
    assert CODEC.dumps(set(items)) == CODEC.dumps(set(shuffled))
    assert CODEC.dumps(frozenset(items)) == CODEC.dumps(frozenset(shuffled))


@SETTINGS
@given(values())
def test_encoding_is_deterministic(value: Any) -> None:
    assert CODEC.dumps(value) == CODEC.dumps(CODEC.loads(CODEC.dumps(value)))
