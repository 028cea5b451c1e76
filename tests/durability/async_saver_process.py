"""The killable pipeline run by the durable runner's async lane on one of LangGraph's async
savers, as a process of its own for the kill-and-resume tests (never imported by pytest).

``python async_saver_process.py BACKEND WHERE THREAD [PAYLOAD_JSON]``: BACKEND ``sqlite``
(WHERE: a file) or ``postgres`` (WHERE: a URL); with a payload the thread is started
(``astart``), without it recovered (``arecover``); either way it is then driven to its end
with ``await dx.run()``, one effect at a time, and its final values printed as JSON."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

import killable_pipeline  # the kill points' handlers

from superstep_core.host.durable import DurableRunner


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


async def main(backend: str, where: str, thread: str, payload: str | None) -> None:
    async with async_saver(backend, where) as saver:
        runner = DurableRunner(saver, killable_pipeline.handlers, max_workers=1)
        graph = killable_pipeline.graph
        if payload is not None:
            dx = await runner.astart(graph, thread, payload=orjson.loads(payload))
        else:
            dx = await runner.arecover(graph, thread)
        async with dx:
            ex = await dx.run()
        print(orjson.dumps({"status": ex.status.value, "step": ex.step}).decode())


if __name__ == "__main__":
    backend, where, thread, *rest = sys.argv[1:]
    asyncio.run(main(backend, where, thread, rest[0] if rest else None))
