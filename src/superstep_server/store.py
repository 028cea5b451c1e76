"""The long-term store of the API (``/store/items``, ``/store/items/search``,
``/store/namespaces``): JSON documents under a namespace (a list of labels without dots) and
a key. A namespace is kept as its labels joined by dots, so a prefix search is a ``LIKE``.
With an index (`superstep_server.store_index`, ``store.index`` of ``langgraph.json``) puts
keep their texts' vectors in ``server_store_vectors`` and a ``query`` ranks the items by
similarity; without one a ``query`` is refused (422).

Items may expire, as in the reference: a put's ``ttl`` (minutes; ``null`` or absent: the
``store.ttl.default_ttl`` of ``langgraph.json``, else never) is kept in
``server_store_expiry``; an expired item is no longer read, found or listed (and is
deleted by the next put), and reading an item (``refresh_ttl``, by default
``store.ttl.refresh_on_read``, true) starts its time to live again."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from superstep_server import serde
from superstep_server.db import Database
from superstep_server.errors import ApiError
from superstep_server.json_filters import store_filter, store_matches
from superstep_server.rows import count_field, now, paging
from superstep_server.store_index import StoreIndex, cosine

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


# Items whose time ran out; ``?``: now, in seconds since the epoch.
_EXPIRED = (
    "EXISTS (SELECT 1 FROM server_store_expiry e WHERE e.prefix = server_store.prefix "
    "AND e.key = server_store.key AND e.expires_at <= ?)"
)


def _ttl(value: Any, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ApiError(422, f"{field}: {value!r} must be a number of minutes > 0, or null")
    return float(value)


class Store:
    def __init__(
        self, db: Database, index: StoreIndex | None = None, ttl: dict[str, Any] | None = None
    ) -> None:
        self.db = db
        self.index = index
        ttl = ttl or {}
        self.default_ttl = _ttl(ttl.get("default_ttl"), "store.ttl.default_ttl")
        self.refresh_on_read = bool(ttl.get("refresh_on_read", True))

    def put(self, body: dict[str, Any], *, default_ttl: bool = True) -> None:
        """Put an item; a ``ttl`` of ``None`` means the store's default unless
        ``default_ttl`` is false (a `BaseStore` put has already resolved it)."""
        namespace = _namespace(body.get("namespace"), "namespace")
        if not namespace:
            raise ApiError(400, "Namespace cannot be empty.")  # the reference's code and words
        key = body.get("key")
        if not isinstance(key, str) or not key:
            raise ApiError(422, "key: must be a non-empty string")
        value = body.get("value")
        if not isinstance(value, dict):
            raise ApiError(422, "value: must be a JSON object")
        ttl = _ttl(body.get("ttl"), "ttl")
        if ttl is None and default_ttl:
            ttl = self.default_ttl
        vectors: list[tuple[str, list[float]]] = []
        if self.index is not None:
            try:
                texts = self.index.texts(value, body.get("index"))
            except ValueError as e:
                raise ApiError(422, str(e)) from e
            # embedded before the transaction: an embeddings call may take a while
            embedded = self.index.embed_texts([t for _, t in texts])
            vectors = [(path, v) for (path, _), v in zip(texts, embedded, strict=True)]
        at = now()
        prefix = ".".join(namespace)
        with self.db.transaction() as tx:
            self._purge(tx)
            tx.execute(
                "DELETE FROM server_store_expiry WHERE prefix = ? AND key = ?", (prefix, key)
            )
            if ttl is not None:
                tx.execute(
                    "INSERT INTO server_store_expiry (prefix, key, ttl_minutes, expires_at) "
                    "VALUES (?, ?, ?, ?)",
                    (prefix, key, ttl, time.time() + ttl * 60),
                )
            tx.execute(
                "INSERT INTO server_store (prefix, key, value, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (prefix, key) DO UPDATE SET "
                "value = excluded.value, updated_at = excluded.updated_at",
                (prefix, key, serde.dumps(value).decode(), at, at),
            )
            if self.index is not None:
                tx.execute(
                    "DELETE FROM server_store_vectors WHERE prefix = ? AND key = ?", (prefix, key)
                )
                for path, vector in vectors:
                    tx.execute(
                        "INSERT INTO server_store_vectors (prefix, key, field, vector) "
                        "VALUES (?, ?, ?, ?)",
                        (prefix, key, path, serde.dumps(vector).decode()),
                    )

    @staticmethod
    def _purge(tx: Any) -> None:
        """Delete the expired items (in a put's transaction: reads only skip them)."""
        at = time.time()
        for table in ("server_store", "server_store_vectors"):
            tx.execute(
                f"DELETE FROM {table} WHERE EXISTS (SELECT 1 FROM server_store_expiry e "
                f"WHERE e.prefix = {table}.prefix AND e.key = {table}.key "
                f"AND e.expires_at <= ?)",
                (at,),
            )
        tx.execute("DELETE FROM server_store_expiry WHERE expires_at <= ?", (at,))

    def _refresh(self, items: Sequence[dict[str, Any]], wanted: Any) -> None:
        """Start the time to live of ``items`` again, unless ``wanted`` (the request's
        ``refresh_ttl``; ``None``: the store's ``refresh_on_read``) says not to."""
        if not items or not (self.refresh_on_read if wanted is None else bool(wanted)):
            return
        at = time.time()
        with self.db.transaction() as tx:
            for item in items:
                tx.execute(
                    "UPDATE server_store_expiry SET expires_at = ? + ttl_minutes * 60 "
                    "WHERE prefix = ? AND key = ? AND expires_at > ?",
                    (at, ".".join(item["namespace"]), item["key"], at),
                )

    def find(
        self, namespace: Sequence[str], key: str, refresh_ttl: bool | None = None
    ) -> dict[str, Any] | None:
        """The item under ``key`` in ``namespace`` (its time to live started again, see
        `_refresh`), or ``None`` (also when it expired)."""
        ns = _namespace(list(namespace), "namespace")
        rows = self.db.execute(
            f"SELECT * FROM server_store WHERE prefix = ? AND key = ? AND NOT {_EXPIRED}",
            (".".join(ns), key, time.time()),
        )
        if not rows:
            return None
        item = _item(rows[0])
        self._refresh([item], refresh_ttl)
        return item

    def delete(self, body: dict[str, Any]) -> None:
        ns = _namespace(body.get("namespace"), "namespace")
        key = body.get("key")
        if not isinstance(key, str):
            raise ApiError(422, "key: must be a string")
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM server_store WHERE prefix = ? AND key = ?", (".".join(ns), key))
            tx.execute(
                "DELETE FROM server_store_expiry WHERE prefix = ? AND key = ?", (".".join(ns), key)
            )
            tx.execute(
                "DELETE FROM server_store_vectors WHERE prefix = ? AND key = ?",
                (".".join(ns), key),
            )

    def search(self, body: dict[str, Any]) -> dict[str, Any]:
        prefix = _namespace(body.get("namespace_prefix") or [], "namespace_prefix")
        query = body.get("query")
        if query is not None and not isinstance(query, str):
            raise ApiError(422, "query: must be a string")
        if self.index is None:
            # as the reference answers it (langgraph dev, and LangGraph's stores): without
            # an index a query ranks nothing, the search is the plain one (scores null)
            query = None
        joined = ".".join(prefix)
        clauses: list[str] = []
        params: list[Any] = []
        refresh = body.get("refresh_ttl")
        if refresh is not None and not isinstance(refresh, bool):
            raise ApiError(422, "refresh_ttl: must be a boolean")
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
        sql = f"SELECT * FROM server_store WHERE NOT {_EXPIRED}"
        params.insert(0, time.time())
        if clauses:
            sql += " AND " + " AND ".join(clauses)
        sql += " ORDER BY updated_at DESC, prefix, key"
        if not rest and not query:  # SQL decides every condition: it pages too
            sql += " LIMIT ? OFFSET ?"
            params += [limit, offset]
        rows = self.db.execute(sql, params)
        items = [_item(r, score=True) for r in rows]
        if rest:
            items = [i for i in items if store_matches(i["value"], rest)]
        if query:
            items = self._ranked(items, query, clauses, params[1:])  # without the time
        if rest or query:
            items = items[offset : offset + limit]
        self._refresh(items, refresh)
        return {"items": items}

    def _ranked(
        self, items: list[dict[str, Any]], query: str, clauses: list[str], params: list[Any]
    ) -> list[dict[str, Any]]:
        """``items`` scored by their nearest vector to ``query``'s, best first; items
        without vectors after them, unscored."""
        assert self.index is not None
        wanted = self.index.embed_query(query)
        sql = "SELECT prefix, key, vector FROM server_store_vectors"
        prefix_clauses = [c for c in clauses if c.startswith("(prefix")]
        if prefix_clauses:
            sql += " WHERE " + prefix_clauses[0]
        best: dict[tuple[str, str], float] = {}
        for row in self.db.execute(sql, params[:2] if prefix_clauses else []):
            score = cosine(wanted, serde.loads(row["vector"]))
            where = (row["prefix"], row["key"])
            if where not in best or score > best[where]:
                best[where] = score
        for item in items:
            item["score"] = best.get((".".join(item["namespace"]), item["key"]))
        scored = sorted((i for i in items if i["score"] is not None), key=lambda i: -i["score"])
        return scored + [i for i in items if i["score"] is None]

    def namespaces(self, body: dict[str, Any]) -> dict[str, Any]:
        prefix = body.get("prefix") or []
        suffix = body.get("suffix") or []
        max_depth = (
            None if body.get("max_depth") is None else count_field(body, "max_depth", 1, least=1)
        )
        found: list[list[str]] = []
        seen: set[tuple[str, ...]] = set()
        live = f"SELECT DISTINCT prefix FROM server_store WHERE NOT {_EXPIRED} ORDER BY prefix"
        for row in self.db.execute(live, (time.time(),)):
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
