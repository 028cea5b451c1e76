"""Schema introspection and node return values -> writes."""

import operator
from dataclasses import dataclass, field
from typing import Annotated, NotRequired, TypedDict

import pytest
from pydantic import BaseModel

from superstep_compat.channels import BinaryOperatorAggregate, LastValue, Topic
from superstep_compat.errors import InvalidUpdateError, ParentCommand
from superstep_compat.graph._schema import schema_info
from superstep_compat.graph._writes import node_writes
from superstep_compat.managed import RemainingSteps
from superstep_compat.types import Command, Send


class Base(TypedDict):
    a: int


class Child(Base, total=False):
    b: Annotated[list[int], operator.add]
    c: NotRequired[str]
    rs: RemainingSteps
    t: Annotated[list[int], Topic(int)]


def test_typeddict_inheritance_keys_in_order() -> None:
    assert schema_info(Child).keys == ("a", "b", "c", "rs", "t")


def test_plain_key_is_last_value() -> None:
    assert isinstance(schema_info(Child).channels["a"], LastValue)


def test_annotated_reducer_starts_with_empty_value() -> None:
    channel = schema_info(Child).channels["b"]
    assert isinstance(channel, BinaryOperatorAggregate)
    assert channel.get() == []


def test_managed_value_is_not_a_channel() -> None:
    info = schema_info(Child)
    assert "rs" in info.managed and "rs" not in info.channels


def test_channel_instance_in_annotation_is_used() -> None:
    assert isinstance(schema_info(Child).channels["t"], Topic)


def test_bad_reducer_signature() -> None:
    def three(a: list[int], b: list[int], c: list[int]) -> list[int]:
        return a

    schema = TypedDict("T3", {"k": Annotated[list[int], three]})  # type: ignore[misc]  # noqa: UP013
    with pytest.raises(ValueError, match=r"Expected \(a, b\) -> c. Got \(a, b, c\)"):
        schema_info(schema)


def test_pydantic_and_dataclass_fields() -> None:
    class P(BaseModel):
        x: int = 0
        log: Annotated[list[str], operator.add] = []

    @dataclass
    class D:
        x: int = 0
        log: Annotated[list[str], operator.add] = field(default_factory=list)

    assert schema_info(P).keys == ("x", "log")
    assert schema_info(D).keys == ("x", "log")


def test_dict_schema_is_one_root_channel() -> None:
    assert list(schema_info(dict).channels) == ["__root__"]


def test_lastvalue_second_write_error_message() -> None:
    channel = LastValue(int, key="x")
    with pytest.raises(InvalidUpdateError, match="At key 'x': Can receive only one value"):
        channel.update([1, 2])


KEYS = {"x", "log"}


def test_dict_return_drops_unknown_keys() -> None:
    out = node_writes({"x": 1, "zzz": 2}, KEYS)
    assert out.writes == [("x", 1)] and out.dropped == ["zzz"]


def test_none_return_writes_nothing() -> None:
    assert node_writes(None, KEYS).writes == []


def test_non_dict_return_error() -> None:
    with pytest.raises(InvalidUpdateError) as info:
        node_writes(5, KEYS)
    assert str(info.value).startswith("Expected dict, got 5\nFor troubleshooting")


def test_list_of_commands() -> None:
    out = node_writes([Command(update={"x": 1}), Command(update={"log": [2]}, goto="b")], KEYS)
    assert out.writes == [("x", 1), ("log", [2])] and out.goto == ["b"]


def test_command_goto_send() -> None:
    assert node_writes(Command(goto=Send("n", 1)), KEYS).goto == [Send("n", 1)]


def test_parent_command_raises() -> None:
    with pytest.raises(ParentCommand):
        node_writes(Command(graph=Command.PARENT, update={"x": 1}), KEYS)


def test_pydantic_return_skips_none_fields() -> None:
    class P(BaseModel):
        x: int = 0
        y: int | None = None

    assert node_writes(P(), {"x", "y"}).writes == [("x", 0)]
