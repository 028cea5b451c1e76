"""Helpers the table modules share: the time format, JSON filters and paging."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

__all__ = ["contains", "count_field", "now", "page", "paging", "sort_rows"]


def now() -> str:
    """The current time as the API writes it: ISO 8601 in UTC with microseconds."""
    return datetime.now(UTC).isoformat()


def contains(document: Any, query: Any) -> bool:
    """JSON containment as PostgreSQL's ``@>`` reads it (the reference's ``metadata`` and
    ``values`` filters): every key of ``query`` is in ``document`` with a value that
    contains the query's value; a list contains a list whose items it all contains."""
    if isinstance(query, Mapping):
        if not isinstance(document, Mapping):
            return False
        return all(k in document and contains(document[k], v) for k, v in query.items())
    if isinstance(query, list):
        if not isinstance(document, list):
            return False
        return all(any(contains(d, q) for d in document) for q in query)
    return bool(document == query)


def sort_rows(
    rows: list[dict[str, Any]], key: str, order: str | None, default_order: str = "desc"
) -> list[dict[str, Any]]:
    descending = (order or default_order).lower() == "desc"
    return sorted(rows, key=lambda r: (r.get(key) is None, r.get(key) or ""), reverse=descending)


def page(rows: Sequence[Any], limit: int, offset: int) -> list[Any]:
    return list(rows[offset : offset + limit])


def count_field(body: Mapping[str, Any], key: str, default: int, *, least: int = 0) -> int:
    """An integer field of a request body (``default`` when absent or null); raises
    `ApiError` 422 naming the field for anything else."""
    from superstep_server.errors import ApiError

    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ApiError(422, f"{key}: {value!r} must be an integer >= {least}")
    return value


def paging(body: Mapping[str, Any], default_limit: int = 10) -> tuple[int, int]:
    """``(limit, offset)`` of a search body, checked."""
    return count_field(body, "limit", default_limit, least=1), count_field(body, "offset", 0)
