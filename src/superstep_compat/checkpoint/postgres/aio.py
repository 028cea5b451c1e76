"""`langgraph.checkpoint.postgres.aio`: `AsyncPostgresSaver`, the PostgreSQL saver for async
code.

Same public surface as LangGraph's (``AsyncPostgresSaver(conn, pipe=None, serde=None)``,
``async with AsyncPostgresSaver.from_conn_string(url)``, ``await saver.setup()``, the ``a*``
methods). The I/O is `PostgresSaver`'s, on a synchronous psycopg connection, run on a worker
thread by the async methods; the synchronous methods also work on the event loop's thread (the
façade's graph runs call them there). Given an ``AsyncConnection`` or ``AsyncConnectionPool``,
the saver opens its own synchronous connection to the same database with the same connection
parameters.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo
from psycopg_pool import AsyncConnectionPool

from superstep_compat.checkpoint.postgres import PostgresRecords
from superstep_compat.checkpoint.sqlite.aio import ThreadedAsyncMethods

__all__ = ["AsyncPostgresSaver"]


class AsyncPostgresSaver(ThreadedAsyncMethods, PostgresRecords):
    """A checkpoint saver on PostgreSQL for async code (LangGraph's
    ``langgraph.checkpoint.postgres.aio.AsyncPostgresSaver``); see the module docstring.

    ``conn``: a psycopg ``Connection``, ``ConnectionPool``, ``AsyncConnection`` or
    ``AsyncConnectionPool``. ``pipe`` is accepted and not used; ``serde`` and ``schema`` as for
    `PostgresSaver`.
    """

    def __init__(
        self,
        conn: Any,
        pipe: Any = None,
        serde: object | None = None,
        *,
        schema: str = "superstep",
    ) -> None:
        self._owned: psycopg.Connection[Any] | None = None
        if isinstance(conn, psycopg.AsyncConnection | AsyncConnectionPool):
            self._owned = _connect(_conninfo_of(conn))
            conn = self._owned
        super().__init__(conn, pipe, serde, schema=schema)

    @classmethod
    @asynccontextmanager
    async def from_conn_string(
        cls,
        conn_string: str,
        *,
        pipeline: bool = False,
        serde: object | None = None,
        schema: str = "superstep",
    ) -> AsyncIterator[AsyncPostgresSaver]:
        """A saver on a new connection to ``conn_string``, closed when the ``async with``
        block ends. ``pipeline`` is accepted for LangGraph compatibility."""
        conn = await asyncio.to_thread(_connect, conn_string)
        try:
            yield cls(conn, serde=serde, schema=schema)
        finally:
            await asyncio.to_thread(conn.close)

    async def setup(self) -> None:
        """Create the schema and tables if they do not exist."""
        await asyncio.to_thread(self._setup)

    def close(self) -> None:
        """Close the synchronous connection the saver opened for an async one (if any)."""
        if self._owned is not None:
            self._owned.close()


def _connect(conninfo: str) -> psycopg.Connection[Any]:
    return psycopg.Connection.connect(conninfo, autocommit=True, prepare_threshold=0)


def _conninfo_of(conn: psycopg.AsyncConnection[Any] | AsyncConnectionPool[Any]) -> str:
    if isinstance(conn, AsyncConnectionPool):
        conninfo, kwargs = conn.conninfo, conn.kwargs
        if not isinstance(conninfo, str) or not isinstance(kwargs, dict | None):
            raise TypeError(
                "AsyncPostgresSaver cannot read the connection parameters of a pool configured "
                "with callables; pass a connection string to from_conn_string instead"
            )
        # libpq parameters only (connection settings such as autocommit are psycopg's)
        params = {
            k: v
            for k, v in (kwargs or {}).items()
            if isinstance(v, str | int) and not isinstance(v, bool) and k != "prepare_threshold"
        }
        return make_conninfo(conninfo, **params)
    options = {
        o.keyword.decode(): o.val.decode()
        for o in conn.pgconn.info
        if o.val is not None and o.val != b""
    }
    return make_conninfo(**options)
