"""The document format: its JSON Schema (published, validating the examples, naming the
culprit of a bad document), and load/save round-trips that change nothing."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from superstep_core.document import (
    DocumentError,
    document_json,
    dump_document,
    load_document,
    workflow_schema,
)

from .conftest import EXAMPLES


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_the_published_schema_validates_every_example(path: Path) -> None:
    Draft202012Validator(workflow_schema()).validate(json.loads(path.read_text()))


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(workflow_schema())


def _bad(raw: dict[str, Any]) -> str:
    with pytest.raises(DocumentError) as caught:
        load_document(raw)
    return str(caught.value)


def _example() -> dict[str, Any]:
    return json.loads((EXAMPLES / "support_triage.json").read_text())


def test_an_unknown_key_is_named_with_the_node_and_where_editor_data_goes() -> None:
    raw = _example()
    raw["nodes"][0]["data"]["colour"] = "red"
    message = _bad(raw)
    assert "node 'classify' data" in message and "'colour'" in message and "'ui'" in message


def test_a_missing_required_key_is_named_with_the_edge() -> None:
    raw = _example()
    del raw["edges"][2]["target"]
    assert "edge 'e3'" in _bad(raw) and "'target' is a required property" in _bad(raw)


def test_a_tool_needs_exactly_one_of_url_and_function() -> None:
    raw = _example()
    raw["nodes"].append(
        {
            "id": "t",
            "type": "tool",
            "data": {"url": "http://x", "function": "f", "output_field": "x"},
        }
    )
    assert "node 't' data: a tool node has either 'url'" in _bad(raw)


def test_start_and_end_are_reserved_node_ids() -> None:
    raw = _example()
    raw["nodes"][0]["id"] = "end"
    assert "reserved" in _bad(raw)


def test_bad_json_names_the_line_and_column() -> None:
    with pytest.raises(DocumentError, match="line 2, column"):
        load_document('{"name": "x",\n "state": ]}')


def test_a_key_given_twice_is_refused() -> None:
    with pytest.raises(DocumentError, match="'name' appears twice"):
        load_document('{"name": "a", "name": "b", "state": [], "nodes": [], "edges": []}')


# --- round trips -----------------------------------------------------------------------------

_names = st.text(string.ascii_letters + string.digits + "_", min_size=1, max_size=8).map(
    lambda s: "f" + s
)
_ids = st.text(string.ascii_lowercase + string.digits + "_-", min_size=1, max_size=8).filter(
    lambda s: s not in ("start", "end")
)
_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)
_objects = st.dictionaries(_text, _json, max_size=3)


def _optional(d: dict[str, Any], **choices: Any) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(d, optional=choices)


def _data(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    common = {"label": _text, "description": _text}
    if kind == "llm":
        return _optional(
            {"model": st.just("mock:m"), "prompt": _text, "output_field": _names},
            **common,
            system=_text,
            temperature=st.floats(0, 2),
            max_tokens=st.integers(1, 5000),
            output_schema=_objects,
            stream=st.booleans(),
            retry=_optional({}, max_attempts=st.integers(1, 20), initial_interval=st.floats(0, 9)),
        )
    if kind == "tool":
        http = _optional(
            {"url": st.just("https://example.test/x"), "output_field": _names},
            **common,
            method=st.sampled_from(["GET", "POST"]),
            headers=st.dictionaries(_text, _text, max_size=2),
            body=_json,
            timeout=st.floats(0.1, 60),
        )
        python = _optional({"function": _names, "output_field": _names}, **common, args=_objects)
        return http | python
    if kind == "condition":
        rule = st.fixed_dictionaries({"label": _ids, "when": st.just("state.x == 1")})
        return _optional(
            {"rules": st.lists(rule, min_size=1, max_size=3), "default": _ids},
            **common,
            output_field=_names,
        )
    field = _optional(
        {"name": _names, "type": st.sampled_from(["string", "boolean"])},
        description=_text,
        required=st.booleans(),
    )
    return _optional(
        {"prompt": _text, "fields": st.lists(field, max_size=3), "output_field": _names},
        **common,
        timeout=st.floats(1, 1e6),
    )


def _node(node_id: str) -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from(["llm", "tool", "condition", "human"]).flatmap(
        lambda kind: _optional(
            {"id": st.just(node_id), "type": st.just(kind), "data": _data(kind)},
            position=st.fixed_dictionaries({"x": st.integers(-999, 999), "y": st.floats(-9, 9)}),
            ui=_objects,
        )
    )


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    ids = draw(st.lists(_ids, unique=True, max_size=5))
    nodes = [draw(_node(i)) for i in ids]
    ends = ["start", *ids, "end"]
    edges = [
        draw(
            _optional(
                {
                    "id": st.just(f"e{i}"),
                    "source": st.sampled_from(ends),
                    "target": st.sampled_from(ends),
                },
                label=_ids,
                ui=_objects,
            )
        )
        for i in range(draw(st.integers(0, 6)))
    ]
    field = _optional(
        {"name": _names, "type": st.sampled_from(["string", "number", "list", "object"])},
        reducer=st.sampled_from(["replace", "append", "merge", "add"]),
        default=_json,
        description=_text,
    )
    state = draw(st.lists(field, max_size=4, unique_by=lambda f: f["name"]))
    return draw(
        _optional(
            {
                "name": _text.filter(bool),
                "state": st.just(state),
                "nodes": st.just(nodes),
                "edges": st.just(edges),
            },
            description=_text,
            ui=_objects,
        )
    )


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_a_document_round_trips_through_load_and_save_unchanged(raw: dict[str, Any]) -> None:
    doc = load_document(raw)
    assert dump_document(doc) == raw
    text = document_json(doc)
    assert json.loads(text) == raw
    again = load_document(text)
    assert again == doc and again.content_hash == doc.content_hash
    assert document_json(again) == text


def test_the_content_hash_ignores_key_order_and_formatting() -> None:
    raw = _example()
    reordered = dict(reversed(list(raw.items())))
    compact = json.dumps(reordered, separators=(",", ":"))
    assert load_document(compact).content_hash == load_document(raw).content_hash
