"""Templates: {{state.x}} and {{input.x}} in prompts, URLs, headers and JSON bodies."""

from __future__ import annotations

from superstep_core.document.templates import references, render, render_json, render_url


def test_a_prompt_puts_strings_in_as_they_are_and_other_values_as_json() -> None:
    state = {"name": "Ada", "order": {"total": 4.5}, "tags": ["a"]}
    text = render(
        "Hi {{state.name}}: {{ state.order }} {{state.tags[0]}} {{state.none}}", state, {}
    )
    assert text == 'Hi Ada: {"total": 4.5} a '


def test_a_body_string_that_is_one_reference_becomes_the_value_itself() -> None:
    body = {"amount": "{{state.order.total}}", "note": "order {{input.id}}"}
    assert render_json(body, {"order": {"total": 4.5}}, {"id": "A-1"}) == {
        "amount": 4.5,
        "note": "order A-1",
    }


def test_a_url_keeps_its_base_and_percent_encodes_the_other_values() -> None:
    state = {"base": "http://h:1", "id": "a/b c"}
    assert (
        render_url("{{state.base}}/orders/{{state.id}}", state, {}) == "http://h:1/orders/a%2Fb%20c"
    )


def test_references_reports_the_ones_that_do_not_parse() -> None:
    found = [(r.text, r.path is not None) for r in references({"a": "{{state.x}} {{oops}}"})]
    assert found == [("state.x", True), ("oops", False)]
