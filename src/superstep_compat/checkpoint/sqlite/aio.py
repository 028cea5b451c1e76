"""`langgraph.checkpoint.sqlite.aio`: `AsyncSqliteSaver`, the SQLite saver for async code.

LangGraph's async SQLite saver runs on ``aiosqlite``. This one keeps the same public surface
(``AsyncSqliteSaver(conn)``, ``async with AsyncSqliteSaver.from_conn_string(path)``,
``await saver.setup()``, the ``a*`` methods) but runs the synchronous `SqliteSaver` I/O on a
worker thread, so it needs no extra package, and its synchronous methods also work on the
event loop's thread (the façade's graph runs call them there). ``conn`` is therefore a
``sqlite3`` connection (opened with ``check_same_thread=False``), not an ``aiosqlite`` one.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from superstep_compat.checkpoint.base import CheckpointRecord, CheckpointTuple, PendingWrite
from superstep_compat.checkpoint.sqlite import SqliteRecords

__all__ = ["AsyncSqliteSaver", "ThreadedAsyncMethods"]


class ThreadedAsyncMethods:
    """LangGraph's async saver methods over a saver's synchronous ones, each run on a worker
    thread (``asyncio.to_thread``). Mixed into the async savers."""

    async def aget_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        return await asyncio.to_thread(self.get_tuple, config)  # type: ignore[attr-defined]

    async def aget(self, config: Mapping[str, Any]) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.get, config)  # type: ignore[attr-defined]

    async def alist(
        self,
        config: Mapping[str, Any] | None,
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """`list`, newest first; the records are read on a worker thread."""

        def read() -> list[CheckpointTuple]:
            found = self.list(  # type: ignore[attr-defined]
                config, filter=filter, before=before, limit=limit
            )
            return list(found)

        for item in await asyncio.to_thread(read):
            yield item

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)  # type: ignore[attr-defined]

    async def aput_writes(
        self,
        config: Mapping[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """`put_writes` (LangGraph's), on a worker thread."""
        await asyncio.to_thread(
            self.put_writes,  # type: ignore[attr-defined]
            config,
            writes,
            task_id,
            task_path,
        )

    async def aload_writes(self, thread_id: str, ns: str, checkpoint_id: str) -> list[PendingWrite]:
        result: list[PendingWrite] = await asyncio.to_thread(
            self.load_writes,  # type: ignore[attr-defined]
            thread_id,
            ns,
            checkpoint_id,
        )
        return result

    async def asave(self, record: CheckpointRecord) -> None:
        await asyncio.to_thread(self.save, record)  # type: ignore[attr-defined]

    async def aload(
        self, thread_id: str, ns: str, checkpoint_id: str | None
    ) -> CheckpointRecord | None:
        result: CheckpointRecord | None = await asyncio.to_thread(
            self.load,  # type: ignore[attr-defined]
            thread_id,
            ns,
            checkpoint_id,
        )
        return result

    async def arecords(self, thread_id: str, ns: str) -> Sequence[CheckpointRecord]:
        result: Sequence[CheckpointRecord] = await asyncio.to_thread(
            self.records,  # type: ignore[attr-defined]
            thread_id,
            ns,
        )
        return result


class AsyncSqliteSaver(ThreadedAsyncMethods, SqliteRecords):
    """A checkpoint saver on a SQLite database for async code (LangGraph's
    ``langgraph.checkpoint.sqlite.aio.AsyncSqliteSaver``); see the module docstring.

    ``conn``: a ``sqlite3`` connection opened with ``check_same_thread=False``. ``serde``: as
    for `SqliteSaver`.
    """

    def __init__(self, conn: sqlite3.Connection, *, serde: object | None = None) -> None:
        super().__init__(conn, serde=serde)

    @classmethod
    @asynccontextmanager
    async def from_conn_string(cls, conn_string: str) -> AsyncIterator[AsyncSqliteSaver]:
        """A saver on a new connection to ``conn_string`` (a path or ``":memory:"``), closed
        when the ``async with`` block ends."""
        conn = await asyncio.to_thread(sqlite3.connect, conn_string, check_same_thread=False)
        try:
            yield cls(conn)
        finally:
            await asyncio.to_thread(conn.close)

    async def setup(self) -> None:
        """Create the tables if they do not exist (also done on first use)."""
        await asyncio.to_thread(self._setup)
