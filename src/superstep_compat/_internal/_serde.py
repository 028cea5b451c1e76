"""The msgpack allowlist a compiled graph gives its checkpointer under strict deserialisation.

With ``LANGGRAPH_STRICT_MSGPACK=true`` (read by `langgraph-checkpoint` at import, exposed here
as `STRICT_MSGPACK_ENABLED`), a checkpoint serializer revives only its built-in safe types and
the ``(module, class)`` pairs it is allowed. As LangGraph does (``langgraph._internal._serde``,
1.2), compiling a graph then collects the classes its schemas and channels can hold (pydantic
models, dataclasses and Enums, found through unions, ``Annotated``, containers, TypedDict fields
and NewTypes), adds langchain-core's message classes, and runs on
``checkpointer.with_allowlist(...)``; with the flag off nothing changes (the serializer revives
any class, warning about unregistered ones).

The engine's own records never reach the serializer (they ride as codec bytes, see
`pregel._lgcheckpoint`), so they need no entry here.
"""

from __future__ import annotations

import dataclasses
import logging
import sys
import types
from collections import deque
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from langchain_core import messages as lc_messages
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde import _msgpack
from pydantic import BaseModel
from typing_extensions import is_typeddict

__all__ = [
    "STRICT_MSGPACK_ENABLED",
    "apply_checkpointer_allowlist",
    "build_serde_allowlist",
    "collect_allowlist_from_schemas",
    "curated_core_allowlist",
]

logger = logging.getLogger(__name__)

STRICT_MSGPACK_ENABLED: bool = bool(getattr(_msgpack, "STRICT_MSGPACK_ENABLED", False))
"""Whether ``LANGGRAPH_STRICT_MSGPACK`` asked for strict deserialisation (read at import)."""

Allowlist = set[tuple[str, ...]]

_MESSAGE_CLASSES = (
    "BaseMessage",
    "BaseMessageChunk",
    "HumanMessage",
    "HumanMessageChunk",
    "AIMessage",
    "AIMessageChunk",
    "SystemMessage",
    "SystemMessageChunk",
    "ChatMessage",
    "ChatMessageChunk",
    "ToolMessage",
    "ToolMessageChunk",
    "FunctionMessage",
    "FunctionMessageChunk",
    "RemoveMessage",
)
_CONTAINERS = (list, set, tuple, dict, deque, frozenset)
_warned_unsupported = False


def apply_checkpointer_allowlist(checkpointer: Any, allowlist: Allowlist | None) -> Any:
    """``checkpointer.with_allowlist(allowlist)``; the checkpointer itself when it is not a
    saver (None, True, False), when ``allowlist`` is None, or (warned once) when the installed
    ``langgraph-checkpoint`` predates ``with_allowlist``."""
    global _warned_unsupported
    if not checkpointer or checkpointer is True or allowlist is None:
        return checkpointer
    if not hasattr(BaseCheckpointSaver, "with_allowlist"):
        if not _warned_unsupported:
            logger.warning(
                "this langgraph-checkpoint has no with_allowlist: the strict msgpack "
                "allowlist of compiled graphs is not applied"
            )
            _warned_unsupported = True
        return checkpointer
    return checkpointer.with_allowlist(allowlist)


def curated_core_allowlist() -> Allowlist:
    """The ``(module, class)`` pairs of langchain-core's message classes (and chunks)."""
    found: Allowlist = set()
    for name in _MESSAGE_CLASSES:
        cls = getattr(lc_messages, name, None)
        if cls is not None:
            found.add((cls.__module__, cls.__name__))
    return found


def build_serde_allowlist(
    *, schemas: Iterable[Any] | None = None, channels: Mapping[str, Any] | None = None
) -> Allowlist:
    """`curated_core_allowlist` plus what `collect_allowlist_from_schemas` finds (None
    schemas skipped)."""
    kept = [s for s in schemas if s is not None] if schemas else None
    return curated_core_allowlist() | collect_allowlist_from_schemas(
        schemas=kept, channels=channels
    )


