"""Validation before anything runs: every problem names the node, edge or field and says
what to do."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from superstep_core.document import DocumentError, check_document, validate_document

from .conftest import document, edge, llm, load


def _problems(raw: dict[str, Any], **kw: Any) -> list[str]:
    return [str(p) for p in check_document(load(raw), **kw)]


def _one(raw: dict[str, Any], **kw: Any) -> str:
    found = _problems(raw, **kw)
    assert len(found) == 1, found
    return found[0]


def _cond(node_id: str, rules: list[tuple[str, str]], default: str) -> dict[str, Any]:
    return {
        "id": node_id,
        "type": "condition",
        "data": {"rules": [{"label": a, "when": w} for a, w in rules], "default": default},
    }


def test_a_valid_document_has_no_problems() -> None:
    raw = document([llm("a", "{{state.text}}", "out")], [edge("start", "a"), edge("a", "end")])
    assert _problems(raw) == []
    validate_document(load(raw))


def test_an_unknown_state_reference_names_the_node_the_key_and_the_close_field() -> None:
    raw = document([llm("a", "Hi {{state.txt}}", "out")], [edge("start", "a")])
    problem = _one(raw)
    assert problem.startswith("node 'a' data.prompt: state.txt refers to unknown state field")
    assert "did you mean 'text'" in problem


def test_a_reference_that_is_not_state_or_input_is_refused() -> None:
    raw = document([llm("a", "Hi {{user}}", "out")], [edge("start", "a")])
    assert "{{user}} is not a reference" in _one(raw)


@pytest.mark.parametrize(
    ("prompt", "opening"),
    [
        ("Hi {{state.text", "{{state.text"),
        ("{{state.text}} and {{ state.text", "{{ state.text"),
        ("{{state.text}} {{", "{{"),
    ],
)
def test_a_reference_never_closed_names_the_node_and_the_field(prompt: str, opening: str) -> None:
    raw = document([llm("a", prompt, "out")], [edge("start", "a")])
    assert _one(raw) == (
        f"node 'a' data.prompt: {opening!r} opens a reference that is never closed: end it "
        f"with }}}}"
    )


def test_an_unclosed_reference_in_a_json_body_is_named() -> None:
    tool = {
        "id": "t",
        "type": "tool",
        "data": {
            "url": "https://example.test/x",
            "body": {"q": ["{{input.q"]},
            "output_field": "out",
        },
    }
    raw = document([tool], [edge("start", "t")])
    assert any(
        p.startswith("node 't' data.body: '{{input.q' opens a reference that is never closed")
        for p in _problems(raw)
    )


def test_an_output_field_not_in_state_is_named() -> None:
    raw = document([llm("a", "x", "answer")], [edge("start", "a")])
    assert _one(raw).startswith("node 'a' data.output_field: 'answer' is not a state field")


def test_a_reducer_that_does_not_fit_its_type_is_named() -> None:
    state = [
        {"name": "text", "type": "string", "reducer": "append"},
        {"name": "out", "type": "string"},
    ]
    raw = document([llm("a", "x", "out")], [edge("start", "a")], state)
    assert _one(raw).startswith("state field 'text': reducer 'append' does not fit type 'string'")


def test_a_node_whose_output_does_not_fit_its_field_is_named() -> None:
    state = [{"name": "n", "type": "number"}]
    raw = document([llm("a", "x", "n")], [edge("start", "a")], state)
    assert "the node produces text, but state field 'n' is 'number'" in _one(raw)


def test_an_unreachable_node_is_named() -> None:
    raw = document(
        [llm("a", "x", "out"), llm("b", "y", "text")], [edge("start", "a"), edge("b", "end")]
    )
    assert _one(raw) == "node 'b': is unreachable from start: connect an edge to it, or delete it"


def test_a_loop_without_a_condition_is_shown_as_a_path() -> None:
    raw = document(
        [llm("a", "x", "out"), llm("b", "y", "text")],
        [edge("start", "a"), edge("a", "b"), edge("b", "a")],
    )
    assert "is on a loop with no condition (a -> b -> a)" in _one(raw)


def test_a_loop_through_a_condition_is_allowed() -> None:
    raw = document(
        [llm("a", "x", "out"), _cond("c", [("again", "state.out == 'x'")], "done")],
        [edge("start", "a"), edge("a", "c"), edge("c", "a", "again"), edge("c", "end", "done")],
    )
    assert _problems(raw) == []


def test_parallel_branches_writing_the_same_replace_field_are_refused_naming_both() -> None:
    raw = document(
        [llm("a", "x", "out"), llm("b", "y", "out")],
        [edge("start", "a"), edge("start", "b")],
    )
    problem = _one(raw)
    assert problem.startswith("nodes 'a' and 'b': run in parallel branches (from 'start')")
    assert "both write 'out', a 'replace' field" in problem


def test_parallel_branches_may_append_to_the_same_list() -> None:
    state = [{"name": "out", "type": "list", "reducer": "append"}]
    raw = document(
        [llm("a", "x", "out"), llm("b", "y", "out")],
        [edge("start", "a"), edge("start", "b")],
        state,
    )
    assert _problems(raw) == []


def test_a_condition_edge_without_a_label_is_named() -> None:
    raw = document(
        [_cond("c", [("yes", "state.text == 'y'")], "no"), llm("a", "x", "out")],
        [edge("start", "c"), edge("c", "a"), edge("c", "end", "yes"), edge("c", "end", "no")],
    )
    assert "leaves condition 'c' without a label: give it one of 'yes', 'no'" in _one(raw)


def test_a_label_no_rule_produces_is_named() -> None:
    raw = document(
        [_cond("c", [("yes", "state.text == 'y'")], "no")],
        [
            edge("start", "c"),
            edge("c", "end", "yes"),
            edge("c", "end", "no"),
            edge("c", "end", "maybe"),
        ],
    )
    assert "label 'maybe' is produced by no rule of condition 'c'" in _one(raw)


def test_a_label_without_an_edge_is_named() -> None:
    raw = document(
        [_cond("c", [("yes", "state.text == 'y'")], "no")],
        [edge("start", "c"), edge("c", "end", "yes")],
    )
    assert _one(raw) == (
        "node 'c': label 'no' has no outgoing edge: connect it (to 'end' to stop there)"
    )


def test_a_condition_that_does_not_parse_names_the_rule() -> None:
    raw = document(
        [_cond("c", [("yes", "state.text = 'y'")], "no")],
        [edge("start", "c"), edge("c", "end", "yes"), edge("c", "end", "no")],
    )
    assert _one(raw).startswith(
        "node 'c' rule 1 ('yes'): condition \"state.text = 'y'\" does not parse"
    )


def test_a_condition_nested_too_deep_is_one_short_problem_naming_the_rule() -> None:
    deep = "(" * 3000 + "state.text == 'y'" + ")" * 3000
    raw = document(
        [_cond("c", [("yes", deep)], "no")],
        [edge("start", "c"), edge("c", "end", "yes"), edge("c", "end", "no")],
    )
    problem = _one(raw)
    assert problem.startswith("node 'c' rule 1 ('yes'): condition '((((")
    assert "nested more than 64 levels deep" in problem
    # the condition is quoted by its start, not all 6,000 characters of it
    assert len(problem) < 300


def test_an_unknown_provider_is_named() -> None:
    raw = document([llm("a", "x", "out", model="acme:m1")], [edge("start", "a")])
    assert _one(raw).startswith("node 'a' data.model: unknown provider 'acme' in 'acme:m1'")


def test_a_model_whose_provider_cannot_be_inferred_is_named() -> None:
    raw = document([llm("a", "x", "out", model="my-model")], [edge("start", "a")])
    assert "Unable to infer model provider for model='my-model'" in _one(raw)


def test_an_unregistered_python_tool_is_named_when_tools_are_known() -> None:
    tool = {"id": "t", "type": "tool", "data": {"function": "lookup", "output_field": "out"}}
    raw = document([tool], [edge("start", "t")])
    assert "no Python tool 'lookup' is registered" in _one(raw, tools={"look_up"})


def test_a_join_a_condition_may_never_reach_is_refused() -> None:
    raw = document(
        [
            llm("a", "x", "text"),
            _cond("c", [("go", "state.text == 'y'")], "stop"),
            llm("m", "z", "out"),
        ],
        [
            edge("start", "a"),
            edge("start", "c"),
            edge("a", "m"),
            edge("c", "m", "go"),
            edge("c", "end", "stop"),
        ],
    )
    assert "node 'm': joins parallel branches, but a condition decides whether 'c' runs" in _one(
        raw
    )


def test_edges_to_unknown_nodes_and_misused_endpoints_are_named() -> None:
    raw = document(
        [llm("a", "x", "out")],
        [edge("start", "a"), edge("a", "bb"), edge("end", "a"), edge("a", "start")],
    )
    found = _problems(raw)
    assert "edge 'a-bb-': target 'bb' is not a node" in found
    assert any(p.startswith("edge 'end-a-': 'end' cannot be a source") for p in found)
    assert any(p.startswith("edge 'a-start-': 'start' cannot be a target") for p in found)


def test_validate_raises_one_error_carrying_every_problem() -> None:
    raw = document([llm("a", "{{state.nope}}", "nothing")], [])
    with pytest.raises(DocumentError) as caught:
        validate_document(load(raw))
    # output field, reference, no edge from start, unreachable node
    assert len(caught.value.problems) == 4
    assert "(and 3 more problems)" in str(caught.value)


def test_a_node_entered_by_one_parallel_branch_and_reached_by_the_other_is_refused() -> None:
    raw = document(
        [llm("a", "x", "text"), llm("b", "y", "text2"), llm("c", "z", "out")],
        [edge("start", "a"), edge("start", "c"), edge("a", "b"), edge("b", "c")],
        [
            {"name": "text", "type": "string"},
            {"name": "text2", "type": "string"},
            {"name": "out", "type": "list", "reducer": "append"},
        ],
    )
    assert _one(raw).startswith(
        "node 'c': is reached from 'b' inside a parallel branch of 'start' and also from the "
        "other branch, so it would run twice"
    )


def test_a_loop_back_into_a_parallel_branch_is_refused_and_a_loop_to_the_fork_is_not() -> None:
    state = [{"name": "out", "type": "list", "reducer": "append"}]
    nodes = [
        llm("f", "f", "out"),
        llm("a", "a", "out"),
        llm("b", "b", "out"),
        llm("j", "j", "out"),
        _cond("c", [("again", "not exists state.out")], "done"),
    ]
    edges = [
        edge("start", "f"),
        edge("f", "a"),
        edge("f", "b"),
        edge("a", "j"),
        edge("b", "j"),
        edge("j", "c"),
        edge("c", "end", "done"),
    ]
    into_branch = document(nodes, [*edges, edge("c", "a", "again")], state)
    assert any("loop back to 'f'" in p for p in _problems(into_branch))
    to_fork = document(nodes, [*edges, edge("c", "f", "again")], state)
    assert _problems(to_fork) == []


def test_a_join_whose_source_one_condition_label_enters_alone_is_refused() -> None:
    # 'yes' forks into b and c, which join at d; 'no' enters b alone, so d would wait for c.
    raw = document(
        [
            _cond("a", [("yes", "input.flag == true")], "no"),
            llm("b", "x", "log"),
            llm("c", "y", "log"),
            llm("d", "z", "log"),
        ],
        [
            edge("start", "a"),
            edge("a", "b", "yes"),
            edge("a", "c", "yes"),
            edge("a", "b", "no"),
            edge("b", "d"),
            edge("c", "d"),
            edge("d", "end"),
        ],
        [
            {"name": "flag", "type": "boolean"},
            {"name": "log", "type": "list", "reducer": "append"},
        ],
    )
    assert _one(raw).startswith(
        "node 'd': joins parallel branches ('b', 'c'), but 'b' is also reached on a path that "
        "does not start its sibling branches together with it (they fork at 'a';"
    )


def test_a_join_whose_source_a_path_from_outside_the_fork_enters_is_refused() -> None:
    # a condition's 'no' label enters c below the fork f, so the join at d would wait for b.
    raw = document(
        [
            _cond("a", [("yes", "input.flag == true")], "no"),
            llm("f", "w", "log"),
            llm("b", "x", "log"),
            llm("c", "y", "log"),
            llm("d", "z", "log"),
        ],
        [
            edge("start", "a"),
            edge("a", "f", "yes"),
            edge("a", "c", "no"),
            edge("f", "b"),
            edge("f", "c"),
            edge("b", "d"),
            edge("c", "d"),
            edge("d", "end"),
        ],
        [
            {"name": "flag", "type": "boolean"},
            {"name": "log", "type": "list", "reducer": "append"},
        ],
    )
    assert "node 'd': joins parallel branches ('b', 'c'), but 'c' is also reached" in _one(raw)


def test_a_join_both_condition_labels_fork_into_is_accepted() -> None:
    # both labels start b and c together, so whichever is taken, the join at d fires.
    raw = document(
        [
            _cond("a", [("yes", "input.flag == true")], "no"),
            llm("b", "x", "log"),
            llm("c", "y", "log"),
            llm("d", "z", "log"),
        ],
        [
            edge("start", "a"),
            edge("a", "b", "yes"),
            edge("a", "c", "yes"),
            edge("a", "b", "no"),
            edge("a", "c", "no"),
            edge("b", "d"),
            edge("c", "d"),
            edge("d", "end"),
        ],
        [
            {"name": "flag", "type": "boolean"},
            {"name": "log", "type": "list", "reducer": "append"},
        ],
    )
    assert _problems(raw) == []


def _chain(count: int, *, back_to_first: bool) -> dict[str, Any]:
    ids = [f"n{i}" for i in range(count)]
    edges = [edge("start", ids[0])] + [edge(a, b) for a, b in itertools.pairwise(ids)]
    edges.append(edge(ids[-1], ids[0] if back_to_first else "end"))
    return document([llm(i, "x", "out") for i in ids], edges)


def test_a_chain_of_thousands_of_nodes_validates_without_recursion_error() -> None:
    # The loop check walked the graph recursively: 3,000 nodes in a row raised
    # RecursionError from validation (and so from run, graph and workflow save).
    assert _problems(_chain(3000, back_to_first=False)) == []


def test_a_loop_of_thousands_of_nodes_without_a_condition_is_named() -> None:
    problem = _one(_chain(3000, back_to_first=True))
    assert problem.startswith("node 'n0': is on a loop with no condition (n0 -> n1 -> n2")
    assert problem.endswith("n2999 -> n0): a loop must pass a condition node that can leave it")
