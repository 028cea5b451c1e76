"""Filters on JSON documents kept as text columns, written as SQL where the database can
decide them, the rest checked in Python on the rows the SQL returned.

Two readings, as the reference has them:

- containment (threads' ``metadata`` and ``values`` filters; PostgreSQL's ``@>``): on
  PostgreSQL the whole filter is one ``@>``; on SQLite each top-level key whose value is a
  string, number, boolean or null is a ``json_extract`` comparison, nested values are left
  to `superstep_server.rows.contains`;
- the store's ``filter`` (LangGraph's ``BaseStore.search``): a top-level key is equal to a
  value, or passes operators ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``; nested
  objects match key by key and lists item by item (`store_matches`). Scalars are compared in
  SQL on both databases, the rest in Python.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

from superstep_server import serde
from superstep_server.errors import ApiError

__all__ = ["SqlFilter", "containment", "store_filter", "store_matches"]

_SCALAR = (str, int, float, bool, type(None))
_OPERATORS: dict[str, tuple[str, Callable[[Any, Any], bool]]] = {
    "$eq": ("=", operator.eq),
    "$ne": ("<>", operator.ne),
    "$gt": (">", operator.gt),
    "$gte": (">=", operator.ge),
    "$lt": ("<", operator.lt),
    "$lte": ("<=", operator.le),
}


class SqlFilter:
    """``clauses`` (joined with AND) with their ``params`` (``?`` placeholders), and
    ``rest``: the part of the filter the SQL does not decide (empty when it decides all)."""

    def __init__(self) -> None:
        self.clauses: list[str] = []
        self.params: list[Any] = []
        self.rest: dict[str, Any] = {}

    def where(self) -> str:
        return " AND ".join(self.clauses) if self.clauses else "1 = 1"


def _path(key: str) -> str | None:
    """The SQLite JSON path of a top-level key (None when the key cannot be written in one)."""
    if '"' in key or "\\" in key:
        return None
    return f'$."{key}"'


def _sqlite_compare(out: SqlFilter, column: str, key: str, sql_op: str, value: Any) -> bool:
    """Append ``column.key <sql_op> value`` for SQLite; False when it cannot be written."""
    path = _path(key)
    if path is None or not isinstance(value, _SCALAR):
        return False
    if isinstance(value, bool) or value is None:
        if sql_op not in ("=", "<>"):
            return False
        kind = "null" if value is None else ("true" if value else "false")
        out.clauses.append(f"COALESCE(json_type({column}, ?), '') {sql_op} ?")
        out.params += [path, kind]
        return True
    kinds = "('integer', 'real')" if isinstance(value, int | float) else "('text')"
    if sql_op == "<>":  # a missing key or another type is "not equal" too
        out.clauses.append(
            f"(COALESCE(json_type({column}, ?), '') NOT IN {kinds} "
            f"OR json_extract({column}, ?) <> ?)"
        )
    else:
        out.clauses.append(
            f"(json_type({column}, ?) IN {kinds} AND json_extract({column}, ?) {sql_op} ?)"
        )
    out.params += [path, path, value]
    return True


def _postgres_compare(out: SqlFilter, column: str, key: str, sql_op: str, value: Any) -> bool:
    if not isinstance(value, _SCALAR) or (
        isinstance(value, bool | None) and sql_op not in ("=", "<>")
    ):
        return False
    doc = f"(CAST({column} AS jsonb) -> ?)"
    if sql_op == "<>":
        out.clauses.append(f"({doc} IS NULL OR {doc} <> CAST(? AS jsonb))")
        out.params += [key, key, serde.dumps(value).decode()]
        return True
    if sql_op != "=":  # order only values of one JSON type, as Python does
        out.clauses.append(f"jsonb_typeof({doc}) = jsonb_typeof(CAST(? AS jsonb))")
        out.params += [key, serde.dumps(value).decode()]
    out.clauses.append(f"{doc} {sql_op} CAST(? AS jsonb)")
    out.params += [key, serde.dumps(value).decode()]
    return True


def containment(kind: str, column: str, query: Any, field: str) -> SqlFilter:
    """Rows whose JSON ``column`` contains ``query`` (``@>``). Raises `ApiError` 422 when
    ``query`` is not an object."""
    if not isinstance(query, Mapping):
        raise ApiError(422, f"{field}: must be a JSON object")
    out = SqlFilter()
    if kind == "postgres":
        out.clauses.append(f"CAST({column} AS jsonb) @> CAST(? AS jsonb)")
        out.params.append(serde.dumps(dict(query)).decode())
        return out
    for key, value in query.items():
        if not _sqlite_compare(out, column, key, "=", value):
            out.rest[key] = value
    return out


def store_filter(kind: str, column: str, query: Any) -> SqlFilter:
    """Rows whose JSON ``column`` passes the store ``filter`` ``query`` as far as SQL can
    say; `store_matches` with ``rest`` decides the others. Raises `ApiError` 422 for a
    filter that is not an object or names an unknown operator."""
    if not isinstance(query, Mapping):
        raise ApiError(422, "filter: must be a JSON object")
    compare = _postgres_compare if kind == "postgres" else _sqlite_compare
    out = SqlFilter()
    for key, wanted in query.items():
        if isinstance(wanted, Mapping) and any(str(k).startswith("$") for k in wanted):
            undecided = {}
            for op, value in wanted.items():
                if op not in _OPERATORS:
                    raise ApiError(
                        422, f"filter.{key}: unknown operator {op!r} ({', '.join(_OPERATORS)})"
                    )
                if not compare(out, column, key, _OPERATORS[op][0], value):
                    undecided[op] = value
            if undecided:
                out.rest[key] = undecided
        elif not compare(out, column, key, "=", wanted):
            out.rest[key] = wanted
    return out


def store_matches(document: Any, query: Mapping[str, Any]) -> bool:
    """Whether ``document`` passes the store filter ``query`` (LangGraph's reading)."""
    if not isinstance(document, Mapping):
        return False
    return all(_matches(document.get(k), v) for k, v in query.items())


def _matches(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(str(k).startswith("$") for k in wanted):
            return all(_operator(value, op, arg) for op, arg in wanted.items())
        if not isinstance(value, Mapping):
            return False
        return all(_matches(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        return (
            isinstance(value, list | tuple)
            and len(value) == len(wanted)
            and all(_matches(a, b) for a, b in zip(value, wanted, strict=True))
        )
    return bool(value == wanted)


def _operator(value: Any, op: str, arg: Any) -> bool:
    if op not in _OPERATORS:
        raise ApiError(422, f"filter: unknown operator {op!r} ({', '.join(_OPERATORS)})")
    try:
        return bool(_OPERATORS[op][1](value, arg))
    except TypeError:  # values of different types do not order
        return False
