"""`langgraph.cache.base.BaseCache`: the node-result cache interface."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar

__all__ = ["BaseCache", "FullKey", "Namespace"]

ValueT = TypeVar("ValueT")
Namespace = tuple[str, ...]
FullKey = tuple[Namespace, str]


class BaseCache(ABC, Generic[ValueT]):
    """Values under (namespace, key) with an optional time-to-live in seconds."""

    def __init__(self, *, serde: Any | None = None) -> None:
        self.serde = serde

    @abstractmethod
    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        """The cached values of ``keys`` that exist and have not expired."""

    @abstractmethod
    def set(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        """Store each value with its ttl (None: no expiry)."""

    @abstractmethod
    def clear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Drop the given namespaces, or everything."""

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, ValueT]:
        """Async `get`."""
        return self.get(keys)

    async def aset(self, pairs: Mapping[FullKey, tuple[ValueT, int | None]]) -> None:
        """Async `set`."""
        self.set(pairs)

    async def aclear(self, namespaces: Sequence[Namespace] | None = None) -> None:
        """Async `clear`."""
        self.clear(namespaces)
