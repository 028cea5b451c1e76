"""The SQLite `CheckpointStore`: the embedded default, one file, stdlib ``sqlite3``.

The file is in WAL mode (readers never block the writer) with a busy timeout, and every write
is one ``BEGIN IMMEDIATE`` transaction, so several processes on one machine can share a file
without ``database is locked`` failures (WAL needs a local file system, not NFS). Reads of
several tables run in one read transaction, so they see one consistent snapshot.
``synchronous=NORMAL`` (the default here) survives a killed process; pass ``"FULL"`` to also
survive power loss.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.persistence.
"""

from __future__ import annotations

import builtins
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import orjson

from superstep_core.checkpoint.errors import InputLogConflictError, MissingBlobError
from superstep_core.checkpoint.model import (
    Checkpoint,
    LoadedCheckpoint,
    PendingWrite,
    check_put,
    encode_metadata,
    parse_checkpoint_id,
    step_in,
)

__all__ = ["SqliteCheckpointStore", "connect_read_only"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    thread_id TEXT NOT NULL, namespace TEXT NOT NULL, step INTEGER NOT NULL,
    parent_id TEXT, header BLOB NOT NULL, versions TEXT NOT NULL, metadata TEXT NOT NULL,
    PRIMARY KEY (thread_id, namespace, step));
CREATE TABLE IF NOT EXISTS blobs (
    thread_id TEXT NOT NULL, namespace TEXT NOT NULL, channel TEXT NOT NULL,
    version INTEGER NOT NULL, value BLOB NOT NULL,
    PRIMARY KEY (thread_id, namespace, channel, version));
CREATE TABLE IF NOT EXISTS writes (
    thread_id TEXT NOT NULL, namespace TEXT NOT NULL, step INTEGER NOT NULL,
    task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, value BLOB NOT NULL,
    PRIMARY KEY (thread_id, namespace, step, task_id, idx));
CREATE TABLE IF NOT EXISTS effects (
    thread_id TEXT NOT NULL, key TEXT NOT NULL, result BLOB NOT NULL,
    PRIMARY KEY (thread_id, key));
CREATE TABLE IF NOT EXISTS inputs (
    thread_id TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL,
    PRIMARY KEY (thread_id, seq));
