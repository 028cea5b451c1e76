"""add_messages: coercion, ids, replace by id, removal."""

import uuid

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, RemoveMessage

from superstep_compat.graph.message import REMOVE_ALL_MESSAGES, add_messages


def pairs(messages: object) -> list[tuple[str, str | None]]:
    assert isinstance(messages, list)
    return [(m.content, m.id) for m in messages]


def test_coerces_tuples_dicts_and_strings() -> None:
    out = add_messages([], [("user", "t"), {"role": "assistant", "content": "d"}, "s"])
    assert [type(m).__name__ for m in out] == ["HumanMessage", "AIMessage", "HumanMessage"]  # type: ignore[union-attr]


def test_assigns_uuid4_ids() -> None:
    out = add_messages([], ["hi"])
    assert len(out[0].id) == 36  # type: ignore[index]
    # str(uuid.uuid4())'s text: version 4, RFC 4122 variant, fresh each time
    ids = [add_messages([], ["hi"])[0].id for _ in range(2000)]  # type: ignore[index]
    for text in ids:
        parsed = uuid.UUID(text)
        assert str(parsed) == text and parsed.version == 4 and parsed.variant == uuid.RFC_4122
    assert len(set(ids)) == len(ids)
    assert {text[19] for text in ids} == set("89ab")  # the variant's digit takes all four


def test_replaces_by_id_in_place() -> None:
    out = add_messages(
        [HumanMessage("a", id="1"), HumanMessage("b", id="2")],
        [HumanMessage("B", id="2"), HumanMessage("A", id="1")],
    )
    assert pairs(out) == [("A", "1"), ("B", "2")]


def test_duplicate_ids_in_right_keep_the_last() -> None:
    out = add_messages(
        [HumanMessage("a", id="1")], [HumanMessage("x", id="5"), HumanMessage("y", id="5")]
    )
    assert pairs(out) == [("a", "1"), ("y", "5")]


def test_remove_message() -> None:
    out = add_messages(
        [HumanMessage("a", id="1"), HumanMessage("b", id="2")], [RemoveMessage(id="1")]
    )
    assert pairs(out) == [("b", "2")]


def test_remove_unknown_id_raises() -> None:
    with pytest.raises(ValueError, match=r"doesn't exist \('nope'\)"):
        add_messages([HumanMessage("a", id="1")], [RemoveMessage(id="nope")])


def test_remove_all_keeps_only_what_follows() -> None:
    out = add_messages(
        [HumanMessage("a", id="1")],
        [
            HumanMessage("x", id="5"),
            RemoveMessage(id=REMOVE_ALL_MESSAGES),
            HumanMessage("f", id="3"),
        ],
    )
    assert pairs(out) == [("f", "3")]


def test_chunks_become_messages() -> None:
    out = add_messages([], [AIMessageChunk(content="b", id="2")])
    assert type(out[0]) is AIMessage  # type: ignore[index]


def test_no_arguments_returns_a_partial() -> None:
    assert callable(add_messages(format="langchain-openai"))


def test_one_missing_side_raises() -> None:
    with pytest.raises(ValueError, match="Only received: 'right'"):
        add_messages(None, [HumanMessage("a")])


def test_unknown_format_raises() -> None:
    with pytest.raises(ValueError, match="Unrecognized format='bogus'"):
        add_messages([], [], format="bogus")


def test_merges_onto_a_produced_history_as_onto_any_list() -> None:
    """A history `add_messages` returned is merged onto without a scan of its ids (they are
    kept with it): every kind of right side still merges as onto an equal fresh list."""
    history = add_messages([], [HumanMessage("q", id="h")])
    history = add_messages(history, [AIMessage("a", id="a1")])
    history = add_messages(history, AIMessage("fresh"))  # one message, no id: gets one
    assert isinstance(history, list)
    fresh_id = history[-1].id
    assert fresh_id is not None and len(fresh_id) == 36
    cases = [
        [AIMessage("A", id="a1")],  # an id already there: replaced in place
        [AIMessage("x", id="n1"), AIMessage("y", id="n1")],  # given twice: the last kept
        [AIMessage("z", id=fresh_id)],  # the id a merge gave: replaced too
        [RemoveMessage(id="h")],
        [AIMessageChunk("c", id="ch")],
        [("user", "tuple")],
        [AIMessage("new", id="n2"), HumanMessage("more")],
    ]
    for right in cases:
        onto_produced = add_messages(
            history, [m.model_copy() if hasattr(m, "model_copy") else m for m in right]
        )
        onto_copy = add_messages(list(history), right)
        assert [(type(m), m.content) for m in onto_produced] == [  # type: ignore[union-attr]
            (type(m), m.content)
            for m in onto_copy  # type: ignore[union-attr]
        ]
        assert [m.id for m in onto_produced][:-1] == [m.id for m in onto_copy][:-1]  # type: ignore[union-attr]
    # and the chain goes on: a history made by the quick path knows its ids too
    longer = add_messages(history, [AIMessage("b", id="b1")])
    assert pairs(add_messages(longer, [AIMessage("B", id="b1")]))[-1] == ("B", "b1")
    assert pairs(add_messages(longer, [AIMessage("Q", id="h")]))[0] == ("Q", "h")


def test_a_history_shares_its_id_positions_with_the_histories_merged_from_it() -> None:
    """The positions by id kept with a merged history grow in place with each quick merge
    (a copy per merge is O(history)): an older history's map then also names later ids, and
    merging it again (a second branch from it, or the commit after a node's local read
    merged the same messages) still merges exactly, the usual cases the quick way."""
    from superstep_compat.graph import message

    base = add_messages([], [HumanMessage("q", id="h"), AIMessage("a", id="a1")])
    first = add_messages(base, [AIMessage("b", id="b1")])
    second = add_messages(first, [AIMessage("c", id="c1")])
    at = message._produced[id(second)][2]
    assert at == {"h": 0, "a1": 1, "b1": 2, "c1": 3}
    assert message._produced[id(first)][2] is at  # shared, not copied
    # ``first``'s map names "c1" too: the same message merged onto ``first`` again
    again = add_messages(first, [AIMessage("C", id="c1")])
    assert pairs(again) == [("q", "h"), ("a", "a1"), ("b", "b1"), ("C", "c1")]
    assert message._produced[id(again)][2] is at  # the quick way: "c1" is not in ``first``
    # a branch from ``first`` that appends another message at position 3, then "c1"
    other = add_messages(first, [AIMessage("o", id="o1")])
    assert message._produced[id(other)][2] is at
    onto_other = add_messages(other, [AIMessage("C", id="c1")])
    assert pairs(onto_other)[-2:] == [("o", "o1"), ("C", "c1")]
    assert at["c1"] == -1  # appended at two positions: merges writing it go the general way
    replaced = add_messages(onto_other, [AIMessage("C2", id="c1")])
    assert pairs(replaced)[-2:] == [("o", "o1"), ("C2", "c1")]
    assert pairs(add_messages(first, [AIMessage("A", id="a1")])) == [
        ("q", "h"),
        ("A", "a1"),
        ("b", "b1"),
    ]
    twice = add_messages(first, [AIMessage("C", id="c1"), AIMessage("C2", id="c1")])
    assert pairs(twice) == [("q", "h"), ("a", "a1"), ("b", "b1"), ("C2", "c1")]
    assert [m.id for m in second] == ["h", "a1", "b1", "c1"]  # type: ignore[union-attr]
