"""The server's own tables (assistants, threads, runs, store items) on SQLite or PostgreSQL,
behind one small interface: SQL is written once with ``?`` placeholders (rewritten to
psycopg's ``%s``), JSON is kept as text, times as ISO 8601 UTC text (ordered as text).

SQLite (the embedded default): one connection in WAL mode shared by the server's threads
under a lock; a transaction is ``BEGIN IMMEDIATE`` (one writer at a time). PostgreSQL: a
psycopg connection pool; a transaction is one pooled connection.

Checkpoints are not here: the façade's saver keeps them (`superstep_server.saver`), in the
same SQLite file or PostgreSQL database.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

__all__ = ["Database", "Tx", "is_postgres_url", "open_database"]

log = logging.getLogger("superstep.server")

SCHEMA = """
CREATE TABLE IF NOT EXISTS server_assistants (
    assistant_id TEXT PRIMARY KEY,
    graph_id TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    config TEXT NOT NULL,
    context TEXT NOT NULL,
    metadata TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS server_assistant_versions (
    assistant_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    graph_id TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    config TEXT NOT NULL,
    context TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (assistant_id, version));
CREATE TABLE IF NOT EXISTS server_threads (
    thread_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    metadata TEXT NOT NULL,
    config TEXT NOT NULL,
    state_values TEXT,
    interrupts TEXT NOT NULL,
    error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    state_updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS server_runs (
    run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    assistant_id TEXT NOT NULL,
    status TEXT NOT NULL,
    metadata TEXT NOT NULL,
    kwargs TEXT NOT NULL,
    multitask_strategy TEXT NOT NULL,
    temporary INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    worker TEXT,
    lease_until DOUBLE PRECISION,
    attempt INTEGER NOT NULL DEFAULT 0,
    cancel_action TEXT,
    origin TEXT,
    not_before DOUBLE PRECISION,
    webhook TEXT,
    output TEXT);
CREATE UNIQUE INDEX IF NOT EXISTS server_runs_one_running_per_thread
    ON server_runs (thread_id) WHERE status = 'running';
CREATE INDEX IF NOT EXISTS server_runs_by_status ON server_runs (status, created_at);
CREATE INDEX IF NOT EXISTS server_runs_by_thread ON server_runs (thread_id, created_at);
CREATE TABLE IF NOT EXISTS server_run_events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq));
CREATE TABLE IF NOT EXISTS server_crons (
    cron_id TEXT PRIMARY KEY,
    assistant_id TEXT NOT NULL,
    thread_id TEXT,
    schedule TEXT NOT NULL,
    timezone TEXT,
    payload TEXT NOT NULL,
    metadata TEXT NOT NULL,
    on_run_completed TEXT,
    end_time TEXT,
    enabled INTEGER NOT NULL,
    next_run_date TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS server_crons_due ON server_crons (enabled, next_run_date);
CREATE TABLE IF NOT EXISTS server_store (
    prefix TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (prefix, key));
CREATE TABLE IF NOT EXISTS server_thread_updates (
    thread_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (thread_id, created_at));
CREATE TABLE IF NOT EXISTS server_task_times (
    run_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL,
    task_id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    name TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    duration_ms DOUBLE PRECISION,
    error TEXT,
    interrupted INTEGER NOT NULL,
    PRIMARY KEY (run_id, checkpoint_ns, task_id));
CREATE INDEX IF NOT EXISTS server_task_times_by_thread ON server_task_times (thread_id, run_id);
CREATE TABLE IF NOT EXISTS server_task_attempts (
    run_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL,
    task_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    thread_id TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    duration_ms DOUBLE PRECISION NOT NULL,
    error TEXT,
    max_attempts INTEGER,
    PRIMARY KEY (run_id, checkpoint_ns, task_id, attempt));
CREATE INDEX IF NOT EXISTS server_task_attempts_by_thread
    ON server_task_attempts (thread_id, run_id);
CREATE TABLE IF NOT EXISTS server_store_expiry (
    prefix TEXT NOT NULL,
    key TEXT NOT NULL,
    ttl_minutes DOUBLE PRECISION NOT NULL,
    expires_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (prefix, key));
CREATE TABLE IF NOT EXISTS server_store_vectors (
    prefix TEXT NOT NULL,
    key TEXT NOT NULL,
    field TEXT NOT NULL,
    vector TEXT NOT NULL,
    PRIMARY KEY (prefix, key, field))
"""


def is_postgres_url(where: str) -> bool:
    return where.startswith(("postgresql://", "postgres://"))


class Tx(Protocol):
    """One transaction: statements run in order, committed together."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Run ``sql`` (``?`` placeholders); the rows it returns, as dicts."""
        ...


class Database(Protocol):
    """The server's tables: `transaction` for several statements, `execute` for one."""

    kind: str
    where: str

    def transaction(self) -> Any:
        """A context manager yielding a `Tx`; committed when the block ends, rolled back on
        an exception."""
        ...

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]: ...

    def is_unique_violation(self, error: BaseException) -> bool: ...

    def notify(self, tx: Tx, channel: str, payload: str = "") -> None:
        """Tell the database's listeners (`listen`, in any process) ``payload`` on
        ``channel`` when ``tx`` commits; nothing on SQLite (its processes poll)."""
        ...

    def listen(
        self,
        channels: Sequence[str],
        on_notify: Callable[[str, str], None],
        stop: threading.Event,
    ) -> bool:
        """Call ``on_notify(channel, payload)`` for each notification on ``channels`` until
        ``stop`` is set (blocking; reconnects after an error, and calls
        ``on_notify("", "")`` after each (re)connection: what it missed meanwhile). False
        at once when the database has no notifications (SQLite)."""
        ...

    def close(self) -> None: ...


