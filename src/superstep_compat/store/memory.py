"""`langgraph.store.memory.InMemoryStore`: a dict-backed `BaseStore` (no vector index:
``query`` is ignored and results keep insertion order)."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from superstep_compat.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

__all__ = ["InMemoryStore"]


def _matches(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = condition.path
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))


def _filter_ok(value: dict[str, Any], filter: dict[str, Any] | None) -> bool:
    if not filter:
        return True
    for key, expected in filter.items():
        actual = value.get(key)
        if isinstance(expected, dict) and all(str(k).startswith("$") for k in expected):
            if not all(_compare(actual, op, arg) for op, arg in expected.items()):
                return False
        elif actual != expected:
            return False
    return True


def _compare(actual: Any, op: str, arg: Any) -> bool:
    try:
        if op == "$eq":
            return bool(actual == arg)
        if op == "$ne":
            return bool(actual != arg)
        if op == "$gt":
            return bool(actual > arg)
        if op == "$gte":
            return bool(actual >= arg)
        if op == "$lt":
            return bool(actual < arg)
        if op == "$lte":
            return bool(actual <= arg)
    except TypeError:
        return False
    raise ValueError(f"Unsupported operator: {op}")


class InMemoryStore(BaseStore):
    """Items in a dict of namespaces; thread-safe; lost when the process exits."""

    def __init__(self, *, index: dict[str, Any] | None = None) -> None:
        self.index_config = index
        self._data: dict[tuple[str, ...], dict[str, Item]] = {}
        self._lock = threading.Lock()

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        with self._lock:
            return [self._run(op) for op in ops]

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._data.get(op.namespace, {}).get(op.key)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        return self._list_namespaces(op)

    def _put(self, op: PutOp) -> None:
        items = self._data.setdefault(op.namespace, {})
        if op.value is None:
            items.pop(op.key, None)
            if not items:
                del self._data[op.namespace]
            return
        now = datetime.now(UTC)
        previous = items.get(op.key)
        created = previous.created_at if previous is not None else now
        items[op.key] = Item(
            value=op.value, key=op.key, namespace=op.namespace, created_at=created, updated_at=now
        )

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = op.namespace_prefix
        found = [
            SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at)
            for namespace, items in self._data.items()
            if namespace[: len(prefix)] == prefix
            for item in items.values()
            if _filter_ok(item.value, op.filter)
        ]
        return found[op.offset : op.offset + op.limit]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        names = [
            ns for ns in self._data if all(_matches(ns, c) for c in (op.match_conditions or ()))
        ]
        if op.max_depth is not None:
            names = [ns[: op.max_depth] for ns in names]
        unique = sorted(set(names))
        return unique[op.offset : op.offset + op.limit]
