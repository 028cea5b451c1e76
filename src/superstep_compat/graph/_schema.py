"""State-schema introspection: which channel and managed value each key of a schema gets.

A schema is a TypedDict (with inheritance, ``total=False``, ``NotRequired``), a pydantic model
or a dataclass. ``Annotated[T, reducer]`` gives a `BinaryOperatorAggregate`;
``Annotated[T, SomeChannel(...)]`` that channel; `RemainingSteps` / `IsLastStep` a managed
value; any other key a `LastValue`. A schema without fields (``dict``, ``int``) is one
``__root__`` channel. Must never import the engine.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from types import UnionType
from typing import Any, Literal

from typing_extensions import is_typeddict

from superstep_compat._internal._constants import ROOT_KEY
from superstep_compat.channels.base import BaseChannel
from superstep_compat.channels.binop import BinaryOperatorAggregate
from superstep_compat.channels.delta import DeltaChannel
from superstep_compat.channels.last_value import LastValue
from superstep_compat.managed.base import ManagedValueSpec, is_managed_value

__all__ = [
    "SchemaInfo",
    "SchemaKind",
    "channel_for_annotation",
    "coerce_state",
    "input_schema_of",
    "is_pydantic_model",
    "json_schema_of",
    "schema_info",
]

SchemaKind = Literal["typeddict", "pydantic", "dataclass", "class", "root", "any"]


@dataclass(frozen=True)
class SchemaInfo:
    """The channels of one schema. ``keys`` lists channel and managed keys in field order."""

    schema: Any
    kind: SchemaKind
    channels: dict[str, BaseChannel[Any, Any]]
    managed: dict[str, ManagedValueSpec]
    keys: tuple[str, ...] = field(default=())


def is_pydantic_model(obj: Any) -> bool:
    """Whether ``obj`` is a pydantic (v2 or v1) model class."""
    return (
        isinstance(obj, type)
        and (hasattr(obj, "model_fields") or hasattr(obj, "__fields__"))
        and any(base.__module__.startswith("pydantic") for base in obj.__mro__[1:])
    )


def _strip_required(annotation: Any) -> Any:
    """``NotRequired[T]`` / ``Required[T]`` / ``ReadOnly[T]`` -> ``T`` (outside Annotated)."""
    while True:
        origin = typing.get_origin(annotation)
        name = getattr(origin, "_name", None) or getattr(origin, "__name__", None)
        if origin is not None and name in {"NotRequired", "Required", "ReadOnly"}:
            annotation = typing.get_args(annotation)[0]
        else:
            return annotation


def _check_reducer(reducer: Callable[..., Any]) -> None:
    try:
        sig = inspect.signature(reducer)
    except (TypeError, ValueError):
        return
    positional = [
        p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if len(positional) != 2:
        got = ", ".join(p.name for p in sig.parameters.values())
        raise ValueError(f"Invalid reducer signature. Expected (a, b) -> c. Got ({got})")


def channel_for_annotation(key: str, annotation: Any) -> BaseChannel[Any, Any] | ManagedValueSpec:
    """The channel spec (or managed value class) for one schema key."""
    annotation = _strip_required(annotation)
    if typing.get_origin(annotation) is typing.Annotated:
        meta = annotation.__metadata__
        last = meta[-1] if meta else None
        if is_managed_value(last):
            return last
        # LangGraph takes the first channel among all the metadata, so that further
        # annotations (langchain's ``Annotated[T, EphemeralValue, PrivateStateAttr]``) keep it.
        for item in meta:
            if isinstance(item, DeltaChannel):
                return item.in_schema(_strip_required(annotation.__origin__), key)
            if isinstance(item, BaseChannel):
                spec = item.copy()
                spec.key = key
                return spec
            if isinstance(item, type) and issubclass(item, BaseChannel):
                return item(annotation.__origin__, key=key)  # type: ignore[call-arg]
        if callable(last) and not isinstance(last, type):
            _check_reducer(last)
            return BinaryOperatorAggregate(annotation, last, key=key)
    return LastValue(annotation, key=key)


def _field_hints(schema: Any) -> tuple[SchemaKind, dict[str, Any]]:
    if schema is Any:
        return "any", {}
    if is_typeddict(schema):
        hints = typing.get_type_hints(schema, include_extras=True)
        # one key named ``__root__``: LangGraph's older spelling of a root state
        return ("root" if list(hints) == [ROOT_KEY] else "typeddict"), hints
    if is_pydantic_model(schema):
        hints = typing.get_type_hints(schema, include_extras=True)
        fields = getattr(schema, "model_fields", None) or getattr(schema, "__fields__", {})
        return "pydantic", {k: hints.get(k, fields[k].annotation) for k in fields}
    if dataclasses.is_dataclass(schema) and isinstance(schema, type):
        hints = typing.get_type_hints(schema, include_extras=True)
        return "dataclass", {f.name: hints.get(f.name, f.type) for f in dataclasses.fields(schema)}
    if isinstance(schema, type) and schema.__module__ not in {"builtins", "typing"}:
        try:
            hints = typing.get_type_hints(schema, include_extras=True)
        except Exception:
            hints = {}
        hints = {k: v for k, v in hints.items() if typing.get_origin(v) is not typing.ClassVar}
        if hints:
            return "class", hints
    return "root", {}


def schema_info(schema: Any) -> SchemaInfo:
    """Introspect ``schema`` into channel specs and managed values, keyed by state key."""
    kind, hints = _field_hints(schema)
    channels: dict[str, BaseChannel[Any, Any]] = {}
    managed: dict[str, ManagedValueSpec] = {}
    if kind == "root":
        spec = channel_for_annotation(ROOT_KEY, hints.get(ROOT_KEY, schema))
        if is_managed_value(spec):
            managed[ROOT_KEY] = spec
        else:
            channels[ROOT_KEY] = spec  # type: ignore[assignment]
        return SchemaInfo(schema, kind, channels, managed, (ROOT_KEY,))
    for key, annotation in hints.items():
        spec = channel_for_annotation(key, annotation)
        if is_managed_value(spec):
            managed[key] = spec
        else:
            channels[key] = spec  # type: ignore[assignment]
    return SchemaInfo(schema, kind, channels, managed, tuple(hints))


def input_schema_of(action: Any) -> Any | None:
    """The schema named by the type annotation of a node function's first parameter, when
    it is a TypedDict, pydantic model or dataclass (so the node reads only those keys)."""
    target = action
    if not (inspect.isfunction(target) or inspect.ismethod(target)):
        call = getattr(type(action), "__call__", None)  # noqa: B004 - callable objects
        if call is None or not inspect.isfunction(call):
            return None
        target = action.__call__
    try:
        params = list(inspect.signature(target).parameters.values())
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception:
        return None
    if not params:
        return None
    hint = hints.get(params[0].name)
    if hint is None:
        return None
    if is_typeddict(hint) or is_pydantic_model(hint):
        return hint
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return hint
    return None


_kinds: dict[Any, SchemaKind] = {}


def _kind_of(schema: Any) -> SchemaKind:
    """`_field_hints`'s kind, computed once per schema: every task reads its input through
    `coerce_state`, and resolving type hints costs far more than the task itself."""
    try:
        return _kinds[schema]
    except KeyError:
        kind = _kinds[schema] = _field_hints(schema)[0]
        return kind
    except TypeError:  # an unhashable schema object: no caching
        return _field_hints(schema)[0]


def coerce_state(schema: Any, values: dict[str, Any]) -> Any:
    """Build the value a node receives from channel values: a model or dataclass instance
    for those schemas, the dict itself otherwise."""
    try:
        kind = _kinds[schema]  # (`_kind_of`'s memo, inline: this runs per task)
    except (KeyError, TypeError):
        kind = _kind_of(schema)
    if kind in ("pydantic", "dataclass"):
        return schema(**values)
    if kind == "root":
        return values.get(ROOT_KEY)
    return values


def _field_default(schema: Any, key: str, annotation: Any) -> Any:
    """A field's default in a generated JSON schema: a dataclass field's own default,
    ``None`` for an Optional annotation, else required (``...``)."""
    if dataclasses.is_dataclass(schema):
        for f in dataclasses.fields(schema):
            if f.name != key:
                continue
            if f.default is not dataclasses.MISSING and f.default is not ...:
                return f.default
            if f.default_factory is not dataclasses.MISSING:
                return f.default_factory()
    if typing.get_origin(annotation) in (typing.Union, UnionType) and type(None) in (
        typing.get_args(annotation)
    ):
        return None
    return ...


def _update_type(channel: BaseChannel[Any, Any]) -> Any:
    typ = channel.UpdateType
    return typing.get_args(typ)[0] if typing.get_origin(typ) is typing.Annotated else typ


def json_schema_of(
    schema: Any, info: SchemaInfo, channels: dict[str, BaseChannel[Any, Any]], name: str
) -> dict[str, Any]:
    """The JSON schema LangGraph reports for a graph's input or output ``schema``: a
    pydantic model's or TypedDict's own; otherwise a model named ``name`` with one field
    per channel (a root value: the value's type, defaulting to null)."""
    from pydantic import RootModel, TypeAdapter, create_model

    if info.kind == "pydantic":
        result: dict[str, Any] = schema.model_json_schema()
        return result
    if info.kind == "typeddict":
        return TypeAdapter(schema).json_schema()
    if info.kind == "root":
        typ = _update_type(channels[ROOT_KEY])
        root: Any = create_model(name, __base__=RootModel[typ], root=(typ, None))  # type: ignore[call-overload, valid-type]
        return root.model_json_schema()  # type: ignore[no-any-return]
    fields: dict[str, Any] = {}
    for key in info.keys:
        channel = channels.get(key)
        if channel is not None:
            typ = _update_type(channel)
            fields[key] = (typ, _field_default(schema, key, typ))
    model: Any = create_model(name, **fields)
    return model.model_json_schema()  # type: ignore[no-any-return]
