"""The engine's resumable state in a LangGraph checkpoint: the ``__superstep_facade__``
channel's value, the record without what LangGraph's own fields hold (see `_lgcheckpoint`),
stamped with its checkpoint's id, as bytes of the engine's typed codec; values the codec does
not know go through the saver's serializer inside those bytes.

Never imports the host or the engine's persistence stores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, TypeVar

from superstep_compat._internal._policies import CachePolicy, TimeoutPolicy
from superstep_compat.pregel._record import CheckpointRecord, TaskRecord
from superstep_compat.types import Command, Interrupt, Overwrite, PregelTask, Send, StateSnapshot
from superstep_core.persistence import (
    Codec,
    DecodeError,
    ForeignSerializer,
    TypeRegistry,
    default_registry,
)
from superstep_core.persistence.execution import engine_registry

__all__ = ["engine_blob", "engine_codec", "record_from_blob"]

_T = TypeVar("_T")

_TAG_PREFIX = "langgraph:"


def _ensure(registry: TypeRegistry, cls: type, **functions: Any) -> None:
    tag = _TAG_PREFIX + cls.__name__
    handler = registry.for_type(cls)
    if handler is None or handler.tag != tag:
        registry.register(cls, tag=tag, **functions)


def _registry() -> TypeRegistry:
    """`default_registry` (so classes given to ``register`` are accepted) with the engine's
    records and the façade's types."""
    target = engine_registry(default_registry)
    for cls in (Command, Interrupt, Overwrite, CachePolicy, TimeoutPolicy):
        _ensure(target, cls)
    _ensure(target, CheckpointRecord)
    _ensure(target, TaskRecord)
    _ensure(target, Send, encode=lambda s: [s.node, s.arg, s.timeout], decode=_send_from)
    _ensure(target, PregelTask, encode=list, decode=lambda state: PregelTask(*state))
    _ensure(target, StateSnapshot, encode=list, decode=lambda state: StateSnapshot(*state))
    return target


def _send_from(state: list[Any]) -> Send:
    node, arg, timeout = state
    return Send(node, arg, timeout=timeout)


_CODEC = Codec(_registry())


def engine_codec() -> Codec:
    """The codec of the ``__superstep_facade__`` blob: the engine's records and the façade's types,
    plus whatever is registered with ``superstep_core.persistence.register``."""
    return _CODEC


_FIELDS: dict[type, tuple[str, ...]] = {}


def _shallow_copy(obj: _T, **changes: Any) -> _T:
    """``obj`` with ``changes``, fields copied by reference (cheaper than `replace`)."""
    cls = type(obj)
    state = getattr(obj, "__dict__", None)
    if state is not None:  # not a slots class: copy its attributes in one go
        copy = cls.__new__(cls)
        copy.__dict__.update(state, **changes)
        return copy
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
    copy = cls.__new__(cls)
    for name in names:
        object.__setattr__(copy, name, changes[name] if name in changes else getattr(obj, name))
    return copy


# one codec per serializer (a saver keeps its serde; `with_allowlist` makes a new saver and
# serde), by identity: serializers need not be hashable; the entry keeps its serde alive, so
# its id is not reused while cached
_BLOB_CODECS: dict[int, tuple[ForeignSerializer, Codec]] = {}


def _blob_codec(serde: ForeignSerializer) -> Codec:
    cached = _BLOB_CODECS.get(id(serde))
    if cached is not None and cached[0] is serde:
        return cached[1]
    if len(_BLOB_CODECS) >= 64:
        _BLOB_CODECS.clear()
    codec = engine_codec().with_foreign(serde)
    _BLOB_CODECS[id(serde)] = (serde, codec)
    return codec


def engine_blob(record: CheckpointRecord, serde: ForeignSerializer) -> bytes:
    """The record without what LangGraph's fields already hold, stamped with its id, as bytes
    of the engine codec. Values of the engine that are not the record's state values (a step
    that did not finish) ride along; a value of a class the codec does not know is written by
    ``serde`` (the saver's serializer) inside those bytes, so the saver's serializer only ever
    sees bytes for this channel and never the engine's own types."""
    engine = record.engine
    engine_keys: list[str] = []
    extra: dict[str, Any] = {}
    built = record.checkpoint
    # what the checkpoint's channels hold (a channel never written is not among them)
    values = record.values if built is None else built["channel_values"]
    if engine is not None:
        engine_keys = list(engine.values)
        missing = object()
        extra = {k: v for k, v in engine.values.items() if values.get(k, missing) is not v}
        engine = _shallow_copy(engine, values={})
    header = _shallow_copy(
        record,
        values={},
        engine=engine,
        checkpoint=None,
        triggers={},
        tasks=list(record.tasks),
        pending=[],
        stored=None,
    )
    payload = [record.checkpoint_id, header, engine_keys, extra, list(record.values)]
    return _blob_codec(serde).dumps(payload, f"checkpoint {record.checkpoint_id}")


def record_from_blob(
    blob: Any, checkpoint_id: str, all_values: Mapping[str, Any], serde: ForeignSerializer | None
) -> CheckpointRecord | None:
    """The record the blob of checkpoint ``checkpoint_id`` holds (None: it is another
    checkpoint's, carried forward by LangGraph, or unreadable). ``serde``: the saver's
    serializer, for the values it wrote inside the blob. A blob stored as a list instead of
    bytes was written by an earlier version (a value the codec did not know handed the whole
    payload to the saver's serializer): still read."""
    payload = blob
    if isinstance(blob, bytes | bytearray):
        codec = engine_codec() if serde is None else _blob_codec(serde)
        try:
            payload = codec.loads(bytes(blob))
        except DecodeError:
            return None
    if not (isinstance(payload, list | tuple) and len(payload) == 5):
        return None
    stamp, header, engine_keys, extra, value_keys = payload
    if stamp != checkpoint_id or not isinstance(header, CheckpointRecord):
        return None
    values = {
        k: all_values[k] if k in all_values else extra[k]
        for k in value_keys
        if k in all_values or k in extra
    }
    header.values = values
    if header.engine is not None:
        header.engine.values = {
            k: extra[k] if k in extra else all_values[k]
            for k in engine_keys
            if k in extra or k in all_values
        }
    return header
