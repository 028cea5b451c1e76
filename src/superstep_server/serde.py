"""JSON on the wire: graph values, stream chunks and stored rows as the LangGraph server API
writes them (orjson; a LangChain message is its ``model_dump()``, an ``Interrupt`` is
``{"value", "id"}``, a ``Send`` is ``{"node", "arg"}``, an exception is ``{"error",
"message"}``, sets are lists, datetimes ISO 8601).

Nothing here ever unpickles: stored rows are JSON text, read back with `loads`.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any
from uuid import UUID

import orjson

from superstep_server.deferred import DeferredModel

__all__ = ["dumps", "jsonable", "loads"]

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY


def _default(obj: Any) -> Any:
    """What orjson cannot write itself, as plain JSON values (raises TypeError for nothing:
    an unknown object is written as its ``repr`` so a stream never dies on a value)."""
    if isinstance(obj, DeferredModel):  # a model read undecoded: its stored model_dump()
        return obj.fields()
    dump = getattr(obj, "model_dump", None)
    if callable(dump):  # pydantic v2 models, LangChain messages and documents among them
        return dump()
    if type(obj).__name__ == "Interrupt" and hasattr(obj, "value") and hasattr(obj, "id"):
        return {"value": obj.value, "id": obj.id}
    if type(obj).__name__ == "Send" and hasattr(obj, "node") and hasattr(obj, "arg"):
        return {"node": obj.node, "arg": obj.arg}
    if isinstance(obj, BaseException):
        return {"error": type(obj).__name__, "message": str(obj)}
    if isinstance(obj, set | frozenset):
        return list(obj)
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, datetime | date):
        return obj.isoformat()
    if isinstance(obj, UUID):
        return str(obj)
    if isinstance(obj, bytes | bytearray):
        return bytes(obj).decode("utf-8", errors="replace")
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    as_dict = getattr(obj, "_asdict", None)  # NamedTuples are written as lists by orjson
    if callable(as_dict):
        return as_dict()
    if isinstance(obj, Mapping):
        return dict(obj)
    dict_method = getattr(obj, "dict", None)  # pydantic v1 models
    if callable(dict_method):
        try:
            return dict_method()
        except Exception:  # not a model after all
            pass
    return repr(obj)


def dumps(value: Any) -> bytes:
    """``value`` as JSON bytes (see the module docstring for the conversions)."""
    return orjson.dumps(value, default=_default, option=_OPTIONS)


def loads(data: bytes | str | None) -> Any:
    """JSON text back to Python values; ``None`` for ``None`` or empty text."""
    if not data:
        return None
    return orjson.loads(data)


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON types (a round trip through `dumps`)."""
    return orjson.loads(dumps(value))
