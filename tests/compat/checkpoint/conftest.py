"""Saver fixtures: SQLite on a file, and PostgreSQL in a schema of its own (skipped, with the
reason shown, when ``SUPERSTEP_POSTGRES_URL`` is unset)."""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from superstep_compat.checkpoint.sqlite import SqliteSaver

POSTGRES_URL_VAR = "SUPERSTEP_POSTGRES_URL"


def postgres_url() -> str:
    url = os.environ.get(POSTGRES_URL_VAR)
    if not url:
        pytest.skip(
            f"{POSTGRES_URL_VAR} is unset: PostgreSQL saver tests skipped "
            f"(set it to e.g. postgresql://postgres@127.0.0.1:5432/test)"
        )
    return url


def in_schema(url: str, schema: str) -> str:
    """``url`` with ``schema`` first on the search path (the official savers' tables go there)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}options=-csearch_path%3D{schema}"


@pytest.fixture
def pg_schema() -> Iterator[tuple[str, str]]:
    """``(url, schema)``: a unique schema, dropped afterwards."""
    import psycopg

    url = postgres_url()
    schema = f"superstep_compat_test_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    try:
        yield url, schema
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "checkpoints.sqlite")


@pytest.fixture(params=["sqlite", "postgres"])
def saver(request: pytest.FixtureRequest, db_path: str) -> Iterator[Any]:
    """A synchronous saver of each kind."""
    if request.param == "sqlite":
        conn = sqlite3.connect(db_path, check_same_thread=False)
        yield SqliteSaver(conn)
        conn.close()
        return
    from superstep_compat.checkpoint.postgres import PostgresSaver

    url, schema = request.getfixturevalue("pg_schema")
    with PostgresSaver.from_conn_string(in_schema(url, schema)) as pg:
        pg.setup()
        yield pg
