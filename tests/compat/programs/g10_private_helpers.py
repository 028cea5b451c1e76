"""Private helpers that code built on LangGraph imports: ``graph.state._get_node_name``,
``graph.state._is_field_channel`` and ``_internal._pydantic.is_supported_by_pydantic``."""

import dataclasses
import typing
from typing import Annotated, Union

import pydantic
import typing_extensions
from langgraph._internal._pydantic import is_supported_by_pydantic
from langgraph.channels import EphemeralValue, LastValue
from langgraph.graph.state import _get_node_name, _is_field_channel


class Callable_:
    def __call__(self, state: dict) -> dict:
        return state

    def method(self, state: dict) -> dict:
        return state


def plain(state: dict) -> dict:
    return state


def _channel(annotation: object) -> object:
    found = _is_field_channel(annotation)
    return None if found is None else [type(found).__name__, repr(found.typ)]


def run() -> dict:
    given = EphemeralValue(int)

    class StdDict(typing.TypedDict):
        x: int

    class Model(pydantic.BaseModel):
        x: int

    @dataclasses.dataclass
    class Data:
        x: int

    class Plain:
        x: int

    class ExtDict(typing_extensions.TypedDict):
        x: int

    return {
        "names": [
            _get_node_name(lambda s: s),
            _get_node_name(plain),
            _get_node_name(Callable_()),
            _get_node_name(Callable_().method),
        ],
        "channels": [
            _channel(Annotated[int, EphemeralValue]),
            _channel(Annotated[str, "metadata", EphemeralValue, "more"]),
            _channel(Annotated[Union[int, str], LastValue]),  # noqa: UP007
            _channel(int),
            _channel(Annotated[int, "just metadata"]),
        ],
        "given_kept": _is_field_channel(Annotated[int, "m", given, "n"]) is given,
        "pydantic": [
            is_supported_by_pydantic(t) for t in (ExtDict, StdDict, Model, Data, Plain, int)
        ],
    }
