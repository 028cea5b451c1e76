"""LangGraph's checkpointer conformance suite (``langgraph-checkpoint-conformance``) against
every saver the engine ships: base capabilities (put, put_writes, get_tuple, list,
delete_thread) and the extended ones (delete_for_runs, copy_thread, prune)."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.report import CapabilityReport

from superstep_core.checkpoint import SqliteCheckpointSaver

from .conftest import drop_schema, fresh_schema, postgres_url


def _assert_passed(report: CapabilityReport, implemented: set[str]) -> None:
    failures = {
        name: result.failures
        for name, result in report.results.items()
        if result.passed is False or (result.tests_failed or 0) > 0
    }
    assert failures == {}, failures
    tested = {name for name, result in report.results.items() if result.passed}
    assert tested == implemented, report.results


_IMPLEMENTED = {
    "put",
    "put_writes",
    "get_tuple",
    "list",
    "delete_thread",
    "delete_for_runs",
    "copy_thread",
    "prune",
}


async def test_sqlite_saver_passes_the_conformance_suite() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        count = iter(range(100))

        @checkpointer_test(name="SqliteCheckpointSaver")
        async def sqlite_saver() -> AsyncIterator[Any]:
            saver = SqliteCheckpointSaver(Path(tmp) / f"c{next(count)}.db")
            yield saver
            saver.close()

        report = await validate(sqlite_saver)
    _assert_passed(report, _IMPLEMENTED)


async def test_postgres_saver_passes_the_conformance_suite() -> None:
    url = postgres_url()
    from superstep_core.checkpoint.postgres import PostgresCheckpointSaver

    schemas: list[str] = []

    @checkpointer_test(name="PostgresCheckpointSaver")
    async def postgres_saver() -> AsyncIterator[Any]:
        schemas.append(fresh_schema())
        saver = PostgresCheckpointSaver(url, schema=schemas[-1], min_size=1, max_size=2)
        yield saver
        saver.close()

    try:
        report = await validate(postgres_saver)
    finally:
        for schema in schemas:
            drop_schema(url, schema)
    _assert_passed(report, _IMPLEMENTED)


@pytest.mark.parametrize("implemented", [_IMPLEMENTED])
def test_the_suite_reports_a_broken_saver(implemented: set[str], tmp_path: Path) -> None:
    """The check above can fail: a saver that forgets pending writes is caught."""
    import asyncio

    class Forgetful(SqliteCheckpointSaver):
        def put_writes(self, *args: Any, **kwargs: Any) -> None:
            return None

    @checkpointer_test(name="Forgetful")
    async def forgetful() -> AsyncIterator[Any]:
        saver = Forgetful(tmp_path / "f.db")
        yield saver
        saver.close()

    report = asyncio.run(validate(forgetful, capabilities={"put_writes"}))
    with pytest.raises(AssertionError):
        _assert_passed(report, {"put_writes"})
