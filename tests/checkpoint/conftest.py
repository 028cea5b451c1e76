"""Saver fixtures: the engine's savers on SQLite (always) and PostgreSQL (when
``SUPERSTEP_POSTGRES_URL`` is set; each test gets a schema of its own, dropped afterwards)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

POSTGRES_URL_VAR = "SUPERSTEP_POSTGRES_URL"


def postgres_url() -> str:
    url = os.environ.get(POSTGRES_URL_VAR)
    if not url:
        pytest.skip(
            f"{POSTGRES_URL_VAR} is unset: PostgreSQL saver tests skipped "
            f"(set it to e.g. postgresql://postgres@127.0.0.1:5432/test)"
        )
    return url


def fresh_schema() -> str:
    return f"superstep_test_{os.getpid()}_{uuid.uuid4().hex[:10]}"


def drop_schema(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def postgres_schema() -> Iterator[tuple[str, str]]:
    """``(url, schema)``: a schema name no other test uses, dropped afterwards."""
    url = postgres_url()
    schema = fresh_schema()
    try:
        yield url, schema
    finally:
        drop_schema(url, schema)
