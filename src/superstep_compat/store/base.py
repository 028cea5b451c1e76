"""`langgraph.store.base`: the long-term memory store API (namespaces of JSON documents).

`BaseStore` implements the convenience methods (`put`, `get`, `search`, `delete`,
`list_namespaces` and async twins) on top of one abstract `batch` of operations.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal, NamedTuple, TypeAlias

__all__ = [
    "BaseStore",
    "GetOp",
    "InvalidNamespaceError",
    "Item",
    "ListNamespacesOp",
    "MatchCondition",
    "NamespacePath",
    "Op",
    "PutOp",
    "Result",
    "SearchItem",
    "SearchOp",
]

NamespacePath: TypeAlias = tuple[str, ...]
NamespaceMatchType = Literal["prefix", "suffix"]


class InvalidNamespaceError(ValueError):
    """A namespace is empty, has an empty label, a '.' in a label, or starts with 'langgraph'."""


class Item:
    """A stored document: ``value`` under ``key`` in ``namespace``, with timestamps."""

    __slots__ = ("created_at", "key", "namespace", "updated_at", "value")

    def __init__(
        self,
        *,
        value: dict[str, Any],
        key: str,
        namespace: tuple[str, ...],
        created_at: datetime,
        updated_at: datetime,
    ) -> None:
        self.value = value
        self.key = key
        self.namespace = tuple(namespace)
        self.created_at = created_at
        self.updated_at = updated_at

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Item) and self.dict() == other.dict()

    def __hash__(self) -> int:
        return hash((self.namespace, self.key))

    def dict(self) -> dict[str, Any]:
        """A JSON-friendly dict of the item."""
        return {
            "namespace": list(self.namespace),
            "key": self.key,
            "value": self.value,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
        }

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(namespace={self.namespace!r}, key={self.key!r}, "
            f"value={self.value!r}, created_at={self.created_at.isoformat()!r}, "
            f"updated_at={self.updated_at.isoformat()!r})"
        )


class SearchItem(Item):
    """An `Item` found by `search`, with its relevance ``score`` (None without a query)."""

    __slots__ = ("score",)

    def __init__(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        created_at: datetime,
        updated_at: datetime,
        score: float | None = None,
    ) -> None:
        super().__init__(
            value=value, key=key, namespace=namespace, created_at=created_at, updated_at=updated_at
        )
        self.score = score

    def dict(self) -> dict[str, Any]:
        return {**super().dict(), "score": self.score}


class GetOp(NamedTuple):
    """Read one item."""

    namespace: tuple[str, ...]
    key: str
    refresh_ttl: bool = True


class SearchOp(NamedTuple):
    """Find items under a namespace prefix, filtered by exact value matches."""

    namespace_prefix: tuple[str, ...]
    filter: dict[str, Any] | None = None
    limit: int = 10
    offset: int = 0
    query: str | None = None
    refresh_ttl: bool = True


class MatchCondition(NamedTuple):
    """A namespace pattern for `list_namespaces`; ``"*"`` matches any label."""

    match_type: NamespaceMatchType
    path: NamespacePath


class ListNamespacesOp(NamedTuple):
    """List namespaces matching conditions, truncated to ``max_depth`` labels."""

    match_conditions: tuple[MatchCondition, ...] | None = None
    max_depth: int | None = None
    limit: int = 100
    offset: int = 0


class PutOp(NamedTuple):
    """Store (or, with ``value=None``, delete) one item."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any] | None
    index: Literal[False] | list[str] | None = None  # type: ignore[assignment]
    ttl: float | None = None


Op: TypeAlias = GetOp | SearchOp | PutOp | ListNamespacesOp
Result: TypeAlias = Item | list[Item] | list[SearchItem] | list[tuple[str, ...]] | None


def validate_namespace(namespace: tuple[str, ...]) -> None:
    """Raise `InvalidNamespaceError` for a namespace a store must not accept."""
    if not namespace:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    for label in namespace:
        if not isinstance(label, str):
            raise InvalidNamespaceError(
                f"Namespace labels must be strings, but got {type(label).__name__}."
            )
        if not label:
            raise InvalidNamespaceError(f"Namespace labels cannot be empty strings: {namespace}")
        if "." in label:
            raise InvalidNamespaceError(
                f"Namespace labels cannot contain periods ('.'). Got {namespace}"
            )
    if namespace[0] == "langgraph":
        raise InvalidNamespaceError(
            f'Root label for namespace cannot be "langgraph". Got: {namespace}'
        )


class BaseStore(ABC):
    """A key-value store of JSON documents grouped in hierarchical namespaces."""

    @abstractmethod
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order; one result per op."""

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Async `batch` (runs the sync one by default)."""
        return self.batch(ops)

    def get(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """The item under ``key`` in ``namespace``, or None."""
        result = self.batch([GetOp(tuple(namespace), str(key), refresh_ttl is not False)])[0]
        return result if isinstance(result, Item) else None

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """Items under ``namespace_prefix`` whose values match ``filter``."""
        op = SearchOp(
            tuple(namespace_prefix), filter, limit, offset, query, refresh_ttl is not False
        )
        return list(self.batch([op])[0] or [])  # type: ignore[arg-type]

    def put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | None = None,
    ) -> None:
        """Store ``value`` under ``key`` in ``namespace`` (replacing any earlier value)."""
        validate_namespace(tuple(namespace))
        self.batch([PutOp(tuple(namespace), str(key), value, index, ttl)])

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        """Remove the item under ``key`` (no error when absent)."""
        self.batch([PutOp(tuple(namespace), str(key), None)])

    def list_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """Namespaces (sorted) matching ``prefix``/``suffix``, truncated to ``max_depth``."""
        conditions = []
        if prefix:
            conditions.append(MatchCondition("prefix", tuple(prefix)))
        if suffix:
            conditions.append(MatchCondition("suffix", tuple(suffix)))
        op = ListNamespacesOp(tuple(conditions) or None, max_depth, limit, offset)
        return list(self.batch([op])[0] or [])  # type: ignore[arg-type]

    async def aget(
        self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None
    ) -> Item | None:
        """Async `get`."""
        return self.get(namespace, key, refresh_ttl=refresh_ttl)

    async def asearch(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
        refresh_ttl: bool | None = None,
    ) -> list[SearchItem]:
        """Async `search`."""
        return self.search(namespace_prefix, query=query, filter=filter, limit=limit, offset=offset)

    async def aput(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        index: Literal[False] | list[str] | None = None,
        *,
        ttl: float | None = None,
    ) -> None:
        """Async `put`."""
        self.put(namespace, key, value, index, ttl=ttl)

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        """Async `delete`."""
        self.delete(namespace, key)

    async def alist_namespaces(
        self,
        *,
        prefix: NamespacePath | None = None,
        suffix: NamespacePath | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        """Async `list_namespaces`."""
        return self.list_namespaces(
            prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset
        )
