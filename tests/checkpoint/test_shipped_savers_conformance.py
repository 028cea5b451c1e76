"""LangGraph's checkpointer conformance suite (``langgraph-checkpoint-conformance``) against the
savers Superstep ships besides its own SQL savers (``test_conformance.py``): the ones the
façade re-exports from the real ``langgraph-checkpoint`` distributions under its own module
paths (``superstep_compat.checkpoint.memory``, ``.sqlite``, ``.sqlite.aio``, ``.postgres``,
``.postgres.aio``), which any façade graph and any engine thread may be given. Each passes the
base capabilities (put, put_writes, get_tuple, list, delete_thread); of the extended ones only
``AsyncPostgresSaver``'s ``prune`` is implemented (and passes).

The suite drives the async API only: a synchronous saver (``SqliteSaver``, ``PostgresSaver``)
is run through the thin async face that calls its sync methods in a thread, so that the
methods a synchronous run calls are the ones checked."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.conformance import checkpointer_test, validate

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.checkpoint.postgres import PostgresSaver
from superstep_compat.checkpoint.postgres.aio import AsyncPostgresSaver
from superstep_compat.checkpoint.sqlite import SqliteSaver
from superstep_compat.checkpoint.sqlite.aio import AsyncSqliteSaver

from .conftest import postgres_url
from .test_community_conformance import BASE, _SyncThroughAsync
from .test_conformance import _assert_passed


async def test_in_memory_saver_passes_the_conformance_suite() -> None:
    @checkpointer_test(name="InMemorySaver")
    async def memory() -> AsyncIterator[Any]:
        yield InMemorySaver()

    _assert_passed(await validate(memory), BASE)


async def test_sqlite_saver_passes_the_conformance_suite(tmp_path: Path) -> None:
    count = iter(range(1000))

    @checkpointer_test(name="SqliteSaver")
    async def sqlite_saver() -> AsyncIterator[Any]:
        conn = sqlite3.connect(tmp_path / f"s{next(count)}.db", check_same_thread=False)
        yield _SyncThroughAsync(SqliteSaver(conn))
        conn.close()

    _assert_passed(await validate(sqlite_saver), BASE)


async def test_async_sqlite_saver_passes_the_conformance_suite(tmp_path: Path) -> None:
    count = iter(range(1000))

    @checkpointer_test(name="AsyncSqliteSaver")
    async def async_sqlite_saver() -> AsyncIterator[Any]:
        async with AsyncSqliteSaver.from_conn_string(str(tmp_path / f"a{next(count)}.db")) as s:
            yield s

    _assert_passed(await validate(async_sqlite_saver), BASE)


@pytest.fixture
def schema_urls() -> Iterator[Callable[[], str]]:
    """Makes URLs of the test database, each with a fresh schema first on its search path
    (LangGraph's Postgres savers' tables are unqualified), every one dropped afterwards."""
    import psycopg

    url = postgres_url()
    joiner = "&" if "?" in url else "?"
    with ExitStack() as stack:

        def fresh() -> str:
            schema = f"lg_conformance_{uuid.uuid4().hex[:12]}"
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f'CREATE SCHEMA "{schema}"')
            stack.callback(_drop, url, schema)
            return f"{url}{joiner}options=-csearch_path%3D{schema}"

        yield fresh


def _drop(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


async def test_postgres_saver_passes_the_conformance_suite(
    schema_urls: Callable[[], str],
) -> None:
    @checkpointer_test(name="PostgresSaver")
    async def postgres_saver() -> AsyncIterator[Any]:
        with PostgresSaver.from_conn_string(schema_urls()) as saver:
            saver.setup()
            yield _SyncThroughAsync(saver)

    _assert_passed(await validate(postgres_saver), BASE)


async def test_async_postgres_saver_passes_the_conformance_suite(
    schema_urls: Callable[[], str],
) -> None:
    @checkpointer_test(name="AsyncPostgresSaver")
    async def async_postgres_saver() -> AsyncIterator[Any]:
        async with AsyncPostgresSaver.from_conn_string(schema_urls()) as saver:
            await saver.setup()
            yield saver

    _assert_passed(await validate(async_postgres_saver), BASE | {"prune"})
