"""The API's store as the graphs see it: a `BaseStore` (``get_store()``, ``runtime.store``,
an injected ``store`` argument) over the same table as ``/store/items``, so what a node
writes a client reads, and the other way round."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

from superstep_server.store import Store

__all__ = ["DatabaseStore"]


def _times(item: dict[str, Any]) -> tuple[datetime, datetime]:
    return datetime.fromisoformat(item["created_at"]), datetime.fromisoformat(item["updated_at"])


class DatabaseStore(BaseStore):
    """`BaseStore` over `superstep_server.store.Store` (a ``query`` ranks by the server's
    index, refused as by the API when it has none; items expire as the API's do)."""

    supports_ttl = True

    def __init__(self, store: Store) -> None:
        self.store = store
        self.ttl_config = TTLConfig(
            refresh_on_read=store.refresh_on_read, default_ttl=store.default_ttl
        )

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # the table is reached through blocking drivers: off the event loop, as one batch
        return await asyncio.to_thread(self.batch, list(ops))

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            found = self.store.find(op.namespace, op.key, op.refresh_ttl)
            if found is None:
                return None
            created, updated = _times(found)
            return Item(
                value=found["value"],
                key=found["key"],
                namespace=tuple(found["namespace"]),
                created_at=created,
                updated_at=updated,
            )
        if isinstance(op, PutOp):
            if op.value is None:
                self.store.delete({"namespace": list(op.namespace), "key": op.key})
            else:
                self.store.put(
                    {
                        "namespace": list(op.namespace),
                        "key": op.key,
                        "value": op.value,
                        "index": op.index,
                        "ttl": op.ttl,
                    },
                    default_ttl=False,
                )
            return None
        if isinstance(op, SearchOp):
            body = {
                "namespace_prefix": list(op.namespace_prefix),
                "filter": op.filter,
                "limit": op.limit,
                "offset": op.offset,
                "query": op.query,
                "refresh_ttl": op.refresh_ttl,
            }
            items = []
            for found in self.store.search(body)["items"]:
                created, updated = _times(found)
                items.append(
                    SearchItem(
                        tuple(found["namespace"]), found["key"], found["value"], created, updated
                    )
                )
            return items
        if isinstance(op, ListNamespacesOp):
            wanted: dict[str, Any] = {
                "max_depth": op.max_depth,
                "limit": op.limit,
                "offset": op.offset,
            }
            for condition in op.match_conditions or ():
                wanted[condition.match_type] = list(condition.path)
            return [tuple(ns) for ns in self.store.namespaces(wanted)["namespaces"]]
        raise TypeError(f"unknown store operation {type(op).__name__}")
