"""The ``store`` fixture: every contract test runs against each `CheckpointStore`."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from superstep_core.checkpoint import CheckpointStore, MemoryCheckpointStore, SqliteCheckpointStore

POSTGRES_URL_VAR = "SUPERSTEP_POSTGRES_URL"


def postgres_url() -> str:
    url = os.environ.get(POSTGRES_URL_VAR)
    if not url:
        pytest.skip(
            f"{POSTGRES_URL_VAR} is unset: PostgreSQL store tests skipped "
            f"(set it to e.g. postgresql://postgres@127.0.0.1:5432/test)"
        )
    return url


@pytest.fixture
def postgres_store() -> Iterator[CheckpointStore]:
    """A PostgreSQL store in a schema of its own, dropped afterwards."""
    import psycopg

    from superstep_core.checkpoint.postgres import PostgresCheckpointStore

    url = postgres_url()
    schema = f"superstep_test_{os.getpid()}_{uuid.uuid4().hex[:10]}"
    store = PostgresCheckpointStore(url, schema=schema, min_size=1, max_size=2)
    try:
        yield store
    finally:
        store.close()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[CheckpointStore]:
    if request.param == "memory":
        yield MemoryCheckpointStore()
    elif request.param == "sqlite":
        sqlite = SqliteCheckpointStore(tmp_path / "superstep.db")
        yield sqlite
        sqlite.close()
    else:
        yield request.getfixturevalue("postgres_store")
