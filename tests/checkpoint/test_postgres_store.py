"""PostgreSQL-specific behaviour (skipped when SUPERSTEP_POSTGRES_URL is unset)."""

from __future__ import annotations

import os
import threading
import uuid

import psycopg
import pytest

from superstep_core.checkpoint import Checkpoint
from superstep_core.checkpoint.postgres import PostgresCheckpointStore

URL = os.environ.get("SUPERSTEP_POSTGRES_URL", "")
pytestmark = pytest.mark.skipif(
    not URL, reason="SUPERSTEP_POSTGRES_URL is unset: PostgreSQL store tests skipped"
)


def test_stores_opening_one_schema_at_once_create_it_once() -> None:
    url = URL
    schema = f"superstep_test_{uuid.uuid4().hex[:10]}"
    stores: list[PostgresCheckpointStore] = []
    errors: list[BaseException] = []

    def open_store() -> None:
        try:
            stores.append(PostgresCheckpointStore(url, schema=schema, max_size=1))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_store) for _ in range(4)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        stores[0].put(Checkpoint("t", "", 0, None, b"h", {"a": 1}, {}), {"a": b"A"})
        loaded = stores[-1].get("t")
        assert loaded is not None and loaded.values == {"a": b"A"}
    finally:
        for store in stores:
            store.close()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
