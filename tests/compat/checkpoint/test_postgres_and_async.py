"""PostgreSQL across processes and connections; the async savers on the event loop."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.checkpoint.sqlite.aio import AsyncSqliteSaver
from superstep_compat.types import Command

from .conftest import in_schema
from .graphs import approval_graph, script, view

GRAPHS = Path(__file__).with_name("graphs.py")


def test_a_new_postgres_saver_continues_a_thread_started_in_another_process(
    pg_schema: tuple[str, str],
) -> None:
    from superstep_compat.checkpoint.postgres import PostgresSaver

    url, schema = pg_schema
    done = subprocess.run(
        [sys.executable, str(GRAPHS), "postgres", url, schema],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    with PostgresSaver.from_conn_string(in_schema(url, schema)) as saver:
        graph = approval_graph(saver)
        cfg = {"configurable": {"thread_id": "t"}}
        assert graph.get_state(cfg).next == ("ask",)
        assert graph.invoke(Command(resume="yes"), cfg) == {"log": ["start", "answer=yes"]}
        expected = script(approval_graph(InMemorySaver()))["history"]
        assert [view(s) for s in graph.get_state_history(cfg)] == expected


def test_postgres_saver_on_a_connection_pool(pg_schema: tuple[str, str]) -> None:
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    from superstep_compat.checkpoint.postgres import PostgresSaver

    url, schema = pg_schema
    kwargs = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    with ConnectionPool(in_schema(url, schema), min_size=1, max_size=2, kwargs=kwargs) as pool:
        saver = PostgresSaver(pool)
        saver.setup()
        assert script(approval_graph(saver)) == script(approval_graph(InMemorySaver()))


async def _async_script(saver: Any) -> dict[str, Any]:
    graph = approval_graph(saver)
    cfg = {"configurable": {"thread_id": "a"}}
    first = await graph.ainvoke({"log": []}, cfg)
    paused = await graph.aget_state(cfg)
    final = await graph.ainvoke(Command(resume="yes"), cfg)
    listed = [t async for t in saver.alist(cfg)]
    latest = await saver.aget_tuple(cfg)
    assert latest is not None and latest.config == listed[0].config
    await saver.adelete_thread("a")
    assert await saver.aget_tuple(cfg) is None
    return {
        "first": first["log"],
        "paused": paused.next,
        "final": final,
        "n": len(listed),
    }


EXPECTED_ASYNC = {
    "first": ["start"],
    "paused": ("ask",),
    "final": {"log": ["start", "answer=yes"]},
    "n": 4,
}


def test_async_sqlite_saver_from_conn_string(tmp_path: Path) -> None:
    async def main() -> dict[str, Any]:
        path = str(tmp_path / "a.sqlite")
        async with AsyncSqliteSaver.from_conn_string(path) as saver:
            await saver.setup()
            return await _async_script(saver)

    assert asyncio.run(main()) == EXPECTED_ASYNC


def test_async_postgres_saver_from_conn_string(pg_schema: tuple[str, str]) -> None:
    from superstep_compat.checkpoint.postgres.aio import AsyncPostgresSaver

    url, schema = pg_schema

    async def main() -> dict[str, Any]:
        async with AsyncPostgresSaver.from_conn_string(in_schema(url, schema)) as saver:
            await saver.setup()
            return await _async_script(saver)

    assert asyncio.run(main()) == EXPECTED_ASYNC


def test_async_postgres_saver_on_an_async_connection(pg_schema: tuple[str, str]) -> None:
    import psycopg
    from psycopg.rows import dict_row

    from superstep_compat.checkpoint.postgres.aio import AsyncPostgresSaver

    url, schema = pg_schema

    async def main() -> dict[str, Any]:
        async with await psycopg.AsyncConnection.connect(
            in_schema(url, schema), autocommit=True, prepare_threshold=0, row_factory=dict_row
        ) as conn:
            saver = AsyncPostgresSaver(conn)
            await saver.setup()
            return await _async_script(saver)

    assert asyncio.run(main()) == EXPECTED_ASYNC
