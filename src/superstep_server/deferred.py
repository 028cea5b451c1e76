"""Read checkpoints without rebuilding the models in them until they are written out.

A thread's state read through the API is written as JSON, where a pydantic model (a chat
message, most of a long conversation's state) is its ``model_dump()``: the fields LangGraph's
serializer stored for it. Rebuilding each model only to dump it again was most of a history
page's time on a large state (about 40 ms a checkpoint of 1,000 messages, for a timeline
page that does not even show the values). Within `deferred_models`, the server's saver
leaves each such model as a `DeferredModel`: the stored bytes, decoded to the model's fields
when `superstep_server.serde` writes it, never if it is not written.

Only the read-only endpoints (history, state) read this way; runs, updates and forks read
real models. Everything else in a checkpoint (LangGraph's own types, ``Interrupt``,
``Send``, dataclasses) is decoded as usual.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

import ormsgpack
from langgraph.checkpoint.serde.jsonplus import (
    EXT_PYDANTIC_V1,
    EXT_PYDANTIC_V2,
    JsonPlusSerializer,
)

__all__ = ["DeferredModel", "ServedSerializer", "deferred_models"]

_DEFERRING: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "superstep_server_deferring", default=False
)
_MODEL_CODES = (EXT_PYDANTIC_V1, EXT_PYDANTIC_V2)


@contextlib.contextmanager
def deferred_models() -> Iterator[None]:
    """Within the block (this thread or task only), checkpoints the server's saver reads
    leave their pydantic models as `DeferredModel` (see the module docstring)."""
    token = _DEFERRING.set(True)
    try:
        yield
    finally:
        _DEFERRING.reset(token)


class DeferredModel:
    """A pydantic model as LangGraph's serializer stored it (module, class name, the
    ``model_dump()`` or ``dict()`` fields), not rebuilt. `fields` decodes the fields (a
    model among them deferred in turn); `superstep_server.serde` writes them as the model's
    JSON."""

    __slots__ = ("_data", "_serde")

    def __init__(self, data: bytes, serde: ServedSerializer) -> None:
        self._data = data
        self._serde = serde

    def fields(self) -> Any:
        """The stored fields (what ``model_dump()`` gave when the model was written)."""
        stored = self._serde.unpack_deferring(self._data)
        return stored[2]

    def __repr__(self) -> str:
        return f"DeferredModel({len(self._data)} bytes)"


class ServedSerializer(JsonPlusSerializer):
    """LangGraph's ``JsonPlusSerializer`` (the server's savers write exactly what it writes)
    whose reads, within `deferred_models`, leave pydantic models as `DeferredModel`."""

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        if data[0] == "msgpack" and _DEFERRING.get():
            return self.unpack_deferring(data[1])
        return super().loads_typed(data)

    def unpack_deferring(self, payload: bytes) -> Any:
        """Msgpack bytes of this serializer, its pydantic models deferred."""
        return ormsgpack.unpackb(
            payload, ext_hook=self._deferring_hook, option=ormsgpack.OPT_NON_STR_KEYS
        )

    def _deferring_hook(self, code: int, data: bytes) -> Any:
        if code in _MODEL_CODES:
            return DeferredModel(data, self)
        # any other extension type decoded as LangGraph decodes it (whole, nothing deferred)
        whole = ormsgpack.packb(ormsgpack.Ext(code, data))
        return super().loads_typed(("msgpack", whole))