"""

_CHECKPOINT_COLUMNS = "thread_id, namespace, step, parent_id, header, versions, metadata"


class SqliteCheckpointStore:
    """A `CheckpointStore` in the SQLite file ``path`` (created with its tables if missing).

    ``busy_timeout``: seconds a write waits for another process's transaction before failing.
    ``read_only``: open an existing file read-only (nothing is created or changed; writes
    raise ``sqlite3.OperationalError``), for commands that only look.
    One connection per store, shared by its threads under a lock; open one store per process.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = 30.0,
        synchronous: str = "NORMAL",
        read_only: bool = False,
    ) -> None:
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous must be OFF, NORMAL, FULL or EXTRA, not {synchronous!r}")
        self.path = os.fspath(path)
        self._lock = threading.RLock()
        if read_only:
            self._conn = connect_read_only(self.path, busy_timeout)
            if not self._conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='checkpoints'"
            ).fetchone():
                self._conn.executescript(_SCHEMA.replace("CREATE TABLE", "CREATE TEMP TABLE"))
            return
        self._conn = sqlite3.connect(
            self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
        _enable_wal(self._conn, busy_timeout)
        self._conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
        with self._write() as cur:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    cur.execute(statement)

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Cursor]:
        # IMMEDIATE takes the write lock up front: a deferred transaction that later upgrades
        # can fail with SQLITE_BUSY at once instead of waiting for the busy timeout.
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield cur
            except BaseException:
                if self._conn.in_transaction:  # SQLite already rolled back on a full disk
                    cur.execute("ROLLBACK")
                raise
            cur.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Cursor]:
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN")
            try:
                yield cur
            finally:
                cur.execute("COMMIT")

    def put(self, checkpoint: Checkpoint, new_blobs: Mapping[str, bytes]) -> None:
        check_put(checkpoint, new_blobs)
        metadata = encode_metadata(checkpoint).decode()
        thread, ns = checkpoint.thread_id, checkpoint.namespace
        with self._write() as cur:
            cur.executemany(
                "INSERT INTO blobs VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [
                    (thread, ns, channel, checkpoint.versions[channel], value)
                    for channel, value in new_blobs.items()
                ],
            )
            cur.execute(
                f"INSERT OR REPLACE INTO checkpoints ({_CHECKPOINT_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    thread,
                    ns,
                    checkpoint.step,
                    checkpoint.parent_id,
                    checkpoint.header,
                    orjson.dumps(dict(checkpoint.versions)).decode(),
                    metadata,
                ),
            )

    def get(
        self, thread_id: str, namespace: str = "", checkpoint_id: str | None = None
    ) -> LoadedCheckpoint | None:
        select = f"SELECT {_CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id=? AND namespace=?"
        with self._read() as cur:
            if checkpoint_id is None:
                cur.execute(f"{select} ORDER BY step DESC LIMIT 1", (thread_id, namespace))
            else:
                step = step_in(namespace, checkpoint_id)
                cur.execute(f"{select} AND step=?", (thread_id, namespace, step))
            row = cur.fetchone()
            if row is None:
                return None
            checkpoint = _checkpoint(row)
            cur.execute(
                "SELECT b.channel, b.value FROM json_each(?) AS v JOIN blobs AS b "
                "ON b.thread_id=? AND b.namespace=? AND b.channel=v.key AND b.version=v.value",
                (row[5], thread_id, namespace),
            )
            values: dict[str, bytes] = dict(cur.fetchall())
            cur.execute(
                "SELECT task_id, idx, channel, value FROM writes "
                "WHERE thread_id=? AND namespace=? AND step=? ORDER BY task_id, idx",
                (thread_id, namespace, checkpoint.step),
            )
            writes = tuple(PendingWrite(*w) for w in cur.fetchall())
        missing = {c: v for c, v in checkpoint.versions.items() if c not in values}
        if missing:
            raise MissingBlobError(thread_id, checkpoint.id, missing)
        return LoadedCheckpoint(checkpoint, values, writes)

    def list(
        self,
        thread_id: str,
        namespace: str | None = None,
        before: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[Checkpoint]:
        query = f"SELECT {_CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id=?"
        params: builtins.list[Any] = [thread_id]
        if namespace is not None:
            query += " AND namespace=?"
            params.append(namespace)
        if before is not None:
            query += " AND step<?"
            params.append(parse_checkpoint_id(before)[1])
        query += " ORDER BY step DESC, namespace"
        if limit is not None:
            query += " LIMIT ?"
            params.append(limit)
        with self._read() as cur:
            cur.execute(query, params)
            return [_checkpoint(row) for row in cur.fetchall()]

    def put_writes(
        self,
        thread_id: str,
        namespace: str,
        checkpoint_id: str,
        task_id: str,
        writes: Sequence[tuple[str, bytes]],
        effects: Mapping[str, bytes] | None = None,
    ) -> None:
        step = step_in(namespace, checkpoint_id)
        with self._write() as cur:
            cur.execute(
                "DELETE FROM writes WHERE thread_id=? AND namespace=? AND step=? AND task_id=?",
                (thread_id, namespace, step, task_id),
            )
            cur.executemany(
                "INSERT INTO writes VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (thread_id, namespace, step, task_id, index, channel, value)
                    for index, (channel, value) in enumerate(writes)
                ],
            )
            cur.executemany(
                "INSERT INTO effects VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [(thread_id, key, result) for key, result in (effects or {}).items()],
            )

    def record_effect(self, thread_id: str, key: str, result: bytes) -> bytes:
        with self._write() as cur:
            cur.execute(
                "INSERT INTO effects VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (thread_id, key, result),
            )
            cur.execute("SELECT result FROM effects WHERE thread_id=? AND key=?", (thread_id, key))
            stored: bytes = cur.fetchone()[0]
        return stored

    def get_effect(self, thread_id: str, key: str) -> bytes | None:
        with self._read() as cur:
            cur.execute("SELECT result FROM effects WHERE thread_id=? AND key=?", (thread_id, key))
            row = cur.fetchone()
        return None if row is None else bytes(row[0])

    def append_input(self, thread_id: str, seq: int, data: bytes) -> None:
        with self._write() as cur:
            cur.execute(
                "INSERT INTO inputs VALUES (?, ?, ?) ON CONFLICT DO NOTHING", (thread_id, seq, data)
            )
            if cur.rowcount == 0:
                cur.execute("SELECT data FROM inputs WHERE thread_id=? AND seq=?", (thread_id, seq))
                if cur.fetchone()[0] != data:
                    raise InputLogConflictError(thread_id, seq)

    def read_inputs(self, thread_id: str) -> builtins.list[tuple[int, bytes]]:
        with self._read() as cur:
            cur.execute("SELECT seq, data FROM inputs WHERE thread_id=? ORDER BY seq", (thread_id,))
            return [(seq, bytes(data)) for seq, data in cur.fetchall()]

    def delete_thread(self, thread_id: str) -> None:
        with self._write() as cur:
            for table in ("checkpoints", "blobs", "writes", "effects", "inputs"):
                cur.execute(f"DELETE FROM {table} WHERE thread_id=?", (thread_id,))

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SqliteCheckpointStore:
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


def _checkpoint(row: tuple[Any, ...]) -> Checkpoint:
    thread_id, namespace, step, parent_id, header, versions, metadata = row
    return Checkpoint(
        thread_id=thread_id,
        namespace=namespace,
        step=step,
        parent_id=parent_id,
        header=bytes(header),
        versions=orjson.loads(versions),
        metadata=orjson.loads(metadata),
    )


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
