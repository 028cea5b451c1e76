"""The `RunRecords` contract: every implementation keeps the first record of a thread."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from superstep_core.host.run_records import (
    MemoryRunRecords,
    RunRecord,
    RunRecords,
    SqliteRunRecords,
)

RUN = RunRecord("t", "/app/flow.py:graph", "/app/flow.py", "ab" * 32, '{"x": 1}', 1_700_000_000.5)


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def runs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunRecords]:
    store: RunRecords
    if request.param == "memory":
        store = MemoryRunRecords()
    elif request.param == "sqlite":
        store = SqliteRunRecords(tmp_path / "superstep.db")
    else:
        from superstep_core.host.run_records import PostgresRunRecords

        url, schema = request.getfixturevalue("pg_schema")
        store = PostgresRunRecords(url, schema=schema)
    yield store
    store.close()


def test_a_recorded_run_is_read_back_whole(runs: RunRecords) -> None:
    assert runs.record(RUN) == RUN
    assert runs.get("t") == RUN


def test_the_first_record_of_a_thread_is_kept(runs: RunRecords) -> None:
    runs.record(RUN)
    later = RunRecord("t", "/elsewhere.py:graph", "/elsewhere.py", "cd" * 32, None, 1_700_000_001.0)
    assert runs.record(later) == RUN


def test_a_thread_without_a_record_has_none(runs: RunRecords) -> None:
    assert runs.get("nope") is None


def test_a_default_input_is_recorded_as_none(runs: RunRecords) -> None:
    runs.record(RunRecord("d", "m:graph", "/m.py", "00" * 32, None, 1.0))
    stored = runs.get("d")
    assert stored is not None and stored.input is None


def test_a_read_only_file_without_records_has_none(tmp_path: Path) -> None:
    import sqlite3

    sqlite3.connect(tmp_path / "empty.db").execute("CREATE TABLE x (y)").connection.close()
    store = SqliteRunRecords(tmp_path / "empty.db", read_only=True)
    assert store.get("t") is None
    store.close()
