"""How the persistent savers turn checkpoints into bytes: the engine's typed codec, taught the
façade's own types.

`compat_registry` registers, under stable ``"langgraph:<Name>"`` tags, the values a LangGraph
checkpoint may hold besides plain data and langchain-core messages: `Send`, `Command`,
`Interrupt`, `Overwrite`, `PregelTask`, `StateSnapshot`, `RetryPolicy`'s data, the policies,
and the saver's own `CheckpointRecord` / `TaskRecord`; with the engine's records (see
``superstep_core.persistence.execution``) so a record's `ExecutionState` travels too.

Nothing is pickled: a value of a class outside the registry is refused when a checkpoint is
written, with an error naming the channel and the class. Register your own state classes with
``superstep_core.persistence.register`` (dataclasses, pydantic models and Enums need nothing
else), or build a codec whose registry allows your modules and pass it as ``serde=``.

`CodecSerializer` offers LangGraph's ``SerializerProtocol`` shape (``dumps_typed`` /
``loads_typed``) over a codec, for code that calls a saver's ``serde`` directly.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from typing import Any, TypeVar

from superstep_compat._internal._policies import CachePolicy, TimeoutPolicy
from superstep_compat.checkpoint.base import CheckpointRecord, TaskRecord, write_index
from superstep_compat.types import Command, Interrupt, Overwrite, PregelTask, Send, StateSnapshot
from superstep_core.persistence import Codec, DecodeError, TypeRegistry, default_registry
from superstep_core.persistence.execution import engine_registry

__all__ = [
    "CodecSerializer",
    "DecodedHeader",
    "EncodedRecord",
    "EncodedWrite",
    "compat_registry",
    "decode_header",
    "default_codec",
    "encode_record",
    "encode_writes",
    "resolve_codec",
]

_TAG_PREFIX = "langgraph:"
_TYPE = "superstep-msgpack"


def _send_state(send: Send) -> list[Any]:
    return [send.node, send.arg, send.timeout]


def _send_from(state: list[Any]) -> Send:
    node, arg, timeout = state
    return Send(node, arg, timeout=timeout)


def _pregel_task_state(task: PregelTask) -> list[Any]:
    return list(task)


def _pregel_task_from(state: list[Any]) -> PregelTask:
    return PregelTask(*state)


def _snapshot_state(snapshot: StateSnapshot) -> list[Any]:
    return list(snapshot)


def _snapshot_from(state: list[Any]) -> StateSnapshot:
    return StateSnapshot(*state)


def compat_registry(registry: TypeRegistry | None = None) -> TypeRegistry:
    """Register the engine's records and the façade's checkpoint types in ``registry``
    (default: the shared `default_registry`) and return it. Idempotent."""
    target = engine_registry(registry if registry is not None else default_registry)
    plain: tuple[type, ...] = (
        Command,
        Interrupt,
        Overwrite,
        CachePolicy,
        TimeoutPolicy,
        CheckpointRecord,
        TaskRecord,
    )
    for cls in plain:
        _ensure(target, cls)
    _ensure(target, Send, encode=_send_state, decode=_send_from)
    _ensure(target, PregelTask, encode=_pregel_task_state, decode=_pregel_task_from)
    _ensure(target, StateSnapshot, encode=_snapshot_state, decode=_snapshot_from)
    return target


def _ensure(registry: TypeRegistry, cls: type, **functions: Any) -> None:
    tag = _TAG_PREFIX + cls.__name__
    handler = registry.for_type(cls)
    if handler is None or handler.tag != tag:
        registry.register(cls, tag=tag, **functions)


_DEFAULT = Codec(compat_registry())


def default_codec() -> Codec:
    """The codec the savers use unless given another: `default_registry`, with the engine's and
    the façade's types registered (so classes given to ``register`` are accepted too)."""
    return _DEFAULT


def resolve_codec(serde: object | None) -> Codec:
    """The codec for a saver's ``serde=`` argument: ``None`` (the default codec), a `Codec`, a
    `TypeRegistry` (a codec on it, with the engine's and façade's types registered), or a
    `CodecSerializer`. Anything else (a LangGraph serializer that may pickle) raises
    ``TypeError``."""
    if serde is None:
        return _DEFAULT
    if isinstance(serde, CodecSerializer):
        return serde.codec
    if isinstance(serde, Codec):
        compat_registry(serde.registry)
        return serde
    if isinstance(serde, TypeRegistry):
        return Codec(compat_registry(serde))
    raise TypeError(
        f"serde must be a superstep_core.persistence.Codec, a TypeRegistry or None, not "
        f"{type(serde).__name__}: the savers store checkpoints with the typed codec (register "
        f"your classes with superstep_core.persistence.register)"
    )


