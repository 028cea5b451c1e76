"""The one place the server builds a checkpoint saver (the façade's savers keep the threads'
checkpoints; the server's state, history and forks are views of them).

The savers are LangGraph's official ``langgraph-checkpoint-sqlite`` and ``-postgres`` ones
(re-exported as ``superstep_compat.checkpoint.sqlite.SqliteSaver`` and
``superstep_compat.checkpoint.postgres.PostgresSaver``); graphs are run through their public
sync API in worker threads. Their serializer is LangGraph's ``JsonPlusSerializer`` (what they
write is what it writes), whose reads can leave models undecoded for the read-only endpoints
(`superstep_server.deferred`).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from superstep_server.db import is_postgres_url
from superstep_server.deferred import ServedSerializer

__all__ = ["open_saver"]

# Any fixed 64-bit key: the Postgres advisory lock that serialises saver set-up across processes.
_SETUP_LOCK = 0x5355_5045_5253_5450  # "SUPERSTP"


def _setup_alone(url: str, saver: Any) -> None:
    """Run ``saver.setup()`` holding a Postgres advisory lock: the official saver's migrations
    (``CREATE INDEX CONCURRENTLY`` among them) deadlock when a server and a worker process
    start at once on one database. The lock is held on a connection of its own, so a pool of
    one connection still has it free for the migrations; it is polled for (every 50 ms), not
    waited for."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as lock:
        # Try, never wait inside a statement: a session blocked in pg_advisory_lock is in a
        # transaction, and the holder's CREATE INDEX CONCURRENTLY waits for every open
        # transaction to end: each would wait for the other, undetected.
        while not lock.execute("SELECT pg_try_advisory_lock(%s)", (_SETUP_LOCK,)).fetchone()[0]:  # type: ignore[index]
            time.sleep(0.05)
        try:
            saver.setup()
        finally:
            lock.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK,))


@contextmanager
def open_saver(where: str, *, pool_size: int = 10) -> Iterator[Any]:
    """A checkpoint saver on ``where`` (a SQLite file path or a ``postgresql://`` URL, then
    on a pool of ``pool_size`` connections so workers do not queue on one), set up (its
    tables exist) and closed when the block ends."""
    if is_postgres_url(where):
        from psycopg_pool import ConnectionPool

        from superstep_compat.checkpoint.postgres import PostgresSaver

        pool: Any = ConnectionPool(
            where,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True, "prepare_threshold": 0},
            open=True,
        )
        try:
            pg_saver = PostgresSaver(pool, serde=ServedSerializer())
            _setup_alone(where, pg_saver)
            yield pg_saver
        finally:
            pool.close()
        return
    from superstep_compat.checkpoint.sqlite import SqliteSaver

    if where != ":memory:":
        Path(where).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(where, check_same_thread=False)
    # As the engine's own SQLite store: WAL with synchronous=NORMAL survives a killed process
    # (a power loss may drop the last commits); the default rollback journal with FULL costs
    # several fsyncs per checkpoint, most of a short run's time.
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=10000")
    try:
        saver = SqliteSaver(conn, serde=ServedSerializer())
        saver.setup()
        yield saver
    finally:
        conn.close()
