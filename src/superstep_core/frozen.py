"""A cheaper ``__init__`` for the frozen, slotted dataclasses built once per node activation.

A frozen dataclass's generated ``__init__`` sets each field with ``object.__setattr__(self,
name, value)``: a generic attribute lookup per field, several times dearer than a plain
assignment (an `Effect`, an `EffectRequest` and an `EffectCompleted` are built for every
task). `quick_init` replaces it with one that calls each slot's own descriptor setter, the
same signature, defaults and default factories; the class stays what it was (frozen: an
assignment still raises, equality and hash unchanged).

Must never import anything of the engine: every layer's records may use it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["quick_init"]

T = TypeVar("T", bound=type)


class _Factory:
    """The default of a field with a default factory (a marker, never a value)."""

    __slots__ = ()

    def __repr__(self) -> str:  # pragma: no cover - shows only in a signature
        return "<factory>"


_FACTORY = _Factory()


def quick_init(cls: T) -> T:
    """Give frozen slotted dataclass ``cls`` the cheaper ``__init__`` (see the module).
    Raises `TypeError` for a class it does not fit (not frozen and slotted, keyword-only
    fields, init-only or non-init fields, a ``__post_init__``)."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"quick_init: {cls.__name__} is not a frozen, slotted dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"quick_init: {cls.__name__} has a __post_init__")
    namespace: dict[str, Any] = {"_FACTORY": _FACTORY}
    args: list[str] = []
    body: list[str] = []
    for f in dataclasses.fields(cls):
        if not f.init or f.kw_only:
            raise TypeError(f"quick_init: {cls.__name__}.{f.name} is not a positional init field")
        name = f.name
        namespace[f"_set_{name}"] = cls.__dict__[name].__set__
        if f.default is not dataclasses.MISSING:
            namespace[f"_default_{name}"] = f.default
            args.append(f"{name}=_default_{name}")
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{name}"] = f.default_factory
            args.append(f"{name}=_FACTORY")
            body.append(f"    if {name} is _FACTORY: {name} = _factory_{name}()")
        else:
            args.append(name)
        body.append(f"    _set_{name}(self, {name})")
    source = f"def __init__(self, {', '.join(args)}):\n" + "\n".join(body or ["    pass"])
    exec(source, namespace)  # the text above: field names and fixed code only
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    setattr(cls, "__init__", init)  # noqa: B010 - mypy refuses assigning a class's __init__
    return cls