class CodecSerializer:
    """LangGraph's ``SerializerProtocol`` over a codec: ``dumps_typed(obj) -> (type, bytes)``
    and ``loads_typed((type, bytes)) -> obj``."""

    def __init__(self, codec: Codec | None = None) -> None:
        self.codec = resolve_codec(codec)

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        return _TYPE, self.codec.dumps(obj)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        type_, payload = data
        if type_ != _TYPE:
            raise ValueError(f"cannot read a value serialised as {type_!r}")
        return self.codec.loads(payload)


# --- records as a header plus content-addressed channel values ----------------------------


class EncodedRecord:
    """A `CheckpointRecord` ready for storage: ``header`` (the record without its channel
    values) and ``blobs`` (digest -> encoded channel value). A value that did not change since
    an earlier checkpoint has the same digest, so a store that keeps blobs by digest writes it
    once per thread: a checkpoint costs O(changed channels) in stored bytes."""

    __slots__ = ("blobs", "header")

    def __init__(self, header: bytes, blobs: dict[str, bytes]) -> None:
        self.header = header
        self.blobs = blobs


_T = TypeVar("_T")
_FIELDS: dict[type, tuple[str, ...]] = {}


def _shallow_copy(obj: _T, **changes: Any) -> _T:
    """``obj`` with ``changes``, fields copied by reference. `dataclasses.replace` would run
    ``__init__`` through `fields()` on every save, which costs more than the copy."""
    cls = type(obj)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
    copy = cls.__new__(cls)
    for name in names:
        object.__setattr__(copy, name, changes[name] if name in changes else getattr(obj, name))
    return copy


def encode_record(record: CheckpointRecord, codec: Codec) -> EncodedRecord:
    """Split ``record`` into a header and its channel-value blobs. Raises
    `UnsupportedTypeError` naming the channel when a value cannot be written."""
    blobs: dict[str, bytes] = {}
    seen: dict[int, str] = {}
    state_codec = codec.with_tuples_as_lists()  # LangGraph: state tuples come back as lists

    def refs(values: Mapping[str, Any]) -> dict[str, str]:
        out: dict[str, str] = {}
        for channel, value in values.items():
            digest = seen.get(id(value))
            if digest is None:
                data = state_codec.dumps(value, channel)
                digest = hashlib.blake2b(data, digest_size=16).hexdigest()
                blobs[digest] = data
                seen[id(value)] = digest
            out[channel] = digest
        return out

    value_refs = refs(record.values)
    engine = record.engine
    engine_refs: dict[str, str] | None = None
    if engine is not None:
        engine_refs = refs(engine.values)
        engine = _shallow_copy(engine, values={})
    header = _shallow_copy(record, values={}, engine=engine, tasks=list(record.tasks))
    where = f"checkpoint {record.checkpoint_id}"
    return EncodedRecord(codec.dumps([header, value_refs, engine_refs], where), blobs)


class DecodedHeader:
    """A stored record header, read: the record without values, and the digests of its
    channel values (``value_refs`` for the state view, ``engine_refs`` for the engine's)."""

    __slots__ = ("engine_refs", "record", "value_refs")

    def __init__(
        self,
        record: CheckpointRecord,
        value_refs: dict[str, str],
        engine_refs: dict[str, str] | None,
    ) -> None:
        self.record = record
        self.value_refs = value_refs
        self.engine_refs = engine_refs

    @property
    def digests(self) -> set[str]:
        """Every blob digest the record refers to."""
        return {*self.value_refs.values(), *(self.engine_refs or {}).values()}

    def complete(self, blob: Callable[[str], Any]) -> CheckpointRecord:
        """The record with its values; ``blob(digest)`` returns the decoded value stored under
        ``digest`` (raising ``KeyError`` when it is missing)."""
        record = self.record
        record.values = {channel: blob(digest) for channel, digest in self.value_refs.items()}
        if record.engine is not None and self.engine_refs is not None:
            record.engine.values = {
                channel: blob(digest) for channel, digest in self.engine_refs.items()
            }
        return record


def decode_header(header: bytes, codec: Codec) -> DecodedHeader:
    """Read a header written by `encode_record`. Raises `DecodeError` for anything else."""
    value: Any = codec.loads(header)
    if not (isinstance(value, list) and len(value) == 3) or type(value[0]) is not CheckpointRecord:
        raise DecodeError("expected a stored checkpoint record header")
    record, value_refs, engine_refs = value
    return DecodedHeader(record, value_refs, engine_refs)


# --- pending writes -------------------------------------------------------------------------

EncodedWrite = tuple[int, str, bytes]
"""(index among the task's writes, channel, encoded value)."""


def encode_writes(writes: Sequence[tuple[str, Any]], codec: Codec) -> list[EncodedWrite]:
    """Encode one task's ``(channel, value)`` writes, each with its index (`write_index`).
    Raises `UnsupportedTypeError` naming the channel when a value cannot be written, before
    anything is stored."""
    return [
        (write_index(channel, i), channel, codec.dumps(value, channel, kind="pending write"))
        for i, (channel, value) in enumerate(writes)
    ]