class _SqliteTx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cur = self.conn.execute(sql, tuple(params))
        if cur.description is None:
            return []
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]


class SqliteDatabase:
    """The tables in one SQLite file (created with its directory when missing)."""

    kind = "sqlite"

    def __init__(self, path: str) -> None:
        self.where = path
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA busy_timeout=10000")
        self.lock = threading.RLock()
        with self.lock:
            self.conn.executescript(SCHEMA)

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield _SqliteTx(self.conn)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.lock:
            return _SqliteTx(self.conn).execute(sql, params)

    def is_unique_violation(self, error: BaseException) -> bool:
        return isinstance(error, sqlite3.IntegrityError) and "UNIQUE" in str(error)

    def notify(self, tx: Tx, channel: str, payload: str = "") -> None:
        return None

    def listen(
        self,
        channels: Sequence[str],
        on_notify: Callable[[str, str], None],
        stop: threading.Event,
    ) -> bool:
        return False

    def close(self) -> None:
        with self.lock:
            self.conn.close()


class _PostgresTx:
    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.conn.cursor() as cur:
            cur.execute(sql.replace("?", "%s"), tuple(params))
            if cur.description is None:
                return []
            names = [d.name for d in cur.description]
            return [dict(zip(names, row)) for row in cur.fetchall()]


class PostgresDatabase:
    """The tables in a PostgreSQL database, through a psycopg connection pool."""

    kind = "postgres"

    def __init__(self, url: str, *, max_size: int = 10) -> None:
        import psycopg
        from psycopg_pool import ConnectionPool

        self.where = url
        self._psycopg = psycopg
        self.pool: Any = ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            kwargs={"autocommit": True, "prepare_threshold": None},
            open=True,
        )
        with self.pool.connection() as conn, conn.transaction():
            # one server at a time creates the tables (CREATE ... IF NOT EXISTS races)
            conn.execute("SELECT pg_advisory_xact_lock(7716161)")
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        with self.pool.connection() as conn, conn.transaction():
            yield _PostgresTx(conn)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self.pool.connection() as conn:
            return _PostgresTx(conn).execute(sql, params)

    def is_unique_violation(self, error: BaseException) -> bool:
        return isinstance(error, self._psycopg.errors.UniqueViolation)

    def notify(self, tx: Tx, channel: str, payload: str = "") -> None:
        tx.execute("SELECT pg_notify(?, ?)", (channel, payload))

    def listen(
        self,
        channels: Sequence[str],
        on_notify: Callable[[str, str], None],
        stop: threading.Event,
    ) -> bool:
        # a connection of its own (LISTEN holds it), outside the pool; notifications are
        # read with a timeout so ``stop`` is seen within a second
        while not stop.is_set():
            try:
                with self._psycopg.connect(self.where, autocommit=True) as conn:
                    for channel in channels:
                        conn.execute(f'LISTEN "{channel}"')
                    on_notify("", "")
                    while not stop.is_set():
                        for note in conn.notifies(timeout=1.0):
                            on_notify(note.channel, note.payload)
            except Exception:
                if stop.is_set():
                    break
                log.exception("cannot listen for notifications on %s", channels)
                stop.wait(1.0)
        return True

    def close(self) -> None:
        self.pool.close()


def open_database(where: str, *, pool_size: int = 10) -> Database:
    """The server's tables at ``where``: a ``postgresql://`` URL or a SQLite file path."""
    if is_postgres_url(where):
        return PostgresDatabase(where, max_size=pool_size)
    return SqliteDatabase(where)
