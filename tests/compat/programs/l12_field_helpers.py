# ruff: noqa: UP007, UP035, UP045  (the annotation spellings under test)
"""``langgraph._internal._fields``: `_is_optional_type` (None-admitting annotations),
`get_field_default` (``...`` for required fields; None for ``NotRequired``, ``total=False``
keys and optional types, ``Required`` winning over an optional type) and
`get_enhanced_type_hints` (type, default, description per field of a TypedDict, a
dataclass and pydantic models, default factories included)."""

import dataclasses
from typing import Annotated, Any, Optional, TypeVar, Union

from langgraph._internal._fields import (
    _is_optional_type,
    get_enhanced_type_hints,
    get_field_default,
)
from pydantic import BaseModel, Field
from typing_extensions import NotRequired, Required, TypedDict

T = TypeVar("T")
B = TypeVar("B", bound=Optional[int])


class Base(TypedDict):
    a: Required[Optional[str]]
    b: NotRequired[str]
    c: Annotated[NotRequired[int], "x"]
    d: Required[Annotated[int, "x"]]
    e: Optional[str]
    f: str


class Child(Base, total=False):
    g: int
    h: Required[str]


class Defaults(TypedDict):
    x: str
    y: int = 3  # type: ignore[misc]


@dataclasses.dataclass
class Data:
    x: str
    y: int = 3
    z: list = dataclasses.field(default_factory=list)


class Model(BaseModel):
    x: str
    y: int = 3
    z: Annotated[str, Field(default="d", description="zed")]
    w: list = Field(default_factory=lambda: [1])


def _hints(schema: Any) -> list:
    return [[n, repr(t), d, desc] for n, t, d, desc in get_enhanced_type_hints(schema)]


def run() -> dict:
    types = {
        "None": None,
        "NoneType": type(None),
        "Optional[int]": Optional[int],
        "int|None": int | None,
        "list[int|None]": list[int | None],
        "Union nested": Union[str | None, int],
        "Any": Any,
        "Optional[Any]": Optional[Any],
        "Annotated": Annotated[Optional[int], "m"],
        "T": T,
        "Optional[T]": Optional[T],
        "B": B,
    }
    annotations = {**Base.__annotations__, **Child.__annotations__}
    return {
        "optional": {k: _is_optional_type(v) for k, v in types.items()},
        "defaults": {
            k: repr(get_field_default(k, v, Child if k in ("g", "h") else Base))
            for k, v in annotations.items()
        },
        "child_total_false": [
            repr(get_field_default(k, Child.__annotations__[k], Child)) for k in ("e", "f")
        ],
        "typeddict": _hints(Defaults),
        "dataclass": _hints(Data),
        "pydantic": _hints(Model),
    }
