"""The typed codec: Python values <-> msgpack bytes, on ormsgpack, never pickle.

Written as native msgpack: ``None``, ``bool``, ``int`` (64-bit; larger ints as an extension),
``float``, ``str``, ``bytes``, ``list`` and ``dict`` with ``str`` keys. Every other supported type
is a msgpack extension (code + payload), so nothing in a user's own dicts can be mistaken for a
type tag: ``tuple``, ``set``, ``frozenset``, dicts with non-``str`` keys, ``bytearray``,
``datetime``/``date``/``time``/``timedelta`` (time zones kept, see `persistence.temporal`),
``UUID``, ``Decimal``, the channel marker ``MISSING``, and instances of registered classes
(dataclasses, pydantic v2 models, Enum members, langchain-core messages, custom handlers; see
`persistence.registry` for the rule that decides which classes qualify).

A codec made `with_foreign(serializer)` hands a value of any other type to that serializer
(``dumps_typed``/``loads_typed``: the typed-serializer shape of the checkpoint ecosystem) and
stores its ``(type, bytes)`` pair as one more extension. A host that keeps the engine's records
inside another system's storage uses it so the values that system knows are written, read and
vetted (allowlists) by that system's own serializer, while the engine's records stay the codec's.

Types are matched exactly (``type(v) is list``): a subclass of a supported type is refused unless
registered itself, so a value always comes back as the type it was written as. Sets are written in
a canonical order, so equal values give equal bytes within a registry.

Owns: `Codec`. Must never import: the runtime, the host, the llm layer, compat, or
superstep_core.checkpoint.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Protocol, TypeVar

import ormsgpack

from superstep_core.channel import MISSING
from superstep_core.persistence import temporal
from superstep_core.persistence.errors import DecodeError, TooDeepError, UnsupportedTypeError
from superstep_core.persistence.objects import Fields, Parts
from superstep_core.persistence.registry import TypeRegistry, default_registry, type_name

__all__ = ["Codec", "ForeignSerializer"]

T = TypeVar("T", bound=type)

_Ext = ormsgpack.Ext
_packb = ormsgpack.packb
_unpackb = ormsgpack.unpackb

# Extension codes. Never renumber: stored checkpoints depend on them.
_TUPLE = 1
_SET = 2
_FROZENSET = 3
_DICT = 4  # a dict with a non-str key: flat [k0, v0, k1, v1, ...]
_BIGINT = 5  # two's complement, big-endian
_DATETIME = 6
_DATE = 7
_TIME = 8
_TIMEDELTA = 9
_UUID = 10  # 16 raw bytes
_DECIMAL = 11  # str(value), UTF-8
_OBJECT = 12  # [tag, state]
_BYTEARRAY = 13
_MISSING = 14
_FOREIGN = 15  # [type, bytes] of a `ForeignSerializer`

# Types `Codec._lower` returns unchanged (ints are not: a big one becomes an extension).
_AS_IS = frozenset({str, float, bool, type(None), bytes})

# ormsgpack refuses lists and dicts nested deeper than this, with this TypeError
_MAX_DEPTH = 255
_MSGPACK_TOO_DEEP = "Recursion limit reached"

_MIN_INT = -(2**63)
_MAX_INT = 2**64 - 1

_TEMPORAL: dict[type, tuple[int, Callable[[Any], Any]]] = {
    dt.datetime: (_DATETIME, temporal.datetime_to_state),
    dt.date: (_DATE, temporal.date_to_state),
    dt.time: (_TIME, temporal.time_to_state),
    dt.timedelta: (_TIMEDELTA, temporal.timedelta_to_state),
}
_TEMPORAL_LOAD: dict[int, Callable[[Any], Any]] = {
    _DATETIME: temporal.datetime_from_state,
    _DATE: temporal.date_from_state,
    _TIME: temporal.time_from_state,
    _TIMEDELTA: temporal.timedelta_from_state,
}


class ForeignSerializer(Protocol):
    """A serializer for values the codec's registry does not know (see `Codec.with_foreign`):
    ``dumps_typed(value) -> (type, bytes)`` and ``loads_typed((type, bytes)) -> value``."""

    def dumps_typed(self, obj: Any, /) -> tuple[str, bytes]: ...

    def loads_typed(self, data: tuple[str, bytes], /) -> Any: ...


class _Refused(Exception):
    """Raised at the offending object; each enclosing container adds its path segment."""

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.segments: list[str] = []


class Codec:
    """Encodes values to bytes and back; see the module docstring for the supported types.

    ``registry``: the classes this codec accepts beyond the built-in types (default: the shared
    `default_registry`). ``tuples_as_lists``: write a tuple as a plain msgpack array, read back
    as a list, as LangGraph's serializer does with state (dict keys and set elements keep their
    tuples: they must stay hashable). A codec holds no other state and is safe to share between
    threads.
    """

    def __init__(
        self,
        registry: TypeRegistry | None = None,
        *,
        tuples_as_lists: bool = False,
        foreign: ForeignSerializer | None = None,
    ) -> None:
        self.registry = registry if registry is not None else default_registry
        self.tuples_as_lists = tuples_as_lists
        self.foreign = foreign
        # keys and set elements: lowered by a codec that keeps tuples
        self._lower_hashable = (
            Codec(self.registry, foreign=foreign)._lower if tuples_as_lists else self._lower
        )
        self._as_lists: Codec | None = self if tuples_as_lists else None

    def with_tuples_as_lists(self) -> Codec:
        """This codec (same registry) writing tuples as lists; see ``tuples_as_lists``."""
        if self._as_lists is None:
            self._as_lists = Codec(self.registry, tuples_as_lists=True, foreign=self.foreign)
        return self._as_lists

    def with_foreign(self, serializer: ForeignSerializer) -> Codec:
        """A codec like this one that writes a value of a type its registry does not know
        with ``serializer`` instead of refusing it, and reads such values back with the same
        serializer. Its bytes can be read only by a codec with an equivalent serializer: one
        without raises `DecodeError` naming the value's type."""
        return Codec(self.registry, tuples_as_lists=self.tuples_as_lists, foreign=serializer)

    def register(
        self,
        cls: T,
        *,
        tag: str | None = None,
        encode: Callable[[Any], Any] | None = None,
        decode: Callable[[Any], Any] | None = None,
    ) -> T:
        """Register ``cls`` in this codec's registry; see `TypeRegistry.register`."""
        return self.registry.register(cls, tag=tag, encode=encode, decode=decode)

    def dumps(self, value: Any, where: str | None = None, *, kind: str = "channel") -> bytes:
        """Encode ``value`` to msgpack bytes.

        ``where`` names what is being written (a channel name, usually) and roots the error
        path; ``kind`` says what ``where`` is (``"channel"`` by default). Raises
        `UnsupportedTypeError` for a value (at any depth) of a type the codec may not write,
        e.g. ``channel 'docs': cannot serialise value of type 'foo.Bar' at docs[3].x``, and
        `TooDeepError` for one nested more than 255 levels deep.
        """
        try:
            return _packb(self._lower(value))
        except RecursionError:
            # deeper than Python's stack allows `_lower` to walk (a tuple is a nested
            # extension, not a msgpack level, so only this catches tuples in tuples)
            raise TooDeepError(where=where, kind=kind, limit=_MAX_DEPTH) from None
        except TypeError as exc:
            if str(exc) != _MSGPACK_TOO_DEEP:
                raise
            raise TooDeepError(where=where, kind=kind, limit=_MAX_DEPTH) from None
        except _Refused as refused:
            path = (where if where is not None else "value") + "".join(reversed(refused.segments))
            raise UnsupportedTypeError(
                where=where,
                kind=kind,
                path=path,
                type_name=type_name(refused.cls),
                hint=_hint(refused.cls),
            ) from None

    def loads(self, data: bytes) -> Any:
        """Decode bytes written by `dumps` (with a registry that knows the same classes).

        Raises `DecodeError` when the bytes are not valid, or name a type tag the registry may
        not read (not registered, module not allowed).
        """
        hook = _ExtHook(self)
        try:
            return _unpackb(data, ext_hook=hook)
        except (ValueError, TypeError) as exc:
            if hook.failures:
                first = hook.failures[0]
                if isinstance(first, DecodeError):
                    raise first from None
                raise DecodeError(f"cannot decode codec bytes: {first!r}") from first
            raise DecodeError(f"cannot decode codec bytes: {exc}") from exc

    # -- writing ---------------------------------------------------------------------------

    def _lower(self, v: Any) -> Any:
        t = type(v)
        if t is str or t is float or t is bool or v is None or t is bytes:
            return v
        if t is int:
            if _MIN_INT <= v <= _MAX_INT:
                return v
            return _Ext(_BIGINT, v.to_bytes(v.bit_length() // 8 + 1, "big", signed=True))
        if t is list:
            return self._lower_list(v)
        if t is Parts:
            return self._lower_list(v, indexed=False)
        if t is dict or t is Fields:
            return self._lower_dict(v, t is Fields)
        if t is tuple:
            if self.tuples_as_lists:
                return self._lower_list(v)
            return _Ext(_TUPLE, _packb(self._lower_list(v)))
        if t is set or t is frozenset:
            return _Ext(_SET if t is set else _FROZENSET, self._canonical_set(v))
        entry = _TEMPORAL.get(t)
        if entry is not None:
            try:
                return _Ext(entry[0], _packb(entry[1](v)))
            except temporal.UnsupportedTzinfo as exc:
                raise _Refused(exc.tz_type) from None
        if t is uuid.UUID:
            return _Ext(_UUID, v.bytes)
        if t is Decimal:
            return _Ext(_DECIMAL, str(v).encode())
        if t is bytearray:
            return _Ext(_BYTEARRAY, bytes(v))
        if v is MISSING:
            return _Ext(_MISSING, b"")
        handler = self.registry.for_type(t)
        if handler is None:
            if self.foreign is None:
                raise _Refused(t)
            kind, data = self.foreign.dumps_typed(v)
            return _Ext(_FOREIGN, _packb([kind, data]))
        return _Ext(_OBJECT, _packb([handler.tag, self._lower(handler.to_state(v))]))

    def _lower_list(self, items: Any, indexed: bool = True) -> list[Any]:
        out: list[Any] = []
        append = out.append
        lower = self._lower
        try:
            for item in items:
                # written as is: skips a call per leaf (most of a record's fields)
                append(item if type(item) in _AS_IS else lower(item))
        except _Refused as refused:
            if indexed:
                refused.segments.append(f"[{len(out)}]")
            raise
        return out

    def _lower_dict(self, d: dict[Any, Any], fields: bool) -> Any:
        out: dict[str, Any] = {}
        lower = self._lower
        key: Any = ""
        try:
            for key, item in d.items():
                if type(key) is not str:
                    break  # not a plain-str-keyed map: written as an ext below
                out[key] = item if type(item) in _AS_IS else lower(item)
            else:
                return out
        except _Refused as refused:
            refused.segments.append(f".{key}" if fields else f"[{key!r}]")
            raise
        flat: list[Any] = []
        for k, item in d.items():
            try:
                flat.append(self._lower_hashable(k))
            except _Refused as refused:
                refused.segments.append(f"[<key {k!r}>]")
                raise
            try:
                flat.append(self._lower(item))
            except _Refused as refused:
                refused.segments.append(f"[{k!r}]")
                raise
        return _Ext(_DICT, _packb(flat))

    def _canonical_set(self, items: set[Any] | frozenset[Any]) -> bytes:
        lowered: list[tuple[bytes, Any]] = []
        for item in items:
            try:
                low = self._lower_hashable(item)
            except _Refused as refused:
                refused.segments.append("[<set element>]")
                raise
            lowered.append((_packb(low), low))
        lowered.sort(key=lambda pair: pair[0])
        return _packb([low for _, low in lowered])

    # -- reading ---------------------------------------------------------------------------

    def _raise_ext(self, code: int, payload: bytes, hook: Callable[[int, bytes], Any]) -> Any:
        if code == _UUID:
            return uuid.UUID(bytes=payload)
        if code == _DECIMAL:
            return Decimal(payload.decode())
        if code == _BYTEARRAY:
            return bytearray(payload)
        if code == _MISSING:
            return MISSING
        if code == _BIGINT:
            return int.from_bytes(payload, "big", signed=True)
        inner = _unpackb(payload, ext_hook=hook)
        if code == _TUPLE:
            return tuple(inner)
        if code == _SET:
            return set(inner)
        if code == _FROZENSET:
            return frozenset(inner)
        if code == _DICT:
            return dict(zip(inner[::2], inner[1::2], strict=True))
        load = _TEMPORAL_LOAD.get(code)
        if load is not None:
            return load(inner)
        if code == _OBJECT:
            tag, state = inner
            handler = self.registry.for_tag(tag)
            if handler is None:
                raise DecodeError(
                    f"cannot read type tag {tag!r}: it is not registered and its module is not "
                    f"allowed; register the class (superstep_core.persistence.register) or allow "
                    f"its module (TypeRegistry(allow_modules=[...])) before loading"
                )
            return handler.from_state(state)
        if code == _FOREIGN:
            kind, data = inner
            if self.foreign is None:
                raise DecodeError(
                    f"cannot read a value written by a foreign serializer (its type: {kind!r}): "
                    f"load with the codec's with_foreign(serializer) that wrote it"
                )
            return self.foreign.loads_typed((kind, data))
        raise DecodeError(f"unknown codec extension code {code}; written by a newer version?")


def _hint(cls: type) -> str:
    name = cls.__qualname__
    return (
        f"register it (superstep_core.persistence.register({name}) for a dataclass, pydantic "
        f"model or Enum; add encode=/decode= for any other class) or allow its module with "
        f"TypeRegistry(allow_modules=[{cls.__module__.partition('.')[0]!r}])"
    )


class _ExtHook:
    """`Codec.loads`'s ext hook for msgpack, which also decodes nested extensions (it
    passes itself on), keeping the errors it raised (msgpack replaces them with its own).
    An object, not a closure: a closure that refers to itself is a reference cycle, left
    for the collector after every decode."""

    __slots__ = ("codec", "failures")

    def __init__(self, codec: Codec) -> None:
        self.codec = codec
        self.failures: list[BaseException] = []

    def __call__(self, code: int, payload: bytes) -> Any:
        try:
            return self.codec._raise_ext(code, payload, self)
        except BaseException as exc:
            self.failures.append(exc)
            raise
