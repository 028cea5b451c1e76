"""The killable pipeline run by the durable runner on one of LangGraph's official savers, as a
process of its own for the kill-and-resume tests (never imported by pytest).

``python async_saver_process.py BACKEND WHERE THREAD [PAYLOAD_JSON]``: BACKEND ``sqlite``
(WHERE: a file) or ``postgres`` (WHERE: a URL) for the async lane on ``AsyncSqliteSaver`` /
``AsyncPostgresSaver``, ``sqlite-sync`` or ``postgres-sync`` for the plain lane on
``SqliteSaver`` / ``PostgresSaver``. With a payload the thread is started (``astart`` /
``start``) and driven to its end with ``run()``; without it, it is recovered and run on by
``aresume_from_saver`` / ``resume_from_saver``; one effect at a time either way. The final
status and step are printed as JSON."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

import killable_pipeline  # the kill points' handlers

from superstep_core.host.durable import DurableRunner, aresume_from_saver, resume_from_saver
from superstep_core.runtime import Execution


@asynccontextmanager
async def async_saver(backend: str, where: str) -> AsyncIterator[Any]:
    if backend == "sqlite":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        async with AsyncSqliteSaver.from_conn_string(where) as saver:
            yield saver
        return
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    async with AsyncPostgresSaver.from_conn_string(where) as saver:
        await saver.setup()
        yield saver


@contextmanager
def sync_saver(backend: str, where: str) -> Iterator[Any]:
    if backend == "sqlite-sync":
        from langgraph.checkpoint.sqlite import SqliteSaver

        conn = sqlite3.connect(where, check_same_thread=False)
        try:
            yield SqliteSaver(conn)
        finally:
            conn.close()
        return
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(where) as saver:
        saver.setup()
        yield saver


async def amain(backend: str, where: str, thread: str, payload: str | None) -> Execution:
    graph, handlers = killable_pipeline.graph, killable_pipeline.handlers
    async with async_saver(backend, where) as saver:
        if payload is None:
            return await aresume_from_saver(graph, saver, thread, handlers, max_workers=1)
        runner = DurableRunner(saver, handlers, max_workers=1)
        async with await runner.astart(graph, thread, payload=orjson.loads(payload)) as dx:
            return await dx.run()


def main(backend: str, where: str, thread: str, payload: str | None) -> Execution:
    graph, handlers = killable_pipeline.graph, killable_pipeline.handlers
    with sync_saver(backend, where) as saver:
        if payload is None:
            return resume_from_saver(graph, saver, thread, handlers, max_workers=1)
        runner = DurableRunner(saver, handlers, max_workers=1)
        with runner.start(graph, thread, payload=orjson.loads(payload)) as dx:
            return dx.run()


if __name__ == "__main__":
    backend, where, thread, *rest = sys.argv[1:]
    payload = rest[0] if rest else None
    if backend.endswith("-sync"):
        ex = main(backend, where, thread, payload)
    else:
        ex = asyncio.run(amain(backend, where, thread, payload))
    print(orjson.dumps({"status": ex.status.value, "step": ex.step}).decode())
