"""`langgraph.checkpoint.sqlite`: `SqliteSaver`, checkpoints in a SQLite database.

Each LangGraph checkpoint is one row of ``compat_checkpoints`` (the record without its channel
values, codec-encoded) and its channel values are rows of ``compat_blobs`` keyed by a digest of
their bytes, so a value that did not change is stored once per thread, however many
checkpoints refer to it. Records are ordered by insertion (a sequence per thread and
namespace, kept when a record is replaced), as `InMemorySaver` orders them: a thread's latest
checkpoint is the last one written, and time travel (a run from an older checkpoint) simply
adds rows, so branches need nothing special. Pending writes are rows of ``compat_writes``,
keyed by checkpoint, task and index, read back in the order they were first saved (rowid).
The table names do not collide with the engine's `SqliteCheckpointStore` or LangGraph's own
saver, so all may share one file.

Values are written with the typed codec (``superstep_compat.checkpoint.serde``): nothing is
pickled, and a value of an unregistered class is refused when the checkpoint is written.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from typing import Any, TypeVar

from superstep_compat.checkpoint.base import BaseCheckpointSaver, CheckpointRecord, PendingWrite
from superstep_compat.checkpoint.serde import (
    decode_header,
    encode_record,
    encode_writes,
    resolve_codec,
)
from superstep_core.persistence import Codec

__all__ = ["SqliteSaver"]

T = TypeVar("T")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS compat_checkpoints (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL DEFAULT '',
        checkpoint_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        parent_checkpoint_id TEXT,
        record BLOB NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id))""",
    """CREATE INDEX IF NOT EXISTS compat_checkpoints_seq
        ON compat_checkpoints (thread_id, checkpoint_ns, seq)""",
    """CREATE TABLE IF NOT EXISTS compat_blobs (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL DEFAULT '',
        digest TEXT NOT NULL,
        value BLOB NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, digest))""",
    """CREATE TABLE IF NOT EXISTS compat_writes (
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL DEFAULT '',
        checkpoint_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        channel TEXT NOT NULL,
        task_path TEXT NOT NULL DEFAULT '',
        value BLOB NOT NULL,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx))""",
)
# A regular write is saved once (the first save wins); a special one (index < 0) is replaced.
_PUT_WRITE = (
    "INSERT INTO compat_writes "
    "(thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, task_path, value) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET "
    "channel = excluded.channel, task_path = excluded.task_path, value = excluded.value "
    "WHERE excluded.idx < 0"
)
_SELECT_WRITES = (
    "SELECT task_id, channel, value FROM compat_writes "
    "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? ORDER BY rowid"
)
_PUT_BLOB = (
    "INSERT INTO compat_blobs (thread_id, checkpoint_ns, digest, value) VALUES (?, ?, ?, ?) "
    "ON CONFLICT DO NOTHING"
)
_PUT_RECORD = (
    "INSERT INTO compat_checkpoints "
    "(thread_id, checkpoint_ns, checkpoint_id, seq, parent_checkpoint_id, record) "
    "VALUES (?1, ?2, ?3, (SELECT COALESCE(MAX(seq), 0) + 1 FROM compat_checkpoints "
    "WHERE thread_id = ?1 AND checkpoint_ns = ?2), ?4, ?5) "
    "ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) "
    "DO UPDATE SET parent_checkpoint_id = excluded.parent_checkpoint_id, record = excluded.record"
)
_SELECT = "SELECT record FROM compat_checkpoints WHERE thread_id = ? AND checkpoint_ns = ?"