def collect_allowlist_from_schemas(
    *, schemas: Iterable[Any] | None = None, channels: Mapping[str, Any] | None = None
) -> Allowlist:
    """The classes values of ``schemas`` (types or typing forms) and of ``channels`` (their
    ``ValueType`` and ``UpdateType``) can hold: pydantic models (v1 and v2), dataclasses and
    Enums, at any depth of fields, unions, ``Annotated``, ``Required``/``NotRequired``,
    ``list``/``set``/``tuple``/``dict``/``deque``/``frozenset`` arguments and NewTypes. A
    TypedDict contributes its fields' classes, not itself; ``Any``, ``None`` and ``Literal``
    contribute nothing. Forward references that do not resolve are skipped."""
    walk = _Walk()
    for schema in schemas or ():
        walk.visit(schema)
    for channel in (channels or {}).values():
        for attr in ("ValueType", "UpdateType"):
            typ = getattr(channel, attr, None)
            if typ is not None:
                walk.visit(typ)
    return walk.found


class _Walk:
    """One traversal: the classes found, and the types visited (a type may recur, and a
    dataclass may refer to itself)."""

    def __init__(self) -> None:
        self.found: Allowlist = set()
        self._seen: set[Any] = set()
        self._seen_ids: set[int] = set()

    def visit(self, typ: Any) -> None:
        if typ is Any or typ is None or typ is Literal or self._visited(typ):
            return
        origin = get_origin(typ)
        if isinstance(typ, types.UnionType) or origin is Union:
            self._visit_all(get_args(typ))
        elif origin in (Annotated, Required, NotRequired):
            self._visit_all(get_args(typ)[:1])
        elif origin is Literal:
            return
        elif origin in _CONTAINERS:
            self._visit_all(get_args(typ))
        elif hasattr(typ, "__supertype__"):  # a NewType
            self.visit(typ.__supertype__)
        elif is_typeddict(typ):
            self._visit_all(_hints(typ).values())
        elif _is_pydantic_model(typ):
            self._add(typ)
            self._visit_all(_hints(typ).values() or _pydantic_field_types(typ))
        elif dataclasses.is_dataclass(typ) and isinstance(typ, type):
            self._add(typ)
            self._visit_all(_hints(typ).values() or [f.type for f in dataclasses.fields(typ)])
        elif isinstance(typ, type) and issubclass(typ, Enum):
            self._add(typ)

    def _visit_all(self, types_: Iterable[Any]) -> None:
        for typ in types_:
            self.visit(typ)

    def _add(self, cls: type) -> None:
        self.found.add((cls.__module__, cls.__name__))

    def _visited(self, typ: Any) -> bool:
        try:
            if typ in self._seen:
                return True
            self._seen.add(typ)
        except TypeError:  # unhashable typing forms: by identity
            if id(typ) in self._seen_ids:
                return True
            self._seen_ids.add(id(typ))
        return False


def _hints(typ: Any) -> dict[str, Any]:
    # resolved in the class's own module and namespace; an unresolvable forward reference
    # (a name only imported under TYPE_CHECKING) gives no hints rather than an error
    module = sys.modules.get(getattr(typ, "__module__", ""))
    try:
        return get_type_hints(
            typ,
            globalns=module.__dict__ if module else None,
            localns=dict(vars(typ)) if hasattr(typ, "__dict__") else None,
            include_extras=True,
        )
    except Exception:
        return {}


def _is_pydantic_model(typ: Any) -> bool:
    if not isinstance(typ, type):
        return False
    if issubclass(typ, BaseModel):
        return True
    try:
        from pydantic.v1 import BaseModel as BaseModelV1
    except ImportError:
        return False
    return issubclass(typ, BaseModelV1)


def _pydantic_field_types(typ: Any) -> list[Any]:
    fields = getattr(typ, "model_fields", None)
    if fields is not None:
        return [f.annotation for f in fields.values() if f.annotation is not None]
    v1_fields = getattr(typ, "__fields__", {})
    return [f.outer_type_ for f in v1_fields.values()]
