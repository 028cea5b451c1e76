"""How registered classes become plain state and back: dataclasses, pydantic v2 models, enums.

A handler turns an object into *state* (a value the codec can write: plain data, further
registered objects) and rebuilds the object from the decoded state. Rebuilding never runs the
class's ``__init__`` or validators: the stored field values are put back as they were, so a value
comes back equal and of the same type even when ``__post_init__`` or a validator would have
transformed it again.

Owns: `TypeHandler`, `Fields` and the built-in handler factories.
Must never import: the runtime, the host, the llm layer, compat, or superstep_core.checkpoint.
"""

from __future__ import annotations

import dataclasses
import enum
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pydantic

__all__ = [
    "Fields",
    "Parts",
    "TypeHandler",
    "custom_handler",
    "dataclass_handler",
    "default_handler",
    "enum_handler",
    "is_default_handled",
    "pydantic_handler",
]

_setattr = object.__setattr__


class Fields(dict[str, Any]):
    """A field-name -> value mapping inside a handler's state. The codec writes it as a plain
    map; it only changes how an error path is spelled (``.name`` instead of ``['name']``)."""


class Parts(list[Any]):
    """A handler's state made of several parts. The codec writes it as a plain list; an error
    path does not mention the part's index (``doc.body``, not ``doc[0].body``)."""


@dataclass(frozen=True)
class TypeHandler:
    """How one class is written and read.

    ``tag`` is the name written into the bytes (by default ``"module:qualname"``).
    ``to_state(obj)`` returns a codec-writable value; ``from_state(state)`` rebuilds the object
    from the decoded state (``Fields`` come back as plain ``dict``).
    """

    cls: type
    tag: str
    to_state: Callable[[Any], Any]
    from_state: Callable[[Any], Any]


def is_default_handled(cls: type) -> bool:
    """True when `default_handler` knows the class: a dataclass, pydantic v2 model or Enum."""
    return (
        dataclasses.is_dataclass(cls)
        or issubclass(cls, pydantic.BaseModel)
        or issubclass(cls, enum.Enum)
    )


def default_handler(cls: type, tag: str) -> TypeHandler:
    """The handler for a dataclass, pydantic v2 model or Enum class.

    Raises ``TypeError`` when the class is none of those (register it with ``encode`` and
    ``decode`` instead).
    """
    if issubclass(cls, enum.Enum):
        return enum_handler(cls, tag)
    if issubclass(cls, pydantic.BaseModel):
        return pydantic_handler(cls, tag)
    if dataclasses.is_dataclass(cls):
        return dataclass_handler(cls, tag)
    raise TypeError(
        f"{cls.__module__}.{cls.__qualname__} is not a dataclass, pydantic model or Enum; "
        f"register it with encode= and decode= functions"
    )


def custom_handler(
    cls: type, tag: str, encode: Callable[[Any], Any], decode: Callable[[Any], Any]
) -> TypeHandler:
    """A handler from user functions: ``encode(obj) -> state``, ``decode(state) -> obj``."""
    return TypeHandler(cls, tag, encode, decode)


def enum_handler(cls: type[enum.Enum], tag: str) -> TypeHandler:
    """Members are written as their ``value`` and read back with ``cls(value)`` (so flag
    combinations work too)."""

    def to_state(member: enum.Enum) -> Any:
        return member.value

    def from_state(value: Any) -> enum.Enum:
        return cls(value)

    return TypeHandler(cls, tag, to_state, from_state)


def _constant(value: Any) -> Callable[[], Any]:
    return lambda: value


def dataclass_handler(cls: type, tag: str) -> TypeHandler:
    """Every field of ``dataclasses.fields`` (``init=False`` fields too) is written; reading sets
    them back on a fresh instance without calling ``__init__``/``__post_init__``. A field the
    stored state lacks (added to the class after it was written) gets its default, so older
    bytes stay readable. Attributes that are not dataclass fields are not kept."""
    fields = dataclasses.fields(cls)
    names = tuple(f.name for f in fields)
    defaults: dict[str, Callable[[], Any]] = {}
    for f in fields:
        if f.default is not dataclasses.MISSING:
            defaults[f.name] = _constant(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            defaults[f.name] = f.default_factory
    new: Any = cls.__new__

    if len(names) > 1:
        get_all = operator.attrgetter(*names)

        def to_state(obj: Any) -> Fields:
            # attrgetter fetches every field in one C call (the codec's hot path)
            return Fields(zip(names, get_all(obj), strict=True))
    else:

        def to_state(obj: Any) -> Fields:
            return Fields({name: getattr(obj, name) for name in names})

    def from_state(state: dict[str, Any]) -> Any:
        obj = new(cls)
        for name, value in state.items():
            _setattr(obj, name, value)
        if len(state) < len(names):
            for name, make in defaults.items():
                if name not in state:
                    _setattr(obj, name, make())
        return obj

    return TypeHandler(cls, tag, to_state, from_state)


def pydantic_handler(cls: type[pydantic.BaseModel], tag: str) -> TypeHandler:
    """A pydantic v2 model is written as its field values, extra values, set-field names and
    private attributes; reading restores exactly those, without running validators (like
    ``model_construct`` but keeping private attributes and ``model_fields_set``)."""
    root = bool(getattr(cls, "__pydantic_root_model__", False))

    def to_state(model: pydantic.BaseModel) -> Parts:
        values = Fields({name: getattr(model, name) for name in type(model).model_fields})
        extra = model.__pydantic_extra__
        private = None if root else model.__pydantic_private__
        return Parts(
            [
                values,
                None if extra is None else Fields(extra),
                sorted(model.model_fields_set),
                None if private is None else Fields(private),
            ]
        )

    def from_state(state: list[Any]) -> pydantic.BaseModel:
        values, extra, fields_set, private = state
        model = cls.__new__(cls)
        _setattr(model, "__dict__", values)
        _setattr(model, "__pydantic_fields_set__", set(fields_set))
        if not root:
            _setattr(model, "__pydantic_extra__", extra)
            _setattr(model, "__pydantic_private__", private)
        return model

    return TypeHandler(cls, tag, to_state, from_state)
