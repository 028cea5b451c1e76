"""Pydantic helpers at LangGraph's path ``langgraph._internal._pydantic``.

Only the helpers with a behaviour of their own that code built on LangGraph imports:
`is_supported_by_pydantic` (can pydantic validate this container type?) and `get_fields`.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from typing import Any

import typing_extensions
from pydantic import BaseModel
from pydantic.fields import FieldInfo

__all__ = ["get_fields", "is_supported_by_pydantic"]


def is_supported_by_pydantic(type_: Any) -> bool:
    """Whether pydantic can validate ``type_`` as a container: a dataclass, a pydantic model,
    or a TypedDict declared with ``typing_extensions.TypedDict`` (``typing.TypedDict`` only
    from Python 3.12, the first version pydantic accepts it on). Primitive types and plain
    classes give False. Follows LangGraph 1.2's function of this name."""
    if dataclasses.is_dataclass(type_):
        return True
    if isinstance(type_, type) and issubclass(type_, BaseModel):
        return True
    # a TypedDict class keeps the TypedDict factory it was declared with in __orig_bases__
    for base in getattr(type_, "__orig_bases__", ()):
        if base is typing_extensions.TypedDict:
            return True
        if base is typing.TypedDict:  # pydantic takes the stdlib one only from 3.12
            return sys.version_info >= (3, 12)
    return False


def get_fields(model: type[BaseModel] | BaseModel) -> dict[str, FieldInfo]:
    """The fields of a pydantic v2 model class or instance, by name."""
    cls = model if isinstance(model, type) else type(model)
    return dict(cls.model_fields)
