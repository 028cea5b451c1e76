"""`SqliteCheckpointSaver`: LangGraph's checkpoint protocol in one SQLite file (stdlib
``sqlite3``), the embedded default of ``superstep run --thread``.

Unlike LangGraph's own SQLite saver (which writes every channel value into each checkpoint
row), a channel value is written only when ``put`` names it in ``new_versions`` (see
`superstep_core.checkpoint.sql`). The file is in WAL mode (readers never block the writer)
with a busy timeout, and every write is one autocommitted statement or one ``BEGIN IMMEDIATE``
transaction (see `superstep_core.checkpoint.sql` for the order of a ``put``), so several
processes on one machine can share a file without ``database is locked`` failures (WAL needs
a local file system, not NFS). ``synchronous=NORMAL`` (the default here) survives a killed
process; pass ``"FULL"`` to also survive power loss.

A file written by an earlier Superstep (its own tables ``checkpoints`` ... ``inputs``, before
the engine moved onto this protocol) is refused with `PreviousFormatError`.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.persistence.
"""

from __future__ import annotations

import builtins
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

from langgraph.checkpoint.serde.base import SerializerProtocol

from superstep_core.checkpoint.errors import PreviousFormatError
from superstep_core.checkpoint.sql import (
    BLOBS,
    CHECKPOINTS,
    WRITES,
    SqlCheckpointSaver,
    versions_json,
)

__all__ = ["SqliteCheckpointSaver", "connect_read_only"]

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {CHECKPOINTS} (
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL, parent_checkpoint_id TEXT, type TEXT NOT NULL,
    checkpoint BLOB NOT NULL, metadata_type TEXT NOT NULL, metadata BLOB NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));
CREATE TABLE IF NOT EXISTS {BLOBS} (
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', channel TEXT NOT NULL,
    version TEXT NOT NULL, type TEXT NOT NULL, blob BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, channel, version));
CREATE TABLE IF NOT EXISTS {WRITES} (
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL, task_id TEXT NOT NULL, idx INTEGER NOT NULL,
    channel TEXT NOT NULL, type TEXT NOT NULL, blob BLOB, task_path TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx));
"""

# The tables of the engine's own store before this protocol; "checkpoints" alone is also
# LangGraph's SQLite saver's table, so the engine's is recognised by its "header" column.
_PREVIOUS = "SELECT 1 FROM pragma_table_info('checkpoints') WHERE name='header'"


class SqliteCheckpointSaver(SqlCheckpointSaver):
    """A `BaseCheckpointSaver` in the SQLite file ``path`` (created with its tables if missing).

    ``busy_timeout``: seconds a write waits for another process's transaction before failing.
    ``synchronous``: SQLite's ``OFF``/``NORMAL``/``FULL``/``EXTRA``. ``read_only``: open an
    existing file read-only (nothing is created or changed; writes raise
    ``sqlite3.OperationalError``), for commands that only look. ``serde``: the serializer
    (default `JsonPlusSerializer`). One connection per saver, shared by its threads under a
    lock. Raises `PreviousFormatError` for a file of the engine's earlier format.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = 30.0,
        synchronous: str = "NORMAL",
        read_only: bool = False,
        serde: SerializerProtocol | None = None,
    ) -> None:
        super().__init__(serde=serde)
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, not {synchronous!r}")
        self.path = os.fspath(path)
        self._lock = threading.RLock()
        if read_only:
            self.conn = connect_read_only(self.path, busy_timeout)
            self._refuse_previous()
            if not self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (CHECKPOINTS,)
            ).fetchone():
                self.conn.executescript(_SCHEMA.replace("CREATE TABLE", "CREATE TEMP TABLE"))
            return
        self.conn = sqlite3.connect(
            self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
        self._refuse_previous()
        _enable_wal(self.conn, busy_timeout)
        self.conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
        with self._write() as cur:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    cur.execute(statement)

    def _refuse_previous(self) -> None:
        if self.conn.execute(_PREVIOUS).fetchone():
            self.conn.close()
            raise PreviousFormatError(self.path)

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Cursor]:
        # IMMEDIATE takes the write lock up front: a deferred transaction that later upgrades
        # can fail with SQLITE_BUSY at once instead of waiting for the busy timeout.
        with self._lock:
            cur = self.conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield cur
            except BaseException:
                if self.conn.in_transaction:  # SQLite already rolled back on a full disk
                    cur.execute("ROLLBACK")
                raise
            cur.execute("COMMIT")

    @contextmanager
    def _write_one(self) -> Iterator[sqlite3.Cursor]:
        # autocommit: each statement is its own transaction; it waits for the write lock
        # through the busy timeout as BEGIN IMMEDIATE does and is committed when it returns
        with self._lock:
            yield self.conn.cursor()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Cursor]:
        # one read transaction: the checkpoint, its blobs and writes from one snapshot
        with self._lock:
            cur = self.conn.cursor()
            cur.execute("BEGIN")
            try:
                yield cur
            finally:
                cur.execute("COMMIT")

    def _blob_rows(
        self, cur: Any, thread_id: str, ns: str, versions: Mapping[str, str]
    ) -> builtins.list[tuple[str, str, bytes | None]]:
        # CROSS JOIN keeps json_each the outer loop: left to itself the planner may scan the
        # whole blob table once per checkpoint read (10x slower on a 200-step thread)
        cur.execute(
            f"SELECT b.channel, b.type, b.blob FROM json_each(?) AS v CROSS JOIN {BLOBS} AS b "
            "ON b.thread_id=? AND b.checkpoint_ns=? AND b.channel=v.key AND b.version=v.value",
            (versions_json(versions), thread_id, ns),
        )
        rows: builtins.list[tuple[str, str, bytes | None]] = cur.fetchall()
        return rows

    def close(self) -> None:
        """Close the connection; the saver must not be used afterwards."""
        with self._lock:
            self.conn.close()

    def __enter__(self) -> SqliteCheckpointSaver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect_read_only(
    path: str | os.PathLike[str], busy_timeout: float = 30.0
) -> sqlite3.Connection:
    """A read-only connection to the existing SQLite file ``path`` (autocommit). A file in WAL
    mode whose directory cannot be written (no ``-shm`` file can be made) is opened as
    immutable, which is safe there since nobody can write it either. Raises
    ``sqlite3.DatabaseError`` for a file that is not a database."""
    where = quote(os.path.abspath(os.fspath(path)))
    for flags in ("mode=ro", "mode=ro&immutable=1"):
        conn = sqlite3.connect(
            f"file:{where}?{flags}",
            uri=True,
            timeout=busy_timeout,
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as e:
            conn.close()
            if "readonly" in str(e) or "unable to open" in str(e):
                continue
            raise
        except BaseException:
            conn.close()
            raise
        return conn
    raise sqlite3.OperationalError(f"unable to open {os.fspath(path)!r} read-only")


def _enable_wal(conn: sqlite3.Connection, busy_timeout: float) -> None:
    """Switch to WAL. The switch needs an exclusive lock and SQLite does not wait for it
    through the busy handler, so two processes opening a new file at once can see
    "database is locked": retry until the busy timeout runs out."""
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() >= deadline:
                raise
            time.sleep(0.02)
