"""Classes and Hypothesis strategies shared by the codec tests."""

from __future__ import annotations

import datetime as dt
import enum
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import pydantic
from hypothesis import strategies as st
from langchain_core import messages as lc

from superstep_core.channel import MISSING
from superstep_core.persistence import TypeRegistry


class Colour(enum.Enum):
    RED = "red"
    GREEN = (0, 255, 0)


class Perm(enum.Flag):
    READ = 1
    WRITE = 2


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


@dataclass
class Point:
    x: int
    y: Any = None


@dataclass(frozen=True, slots=True)
class Frozen:
    name: str
    tags: tuple[str, ...] = ()
    computed: int = field(init=False, default=0)


class Doc(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")

    title: str
    body: Any = None
    _secret: int = pydantic.PrivateAttr(default=7)


class Unregistered:
    def __init__(self, value: int) -> None:
        self.value = value


@dataclass
class UnregisteredPoint:
    x: int


def make_registry() -> TypeRegistry:
    registry = TypeRegistry()
    for cls in (Colour, Perm, Level, Point, Frozen, Doc):
        registry.register(cls)
    return registry


def timezones() -> st.SearchStrategy[dt.tzinfo | None]:
    fixed = st.integers(-23 * 60, 23 * 60).map(lambda m: dt.timezone(dt.timedelta(minutes=m)))
    return st.none() | fixed | st.timezones()


def scalars() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(min_value=2**64, max_value=2**200),
        st.integers(min_value=-(2**200), max_value=-(2**63) - 1),
        st.floats(allow_nan=False),
        st.text(),
        st.binary(),
        st.datetimes(timezones=timezones()),
        st.dates(),
        st.times(timezones=timezones()),
        st.timedeltas(),
        st.uuids(),
        st.decimals(allow_nan=False),
        st.sampled_from(list(Colour) + list(Perm) + [Perm.READ | Perm.WRITE] + list(Level)),
        st.just(MISSING),
    )


def hashables() -> st.SearchStrategy[Any]:
    leaves = st.one_of(
        st.none(), st.integers(), st.text(max_size=5), st.binary(max_size=5), st.uuids()
    )
    return st.recursive(
        leaves,
        lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3),
        max_leaves=4,
    )


def messages() -> st.SearchStrategy[Any]:
    ids = st.none() | st.text(max_size=6)
    tool_call = st.fixed_dictionaries(
        {
            "name": st.text(max_size=5),
            "args": st.dictionaries(st.text(max_size=3), st.integers()),
            "id": st.none() | st.text(max_size=4),
        }
    )
    usage = st.fixed_dictionaries(
        {
            "input_tokens": st.integers(0),
            "output_tokens": st.integers(0),
            "total_tokens": st.integers(0),
        }
    )
    return st.one_of(
        st.builds(lc.HumanMessage, content=st.text(max_size=10), id=ids),
        st.builds(lc.SystemMessage, content=st.text(max_size=10), id=ids),
        st.builds(
            lc.AIMessage,
            content=st.text(max_size=10),
            id=ids,
            tool_calls=st.lists(tool_call, max_size=2),
            usage_metadata=st.none() | usage,
            response_metadata=st.dictionaries(st.text(max_size=4), st.text(max_size=4)),
        ),
        st.builds(lc.ToolMessage, content=st.text(max_size=10), tool_call_id=st.text(max_size=4)),
    )


def values() -> st.SearchStrategy[Any]:
    def extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.lists(inner, max_size=4),
            st.lists(inner, max_size=4).map(tuple),
            st.dictionaries(st.text(max_size=5), inner, max_size=4),
            st.dictionaries(hashables(), inner, max_size=3),
            st.sets(hashables(), max_size=4),
            st.frozensets(hashables(), max_size=4),
            st.builds(Point, st.integers(), inner),
            st.builds(Frozen, st.text(max_size=5), st.lists(st.text(max_size=3)).map(tuple)),
            st.builds(Doc, title=st.text(max_size=5), body=inner),
            st.binary(max_size=8).map(bytearray),
            messages(),
        )

    return st.recursive(scalars(), extend, max_leaves=12)


def assert_same(a: Any, b: Any, path: str = "value") -> None:
    """Equal value and the same type at every depth."""
    assert type(a) is type(b), f"{path}: {type(a)} != {type(b)}"
    assert a == b or (a is MISSING and b is MISSING), f"{path}: {a!r} != {b!r}"
    if isinstance(a, list | tuple):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{path}: key order differs"
        for (k1, v1), (k2, v2) in zip(a.items(), b.items(), strict=True):
            assert_same(k1, k2, f"{path}<key>")
            assert_same(v1, v2, f"{path}[{k1!r}]")
    elif isinstance(a, set | frozenset):
        assert sorted(type(x).__name__ for x in a) == sorted(type(x).__name__ for x in b)
    elif isinstance(a, dt.datetime | dt.time):
        assert a.tzinfo == b.tzinfo and a.fold == b.fold, path
    elif isinstance(a, Decimal):
        assert str(a) == str(b), path
    elif isinstance(a, Point):
        assert_same(a.y, b.y, f"{path}.y")
    elif isinstance(a, Doc):
        assert_same(a.body, b.body, f"{path}.body")
        assert a.model_fields_set == b.model_fields_set, path
    elif isinstance(a, uuid.UUID | float):
        assert str(a) == str(b), path
