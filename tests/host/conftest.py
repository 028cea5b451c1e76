"""Fixtures of the host tests: a virtual wall clock and every `LeaseStore` (PostgreSQL skipped,
with the reason shown, when ``SUPERSTEP_POSTGRES_URL`` is unset)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from superstep_core.host.lease import LeaseStore, MemoryLeaseStore
from superstep_core.host.lease_sql import SqliteLeaseStore

POSTGRES_URL_VAR = "SUPERSTEP_POSTGRES_URL"


class WallClock:
    """Seconds since the epoch that move only when a test says so."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def postgres_url() -> str:
    url = os.environ.get(POSTGRES_URL_VAR)
    if not url:
        pytest.skip(
            f"{POSTGRES_URL_VAR} is unset: PostgreSQL lease tests skipped "
            f"(set it to e.g. postgresql://postgres@127.0.0.1:5432/test)"
        )
    return url


@pytest.fixture
def clock() -> WallClock:
    return WallClock()


@pytest.fixture
def pg_schema() -> Iterator[tuple[str, str]]:
    """A PostgreSQL URL and a schema of its own, dropped afterwards."""
    import psycopg

    url = postgres_url()
    schema = f"superstep_lease_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    try:
        yield url, schema
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def leases(
    request: pytest.FixtureRequest, tmp_path: Path, clock: WallClock
) -> Iterator[LeaseStore]:
    store: LeaseStore
    if request.param == "memory":
        store = MemoryLeaseStore(clock)
    elif request.param == "sqlite":
        store = SqliteLeaseStore(tmp_path / "superstep.db", clock=clock)
    else:
        from superstep_core.host.lease_sql import PostgresLeaseStore

        url, schema = request.getfixturevalue("pg_schema")
        store = PostgresLeaseStore(url, schema=schema, clock=clock)
    yield store
    store.close()