class SqliteRecords(BaseCheckpointSaver):
    """What `SqliteSaver` and `AsyncSqliteSaver` share: the tables and the record I/O on one
    ``sqlite3`` connection, serialised by a lock (so the connection may be used from several
    threads when opened with ``check_same_thread=False``)."""

    def __init__(self, conn: sqlite3.Connection, *, serde: object | None = None) -> None:
        if not isinstance(conn, sqlite3.Connection):
            raise TypeError(
                f"{type(self).__name__} needs a sqlite3.Connection, not "
                f"{type(conn).__module__}.{type(conn).__name__} (use from_conn_string(path) "
                f"to open one)"
            )
        self.conn = conn
        self.codec: Codec = resolve_codec(serde)
        self.serde = serde
        self.is_setup = False
        self.lock = threading.RLock()

    # --- connection ----------------------------------------------------------------------

    def _setup(self) -> None:
        with self.lock:
            if self.is_setup:
                return
            self.conn.execute("PRAGMA busy_timeout = 10000")
            mode = self.conn.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() not in ("wal", "memory"):
                self.conn.execute("PRAGMA journal_mode = WAL")
            self._transaction(lambda cur: [cur.execute(stmt) for stmt in _SCHEMA])
            self.is_setup = True

    def _transaction(self, work: Callable[[sqlite3.Cursor], T]) -> T:
        with self.lock:
            conn = self.conn
            if not conn.in_transaction:
                conn.execute("BEGIN IMMEDIATE")  # take the write lock now: no upgrade deadlock
            cur = conn.cursor()
            try:
                result = work(cur)
            except BaseException:
                conn.rollback()
                raise
            finally:
                cur.close()
            conn.commit()
            return result

    def _read(self, work: Callable[[sqlite3.Cursor], T]) -> T:
        if not self.is_setup:
            self._setup()
        with self.lock:
            cur = self.conn.cursor()
            try:
                return work(cur)
            finally:
                cur.close()

    # --- records -------------------------------------------------------------------------

    def save(self, record: CheckpointRecord) -> None:
        """Insert ``record``, or replace the stored record with the same id (one
        transaction: its new channel values, then the record)."""
        self.save_many((record,))

    def save_many(self, records: Sequence[CheckpointRecord]) -> None:
        """`save` each of ``records``, all in one transaction."""
        encoded = [(record, encode_record(record, self.codec)) for record in records]
        if not self.is_setup:
            self._setup()

        def write(cur: sqlite3.Cursor) -> None:
            for record, data in encoded:
                key = (record.thread_id, record.checkpoint_ns)
                cur.executemany(_PUT_BLOB, [(*key, d, v) for d, v in data.blobs.items()])
                row = (*key, record.checkpoint_id, record.parent_id, data.header)
                cur.execute(_PUT_RECORD, row)

        self._transaction(write)

    def load(self, thread_id: str, ns: str, checkpoint_id: str | None) -> CheckpointRecord | None:
        """The record with ``checkpoint_id``, or the thread's latest (the last one inserted)
        when ``None``."""

        def read(cur: sqlite3.Cursor) -> list[CheckpointRecord]:
            if checkpoint_id is None:
                cur.execute(_SELECT + " ORDER BY seq DESC LIMIT 1", (thread_id, ns))
            else:
                cur.execute(_SELECT + " AND checkpoint_id = ?", (thread_id, ns, checkpoint_id))
            return self._complete(cur, thread_id, ns, [row[0] for row in cur.fetchall()])

        found = self._read(read)
        return found[0] if found else None

    def records(self, thread_id: str, ns: str) -> Sequence[CheckpointRecord]:
        """Every record of a thread and namespace, oldest (first inserted) first."""

        def read(cur: sqlite3.Cursor) -> list[CheckpointRecord]:
            cur.execute(_SELECT + " ORDER BY seq", (thread_id, ns))
            return self._complete(cur, thread_id, ns, [row[0] for row in cur.fetchall()])

        return self._read(read)

    def _complete(
        self, cur: sqlite3.Cursor, thread_id: str, ns: str, headers: Iterable[bytes]
    ) -> list[CheckpointRecord]:
        decoded = [decode_header(h, self.codec) for h in headers]
        wanted = sorted({d for h in decoded for d in h.digests})
        raw: dict[str, bytes] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            cur.execute(
                "SELECT digest, value FROM compat_blobs WHERE thread_id = ? AND "
                f"checkpoint_ns = ? AND digest IN ({marks})",
                (thread_id, ns, *chunk),
            )
            raw.update(cur.fetchall())
        return complete_all(decoded, raw, self.codec, thread_id)

    def history(
        self,
        thread_id: str,
        ns: str = "",
        *,
        filter: Mapping[str, Any] | None = None,
        before: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointRecord]:
        """Records newest first; see `history_of`."""
        return history_of(self.records(thread_id, ns), filter=filter, before=before, limit=limit)

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint and stored value of the thread (all namespaces)."""
        if not self.is_setup:
            self._setup()

        def delete(cur: sqlite3.Cursor) -> None:
            for table in ("compat_checkpoints", "compat_blobs", "compat_writes"):
                cur.execute(f"DELETE FROM {table} WHERE thread_id = ?", (thread_id,))

        self._transaction(delete)

    # --- pending writes ------------------------------------------------------------------

    def save_writes(
        self,
        thread_id: str,
        ns: str,
        checkpoint_id: str,
        task_id: str,
        writes: Sequence[tuple[str, Any]],
        task_path: str = "",
    ) -> None:
        """Save one task's writes against a checkpoint (one transaction; see
        `BaseCheckpointSaver.save_writes`)."""
        encoded = encode_writes(writes, self.codec)
        if not encoded:
            return
        if not self.is_setup:
            self._setup()
        key = (thread_id, ns, checkpoint_id, task_id)
        rows = [(*key, index, channel, task_path, data) for index, channel, data in encoded]
        self._transaction(lambda cur: cur.executemany(_PUT_WRITE, rows))

    def load_writes(self, thread_id: str, ns: str, checkpoint_id: str) -> list[PendingWrite]:
        """The pending writes of a checkpoint, in the order they were first saved."""

        def read(cur: sqlite3.Cursor) -> list[tuple[str, str, bytes]]:
            cur.execute(_SELECT_WRITES, (thread_id, ns, checkpoint_id))
            return cur.fetchall()

        loads = self.codec.loads
        return [(task, channel, loads(data)) for task, channel, data in self._read(read)]


def history_of(
    records: Sequence[CheckpointRecord],
    *,
    filter: Mapping[str, Any] | None = None,
    before: Mapping[str, Any] | None = None,
    limit: int | None = None,
) -> Iterator[CheckpointRecord]:
    """``records`` (oldest first) newest first, keeping those written before the checkpoint
    ``before`` names (by position, not by comparing ids), whose metadata matches ``filter``,
    at most ``limit`` of them."""
    before_id = (before or {}).get("configurable", {}).get("checkpoint_id")
    end = len(records)
    if before_id is not None:
        end = next((i for i, r in enumerate(records) if r.checkpoint_id == before_id), end)
    count = 0
    for record in reversed(records[:end]):
        if filter and any(record.metadata.get(k) != v for k, v in filter.items()):
            continue
        if limit is not None and count >= limit:
            return
        count += 1
        yield record


def complete_all(
    decoded: Sequence[Any], raw: dict[str, bytes], codec: Codec, thread_id: str
) -> list[CheckpointRecord]:
    """Records from decoded headers and the raw blobs they refer to (each blob decoded once).
    Raises ``LookupError`` naming the thread when a blob is missing."""
    values: dict[str, Any] = {}

    def blob(digest: str) -> Any:
        if digest not in values:
            data = raw.get(digest)
            if data is None:
                raise LookupError(
                    f"thread {thread_id!r}: a stored checkpoint refers to channel value "
                    f"{digest} which is not in the database"
                )
            values[digest] = codec.loads(data)
        return values[digest]

    return [h.complete(blob) for h in decoded]


class SqliteSaver(SqliteRecords):
    """A checkpoint saver on a SQLite database (LangGraph's
    ``langgraph.checkpoint.sqlite.SqliteSaver``).

    ``conn``: a ``sqlite3`` connection (open it with ``check_same_thread=False`` when the graph
    may run nodes on other threads; the saver serialises its own use with a lock). ``serde``:
    ``None``, a ``superstep_core.persistence.Codec`` or ``TypeRegistry`` (see
    ``superstep_compat.checkpoint.serde``). Tables are created on first use (`setup`).
    Several processes may use one database file (WAL, busy timeout).
    """

    def __init__(self, conn: sqlite3.Connection, *, serde: object | None = None) -> None:
        super().__init__(conn, serde=serde)

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str) -> Iterator[SqliteSaver]:
        """A saver on a new connection to ``conn_string`` (a path or ``":memory:"``),
        closed when the ``with`` block ends."""
        with closing(sqlite3.connect(conn_string, check_same_thread=False)) as conn:
            yield cls(conn)

    def setup(self) -> None:
        """Create the tables if they do not exist (also done on first use)."""
        self._setup()
