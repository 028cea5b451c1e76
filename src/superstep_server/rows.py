"""Helpers the table modules share: the time format, JSON filters and paging."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

__all__ = ["contains", "now", "page", "sort_rows"]


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
