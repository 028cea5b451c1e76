"""The codec's type registry: which classes may be written, and which tags may be read back.

Safe rule — the bytes never choose what code runs:

1. A class registered explicitly (`TypeRegistry.register` / module-level `register`) is written
   under its tag and read back through its handler. Dataclasses, pydantic v2 models and Enums
   need no functions; any other class needs ``encode`` and ``decode``.
2. A dataclass, pydantic v2 model or Enum defined in a module under one of the registry's
   *allowed module prefixes* (``allow_modules=("myapp",)`` allows ``myapp`` and
   ``myapp.models``) is registered on first write under ``"module:qualname"``. On read, such a
   tag imports its module only when the module is allowed, and the object found there must be a
   dataclass, pydantic model or Enum whose own module and qualname match the tag.
3. langchain-core messages and ``Document`` are built in (see `persistence.langchain`).

Everything else is refused at write time (`UnsupportedTypeError`) and at read time
(`DecodeError`). Subclasses are not covered by their base's registration: the exact class must
qualify. Nothing is ever unpickled.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.checkpoint.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from superstep_core.persistence.langchain import (
    LANGCHAIN_MODULE_PREFIX,
    LANGCHAIN_TAG_PREFIX,
    langchain_handlers,
)
from superstep_core.persistence.objects import (
    TypeHandler,
    custom_handler,
    default_handler,
    is_default_handled,
)

__all__ = ["TypeRegistry", "default_registry", "register", "type_name"]

T = TypeVar("T", bound=type)


def type_name(cls: type) -> str:
    """``module.qualname`` of a class, as error messages spell it."""
    return f"{cls.__module__}.{cls.__qualname__}"


class TypeRegistry:
    """Classes the codec may write and read back (see the module docstring for the rule).

    ``allow_modules``: module prefixes whose dataclasses, pydantic models and Enums are accepted
    without explicit registration. ``langchain``: whether langchain-core messages are built in.
    Safe to share between threads.
    """

    def __init__(self, *, allow_modules: Iterable[str] = (), langchain: bool = True) -> None:
        self._by_type: dict[type, TypeHandler] = {}
        self._by_tag: dict[str, TypeHandler] = {}
        self._allowed: tuple[str, ...] = tuple(allow_modules)
        self._langchain_pending = langchain
        self._lock = threading.RLock()

    @property
    def allowed_modules(self) -> tuple[str, ...]:
        """The allowed module prefixes, in the order they were given."""
        return self._allowed

    def allow_module(self, prefix: str) -> None:
        """Accept dataclasses, pydantic models and Enums from ``prefix`` and its submodules."""
        with self._lock:
            if prefix not in self._allowed:
                self._allowed = (*self._allowed, prefix)

    def register(
        self,
        cls: T,
        *,
        tag: str | None = None,
        encode: Callable[[Any], Any] | None = None,
        decode: Callable[[Any], Any] | None = None,
    ) -> T:
        """Make ``cls`` writable and readable; returns ``cls`` (usable as a decorator).

        ``tag`` (default ``"module:qualname"``) is what the bytes store: keep it stable across
        releases, or old checkpoints stop loading. ``encode(obj) -> state`` and
        ``decode(state) -> obj`` are required for classes that are not dataclasses, pydantic
        models or Enums, and must be given together. Registering the same class again replaces
        its handler. Raises ``ValueError`` when the tag already belongs to another class, and
        ``TypeError`` when ``encode``/``decode`` are missing for a class that needs them.
        """
        tag = tag if tag is not None else default_tag(cls)
        if (encode is None) != (decode is None):
            raise TypeError(
                f"register({type_name(cls)}): give both encode= and decode=, or neither"
            )
        if encode is not None and decode is not None:
            handler = custom_handler(cls, tag, encode, decode)
        else:
            handler = default_handler(cls, tag)
        self._add(handler)
        return cls

    def copy(self) -> TypeRegistry:
        """An independent registry with the same handlers and allowed modules."""
        with self._lock:
            other = TypeRegistry(allow_modules=self._allowed, langchain=self._langchain_pending)
            other._by_type = dict(self._by_type)
            other._by_tag = dict(self._by_tag)
        return other

    def for_type(self, cls: type) -> TypeHandler | None:
        """The handler that writes instances of exactly ``cls``, or ``None`` if it may not be
        written. Applies rules 2 and 3 of the module docstring on first sight."""
        handler = self._by_type.get(cls)
        if handler is not None:
            return handler
        module = cls.__module__
        if self._langchain_pending and module.startswith(LANGCHAIN_MODULE_PREFIX):
            self._load_langchain()
            return self._by_type.get(cls)
        if (
            self._module_allowed(module)
            and "<locals>" not in cls.__qualname__
            and is_default_handled(cls)
        ):
            self._add(default_handler(cls, default_tag(cls)))
            return self._by_type.get(cls)
        return None

    def for_tag(self, tag: str) -> TypeHandler | None:
        """The handler that reads ``tag``, or ``None`` if the tag may not be read."""
        handler = self._by_tag.get(tag)
        if handler is not None:
            return handler
        if self._langchain_pending and tag.startswith(LANGCHAIN_TAG_PREFIX):
            self._load_langchain()
            return self._by_tag.get(tag)
        cls = self._import_allowed(tag)
        if cls is None:
            return None
        self._add(default_handler(cls, tag))
        return self._by_tag.get(tag)

    def _add(self, handler: TypeHandler) -> None:
        with self._lock:
            owner = self._by_tag.get(handler.tag)
            if owner is not None and owner.cls is not handler.cls:
                raise ValueError(
                    f"tag {handler.tag!r} already names {type_name(owner.cls)}; "
                    f"choose another tag for {type_name(handler.cls)}"
                )
            previous = self._by_type.get(handler.cls)
            if previous is not None and previous.tag != handler.tag:
                del self._by_tag[previous.tag]
            self._by_type[handler.cls] = handler
            self._by_tag[handler.tag] = handler

    def _load_langchain(self) -> None:
        with self._lock:
            if not self._langchain_pending:
                return
            self._langchain_pending = False
            for handler in langchain_handlers():
                if handler.cls not in self._by_type and handler.tag not in self._by_tag:
                    self._add(handler)

    def _module_allowed(self, module: str) -> bool:
        return any(module == p or module.startswith(p + ".") for p in self._allowed)

    def _import_allowed(self, tag: str) -> type | None:
        module_name, sep, qualname = tag.partition(":")
        if not sep or not qualname or not self._module_allowed(module_name):
            return None
        try:
            obj: Any = importlib.import_module(module_name)
            for part in qualname.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError):
            return None
        if not (
            isinstance(obj, type)
            and obj.__module__ == module_name
            and obj.__qualname__ == qualname
            and is_default_handled(obj)
        ):
            return None
        return obj


def default_tag(cls: type) -> str:
    """The tag a class is written under unless registered with another: ``module:qualname``."""
    return f"{cls.__module__}:{cls.__qualname__}"


default_registry = TypeRegistry()
"""The registry a `Codec` uses when none is given; `register` adds to it."""


def register(
    cls: T,
    *,
    tag: str | None = None,
    encode: Callable[[Any], Any] | None = None,
    decode: Callable[[Any], Any] | None = None,
) -> T:
    """Register ``cls`` in `default_registry`; see `TypeRegistry.register`."""
    return default_registry.register(cls, tag=tag, encode=encode, decode=decode)
