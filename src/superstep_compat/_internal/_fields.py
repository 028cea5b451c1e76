"""State-schema field helpers under LangGraph's private names (``langgraph._internal._fields``),
which libraries built on LangGraph import: whether an annotation admits None
(`_is_optional_type`), the default a schema generator gives a field (`get_field_default`),
and each field's type, default and description (`get_enhanced_type_hints`).
Must never import the engine.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator
from types import UnionType
from typing import Any, TypeVar

import typing_extensions
from pydantic_core import PydanticUndefined

__all__ = ["_is_optional_type", "get_enhanced_type_hints", "get_field_default"]

_REQUIRED = {typing.Required, typing_extensions.Required}
_NOT_REQUIRED = {typing.NotRequired, typing_extensions.NotRequired}


def _is_optional_type(type_: Any) -> bool:
    """Whether ``type_`` admits None: ``None`` itself, a union with ``None`` (nested unions
    and ``Annotated`` members too), or a type variable bound to one. ``NoneType`` alone,
    ``Any`` and containers of optional items do not."""
    if type_ is None:
        return True
    if isinstance(type_, TypeVar):
        return type_.__bound__ is not None and _is_optional_type(type_.__bound__)
    origin = typing.get_origin(type_)
    if origin is typing.Annotated:
        return _is_optional_type(typing.get_args(type_)[0])
    if origin in (typing.Union, UnionType):
        return any(a is type(None) or _is_optional_type(a) for a in typing.get_args(type_))
    return False


def _required_mark(type_: Any) -> bool | None:
    """True for ``Required[...]``, False for ``NotRequired[...]`` (either also inside or
    around ``Annotated``), None when the annotation says neither."""
    origin = typing.get_origin(type_)
    if origin in _REQUIRED:
        return True
    if origin in _NOT_REQUIRED:
        return False
    if origin is typing.Annotated:
        return _required_mark(typing.get_args(type_)[0])
    return None


def get_field_default(name: str, type_: Any, schema: type[Any]) -> Any:
    """The default of field ``name`` (annotated ``type_``) of ``schema`` in a generated
    schema: ``...`` (required) when marked ``Required``; None when it may be left out
    (``NotRequired``, or a ``total=False`` TypedDict's key) or admits None; else ``...``."""
    mark = _required_mark(type_)
    if mark is True:
        return ...
    if mark is False or name in getattr(schema, "__optional_keys__", frozenset()):
        return None
    return None if _is_optional_type(type_) else ...


def get_enhanced_type_hints(
    type_: type[Any],
) -> Iterator[tuple[str, Any, Any, str | None]]:
    """``(name, type, default, description)`` for each field of a pydantic model, dataclass
    or TypedDict (a class attribute is a TypedDict key's default), in declaration order;
    default and description None when there is none (a default factory is not called:
    None too)."""
    fields = getattr(type_, "model_fields", None)
    if isinstance(fields, dict):  # a pydantic model
        for name, info in fields.items():
            default = None if info.default is PydanticUndefined else info.default
            yield name, info.annotation, default, info.description
        return
    hints = typing.get_type_hints(type_)
    if dataclasses.is_dataclass(type_):
        for f in dataclasses.fields(type_):
            default = None if f.default is dataclasses.MISSING else f.default
            yield f.name, hints.get(f.name, f.type), default, None
        return
    for name, hint in hints.items():
        yield name, hint, getattr(type_, name, None), None
