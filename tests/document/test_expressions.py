"""The condition language: comparisons, contains, exists, and/or/not, parsed by a real parser
(never eval), with errors that give the column."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from superstep_core.document.expressions import ExpressionError, evaluate, parse, paths

STATE = {
    "priority": "high",
    "score": 0.8,
    "count": 3,
    "tags": ["spam", "urgent"],
    "approval": {"approved": True, "note": ""},
    "nothing": None,
}


def holds(text: str, given_input: dict[str, object] | None = None) -> bool:
    return evaluate(text, STATE, given_input or {})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("state.priority == 'high'", True),
        ('state.priority != "high"', False),
        ("state.score >= 0.8 and state.count < 4", True),
        ("state.count > 3 or state.score > 0.5", True),
        ("not state.count == 3", False),
        ("state.tags contains 'spam'", True),
        ("state.priority contains 'ig'", True),
        ("state.approval contains 'note'", True),
        ("exists state.approval.approved", True),
        ("exists state.nothing", False),
        ("exists state.missing", False),
        ("state.approval.approved", True),
        ("state.approval.note", False),
        ("state.tags[1] == 'urgent'", True),
        ("{{state.count}} == 3.0", True),
        ("state.approval.approved == 1", False),
        ("not (state.count == 3 and state.priority == 'low')", True),
        ("state.missing == null", True),
    ],
)
def test_conditions_evaluate_over_state(text: str, expected: bool) -> None:
    assert holds(text) is expected


def test_input_fields_are_read_through_input() -> None:
    assert holds("input.vip == true", {"vip": True})


def test_ordering_values_of_different_kinds_is_an_error_naming_them() -> None:
    with pytest.raises(ExpressionError, match='cannot order string "high" and number 3'):
        holds("state.priority > 3")
    # a missing field is null, said once (not "null null")
    with pytest.raises(ExpressionError, match="cannot order null and number 3 with '<'"):
        holds("state.missing < 3")


@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        ("state.x ==", 11, "expected a value"),
        ("state.x = 'a'", 9, "unexpected character"),
        ("priority == 'high'", 1, "state.priority"),
        ("state.x == 'a' 'b'", 16, "join conditions"),
        ("(state.x", 9, "')'"),
        ("exists 'a'", 8, "needs a path"),
        ("__import__('os').system('true')", 1, "unknown name"),
    ],
)
def test_a_condition_that_does_not_parse_says_where_and_what_to_do(
    text: str, column: int, words: str
) -> None:
    with pytest.raises(ExpressionError) as caught:
        parse(text)
    assert caught.value.column == column
    assert words in str(caught.value)


def test_paths_lists_every_field_a_condition_reads() -> None:
    tree = parse("state.a == input.b or exists state.c.d")
    assert [str(p) for p in paths(tree)] == ["state.a", "input.b", "state.c.d"]


@given(st.integers(-1000, 1000), st.integers(-1000, 1000))
def test_comparisons_agree_with_python_on_numbers(a: int, b: int) -> None:
    state = {"a": a, "b": b}
    for op in ("==", "!=", "<", "<=", ">", ">="):
        expected = {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}
        assert evaluate(f"state.a {op} state.b", state, {}) is expected[op]


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("(" * 5000 + "state.x == 1" + ")" * 5000, 65),
        ("not " * 5000 + "state.x", 257),
    ],
)
def test_a_condition_nested_too_deep_is_an_expression_error_not_a_recursion_error(
    text: str, column: int
) -> None:
    # A document is user input: a condition nested thousands deep must fail validation in one
    # line naming where, not crash the validator with Python's RecursionError.
    with pytest.raises(ExpressionError, match="nested more than 64 levels") as caught:
        parse(text)
    assert caught.value.column == column


def test_a_condition_nested_within_the_limit_parses_and_evaluates() -> None:
    assert evaluate("(" * 60 + "state.x == 1" + ")" * 60, {"x": 1}, {}) is True
    assert evaluate("not " * 60 + "state.x", {"x": True}, {}) is True
