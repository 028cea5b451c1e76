"""The long-term store of the API (``/store/items``, ``/store/items/search``,
``/store/namespaces``): JSON documents under a namespace (a list of labels without dots) and
a key. A namespace is kept as its labels joined by dots, so a prefix search is a ``LIKE``.
Semantic search (``query`` with an index) is not offered: ``query`` is refused."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from superstep_server import serde
from superstep_server.db import Database
from superstep_server.errors import ApiError, not_found
from superstep_server.json_filters import store_filter, store_matches
from superstep_server.rows import count_field, now, paging

__all__ = ["Store"]


def _namespace(value: Any, field: str) -> list[str]:
    if not isinstance(value, list | tuple) or not all(isinstance(x, str) for x in value):
        raise ApiError(422, f"{field}: must be a list of strings")
    for label in value:
        if "." in label:
            raise ApiError(422, f"{field}: label {label!r} contains a period ('.')")
        if not label:
            raise ApiError(422, f"{field}: labels cannot be empty")
    return list(value)


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _item(row: dict[str, Any], *, score: bool = False) -> dict[str, Any]:
    item = {
        "namespace": row["prefix"].split("."),
        "key": row["key"],
        "value": serde.loads(row["value"]),
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }
    if score:
        item["score"] = None
    return item


class Store:
    def __init__(self, db: Database) -> None:
        self.db = db

    def put(self, body: dict[str, Any]) -> None:
        namespace = _namespace(body.get("namespace"), "namespace")
        if not namespace:
            raise ApiError(422, "namespace: cannot be empty")
        key = body.get("key")
        if not isinstance(key, str) or not key:
            raise ApiError(422, "key: must be a non-empty string")
        value = body.get("value")
        if not isinstance(value, dict):
            raise ApiError(422, "value: must be a JSON object")
        at = now()
        self.db.execute(
            "INSERT INTO server_store (prefix, key, value, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (prefix, key) DO UPDATE SET "
            "value = excluded.value, updated_at = excluded.updated_at",
            (".".join(namespace), key, serde.dumps(value).decode(), at, at),
        )

    def find(self, namespace: Sequence[str], key: str) -> dict[str, Any] | None:
        """The item under ``key`` in ``namespace``, or ``None``."""
        ns = _namespace(list(namespace), "namespace")
        rows = self.db.execute(
            "SELECT * FROM server_store WHERE prefix = ? AND key = ?", (".".join(ns), key)
        )
        return _item(rows[0]) if rows else None

    def get(self, namespace: Sequence[str], key: str) -> dict[str, Any]:
        item = self.find(namespace, key)
        if item is None:
            raise not_found(f"Item {key!r} not found in namespace {list(namespace)!r}")
        return item

    def delete(self, body: dict[str, Any]) -> None:
        ns = _namespace(body.get("namespace"), "namespace")
        key = body.get("key")
        if not isinstance(key, str):
            raise ApiError(422, "key: must be a string")
        self.db.execute(
            "DELETE FROM server_store WHERE prefix = ? AND key = ?", (".".join(ns), key)
        )

    def search(self, body: dict[str, Any]) -> dict[str, Any]:
        prefix = _namespace(body.get("namespace_prefix") or [], "namespace_prefix")
        if body.get("query"):
            raise ApiError(
                422, "query: semantic search needs an index, which this server does not offer"
            )
        joined = ".".join(prefix)
        clauses: list[str] = []
        params: list[Any] = []
        if prefix:
            clauses.append("(prefix = ? OR prefix LIKE ? ESCAPE '\\')")
            params += [joined, _like_escape(joined) + ".%"]
        rest: dict[str, Any] = {}
        wanted = body.get("filter")
        if wanted:
            found = store_filter(self.db.kind, "value", wanted)
            clauses += found.clauses
            params += found.params
            rest = found.rest
        limit, offset = paging(body)
        sql = "SELECT * FROM server_store"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY updated_at DESC, prefix, key"
        if not rest:  # SQL decides every condition: it pages too
            sql += " LIMIT ? OFFSET ?"
            params += [limit, offset]
        items = [_item(r, score=True) for r in self.db.execute(sql, params)]
        if rest:
            items = [i for i in items if store_matches(i["value"], rest)]
            items = items[offset : offset + limit]
        return {"items": items}

    def namespaces(self, body: dict[str, Any]) -> dict[str, Any]:
        prefix = body.get("prefix") or []
        suffix = body.get("suffix") or []
        max_depth = (
            None if body.get("max_depth") is None else count_field(body, "max_depth", 1, least=1)
        )
        found: list[list[str]] = []
        seen: set[tuple[str, ...]] = set()
        for row in self.db.execute("SELECT DISTINCT prefix FROM server_store ORDER BY prefix"):
            labels = row["prefix"].split(".")
            if not _matches(labels, prefix, at_start=True) or not _matches(
                labels, suffix, at_start=False
            ):
                continue
            if max_depth is not None:
                labels = labels[:max_depth]
            if tuple(labels) not in seen:
                seen.add(tuple(labels))
                found.append(labels)
        limit, offset = paging(body, 100)
        return {"namespaces": found[offset : offset + limit]}


def _matches(labels: list[str], pattern: list[str], *, at_start: bool) -> bool:
    """``pattern`` (``"*"`` matches any label) at the start or the end of ``labels``."""
    if len(pattern) > len(labels):
        return False
    part = labels[: len(pattern)] if at_start else labels[len(labels) - len(pattern) :]
    return all(p in ("*", x) for p, x in zip(pattern, part))
