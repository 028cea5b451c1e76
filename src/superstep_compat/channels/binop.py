"""`BinaryOperatorAggregate`: the reducer channel behind ``Annotated[T, reducer]``."""

from __future__ import annotations

import collections.abc
import typing
from collections.abc import Callable, Sequence
from typing import Any

from superstep_compat._internal._constants import OVERWRITE
from superstep_compat.channels.base import MISSING, BaseChannel
from superstep_compat.errors import one_overwrite_error

__all__ = ["BinaryOperatorAggregate", "initial_value_of"]

_ABSTRACT_TO_CONCRETE: dict[Any, type] = {
    collections.abc.Sequence: list,
    collections.abc.MutableSequence: list,
    collections.abc.Set: set,
    collections.abc.MutableSet: set,
    collections.abc.Mapping: dict,
    collections.abc.MutableMapping: dict,
}


def _strip(typ: Any) -> Any:
    """Remove Annotated / Required / NotRequired / ReadOnly wrappers and generic args."""
    wrappers = {"Required", "NotRequired", "ReadOnly"}
    while True:
        origin = typing.get_origin(typ)
        if (
            origin is typing.Annotated
            or (origin is not None and getattr(origin, "_name", None) in wrappers)
            or getattr(origin, "__name__", None) in wrappers
        ):
            typ = typing.get_args(typ)[0]
        else:
            return origin if origin is not None else typ


def initial_value_of(typ: Any) -> Any:
    """``typ()`` when the (unwrapped) type can be built with no arguments, else MISSING."""
    base = _strip(typ)
    base = _ABSTRACT_TO_CONCRETE.get(base, base)
    if not isinstance(base, type):
        return MISSING
    try:
        return base()
    except Exception:
        return MISSING


class BinaryOperatorAggregate(BaseChannel[Any, Any]):
    """Folds each write into the value with ``operator(current, write)``; starts at
    ``typ()`` when that can be built. An `Overwrite` write replaces the value."""

    def __init__(self, typ: Any, operator: Callable[[Any, Any], Any], key: str = "") -> None:
        super().__init__(typ, key)
        self.operator = operator
        self.value = initial_value_of(typ)

    def initial(self) -> Any:
        return initial_value_of(self.typ)

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        seen_overwrite = False
        for item in values:
            overwrite = _overwrite_value(item)
            if overwrite is not MISSING:
                if seen_overwrite:
                    raise one_overwrite_error()
                seen_overwrite = True
                self.value = overwrite
            elif not seen_overwrite:
                self.value = item if self.value is MISSING else self.operator(self.value, item)
        return True

    def _spec_key(self) -> tuple[Any, ...]:
        return (self.typ, self.operator)

    def __repr__(self) -> str:
        name = getattr(self.operator, "__name__", repr(self.operator))
        return f"BinaryOperatorAggregate({self.typ!r}, {name})"


def _get_overwrite(value: Any) -> tuple[bool, Any]:
    """``(True, the value to write)`` when ``value`` is an overwrite, else ``(False, None)``
    (LangGraph's). Three forms: an `Overwrite`; the ``{"__overwrite__": value}`` dict; and
    ``{"type": "__overwrite__", "value": ...}``, an `Overwrite` whose dataclass was erased
    by JSON (a state update sent to the server), so the overwrite survives that trip."""
    from superstep_compat.types import Overwrite

    if isinstance(value, Overwrite):
        return True, value.value
    if isinstance(value, dict):
        if len(value) == 1 and OVERWRITE in value:
            return True, value[OVERWRITE]
        if value.get("type") == OVERWRITE and "value" in value:
            return True, value["value"]
    return False, None


def _overwrite_value(item: Any) -> Any:
    """The value an overwrite writes (`_get_overwrite`), or MISSING for any other write."""
    is_overwrite, value = _get_overwrite(item)
    return value if is_overwrite else MISSING
