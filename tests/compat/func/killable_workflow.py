"""A functional-API workflow of five `@task`s with a persistent checkpointer, run as a script by
the kill-and-resume tests (never imported by pytest itself).

    python killable_workflow.py MODE STYLE BACKEND TARGET LOG [SCHEMA]

MODE: ``first`` (invoke with input 0; task 4 appends ``blocked t4`` to LOG and blocks until the
process is killed), ``resume`` (``invoke(None, config)`` on the same thread) or ``straight``
(an uninterrupted run). STYLE: ``sync`` or ``async`` (async tasks and entrypoint, `ainvoke`).
BACKEND: ``sqlite`` (TARGET is the database file) or ``postgres`` (TARGET is the URL, SCHEMA
the schema). Every task appends ``ran tN`` to LOG when it finishes its work. The last line
printed is JSON: the result, and the pending writes' channels found before the call.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from superstep_compat.func import entrypoint, task

THREAD = {"configurable": {"thread_id": "killable"}}


def main(mode: str, style: str, backend: str, target: str, log: str, schema: str = "") -> None:
    blocking = mode == "first"

    def note(line: str) -> None:
        with open(log, "a") as f:
            f.write(line + "\n")

    def work(i: int, x: int) -> int:
        if i == 4 and blocking:
            note("blocked t4")
            threading.Event().wait()  # until SIGKILL
        note(f"ran t{i}")
        return x * 10 + i

    call_input = 0 if mode in ("first", "straight") else None
    if style == "sync":
        with _saver(backend, target, schema) as saver:
            before = saver.get_tuple(THREAD)
            channels = [c for _, c, _ in before.pending_writes or []] if before else []
            result = _sync_workflow(saver, work).invoke(call_input, THREAD)
    else:

        async def run() -> tuple[Any, list[str]]:
            async with _async_saver(backend, target, schema) as saver:
                before = await saver.aget_tuple(THREAD)
                channels = [c for _, c, _ in before.pending_writes or []] if before else []
                return await _async_workflow(saver, work).ainvoke(call_input, THREAD), channels

        result, channels = asyncio.run(run())
    print(json.dumps({"result": result, "pending_before": channels}))


def _sync_workflow(saver: Any, work: Any) -> Any:
    def make(i: int) -> Any:
        @task(name=f"t{i}")
        def step(x: int) -> int:
            return int(work(i, x))

        return step

    steps = [make(i) for i in range(1, 6)]

    @entrypoint(checkpointer=saver)
    def workflow(x: int) -> int:
        for step in steps:
            x = step(x).result()
        return x

    return workflow


def _async_workflow(saver: Any, work: Any) -> Any:
    def make(i: int) -> Any:
        @task(name=f"t{i}")
        async def step(x: int) -> int:
            # The blocking wait runs on a worker thread, so the loop (and the kill) go on.
            return int(await asyncio.to_thread(work, i, x))

        return step

    steps = [make(i) for i in range(1, 6)]

    @entrypoint(checkpointer=saver)
    async def workflow(x: int) -> int:
        for step in steps:
            x = await step(x)
        return x

    return workflow


def _in_schema(target: str, schema: str) -> str:
    import psycopg

    with psycopg.connect(target, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
    joiner = "&" if "?" in target else "?"
    return f"{target}{joiner}options=-csearch_path%3D{schema}"


@contextmanager
def _saver(backend: str, target: str, schema: str) -> Iterator[Any]:
    if backend == "sqlite":
        from superstep_compat.checkpoint.sqlite import SqliteSaver

        conn = sqlite3.connect(target, check_same_thread=False)
        try:
            yield SqliteSaver(conn)
        finally:
            conn.close()
        return
    from superstep_compat.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(_in_schema(target, schema)) as saver:
        saver.setup()
        yield saver


@asynccontextmanager
async def _async_saver(backend: str, target: str, schema: str) -> AsyncIterator[Any]:
    if backend == "sqlite":
        from superstep_compat.checkpoint.sqlite.aio import AsyncSqliteSaver

        async with AsyncSqliteSaver.from_conn_string(target) as saver:
            yield saver
        return
    from superstep_compat.checkpoint.postgres.aio import AsyncPostgresSaver

    async with AsyncPostgresSaver.from_conn_string(_in_schema(target, schema)) as saver:
        await saver.setup()
        yield saver


if __name__ == "__main__":
    main(*sys.argv[1:])
