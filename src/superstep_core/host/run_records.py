"""Run records: what a thread was started with (its target, that target's content digest and
its input), written durably before the thread's first superstep, as DBOS records a workflow's
inputs before running it. A process killed before its first checkpoint leaves a record, so the
run can be started again from it; and ``resume`` checks the recorded target against the file on
disk before loading any code (a database never chooses code by itself).

`RunRecords` is the protocol; the memory, SQLite (table ``superstep_runs``) and PostgreSQL
(``<schema>.superstep_runs``) implementations pass one contract suite. Parameterised SQL only.

Must never import: the runtime, the llm layer, compat.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "MemoryRunRecords",
    "PostgresRunRecords",
    "RunRecord",
    "RunRecords",
    "SqliteRunRecords",
]


@dataclass(frozen=True, slots=True)
class RunRecord:
    """Thread ``thread_id`` was started on ``target`` (``/abs/file.py:attr`` or
    ``module:attr``) whose source file ``source`` (absolute path) had SHA-256 ``digest`` (hex),
    with ``input`` (JSON text; ``None``: the target's default input) at ``created_at`` (seconds
    since the epoch)."""

    thread_id: str
    target: str
    source: str
    digest: str
    input: str | None
    created_at: float


class RunRecords(Protocol):
    def record(self, run: RunRecord) -> RunRecord:
        """Store ``run`` unless the thread has a record; returns the stored one."""
        ...

    def get(self, thread_id: str) -> RunRecord | None: ...

    def close(self) -> None: ...


class MemoryRunRecords:
    """Run records in a dict (one process: tests)."""

    def __init__(self) -> None:
        self._rows: dict[str, RunRecord] = {}
        self._lock = threading.Lock()

    def record(self, run: RunRecord) -> RunRecord:
        with self._lock:
            return self._rows.setdefault(run.thread_id, run)

    def get(self, thread_id: str) -> RunRecord | None:
        with self._lock:
            return self._rows.get(thread_id)

    def close(self) -> None:
        pass


_INSERT = (
    "INSERT INTO {t} (thread_id, target, source, digest, input, created_at) "
    "VALUES ({p}, {p}, {p}, {p}, {p}, {p}) ON CONFLICT (thread_id) DO NOTHING"
)
_SELECT = (
    "SELECT thread_id, target, source, digest, input, created_at FROM {t} WHERE thread_id = {p}"
)


def _run(row: Any) -> RunRecord | None:
    if row is None:
        return None
    return RunRecord(str(row[0]), str(row[1]), str(row[2]), str(row[3]), row[4], float(row[5]))


class _SqlRunRecords:
    """What the SQLite and PostgreSQL records share: one connection behind a lock, and the
    statements, written once with the driver's placeholder."""

    _conn: Any
    _lock: threading.Lock
    _table: str
    _param: str

    def record(self, run: RunRecord) -> RunRecord:
        with self._lock:
            self._conn.execute(
                _INSERT.format(t=self._table, p=self._param),
                (run.thread_id, run.target, run.source, run.digest, run.input, run.created_at),
            )
        stored = self.get(run.thread_id)
        assert stored is not None
        return stored

    def get(self, thread_id: str) -> RunRecord | None:
        with self._lock:
            return _run(self._select(thread_id))

    def _select(self, thread_id: str) -> Any:
        statement = _SELECT.format(t=self._table, p=self._param)
        return self._conn.execute(statement, (thread_id,)).fetchone()

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class SqliteRunRecords(_SqlRunRecords):
    """Run records in the SQLite file ``path`` (table created if missing). ``read_only``:
    open the file read-only (it must exist), for commands that only look."""

    _table = "superstep_runs"
    _param = "?"

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        self._lock = threading.Lock()
        where = os.fspath(path)
        if read_only:
            from superstep_core.checkpoint.sqlite import connect_read_only

            self._conn = connect_read_only(where)
        else:
            self._conn = sqlite3.connect(
                where, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS superstep_runs (thread_id TEXT PRIMARY KEY, "
                "target TEXT NOT NULL, source TEXT NOT NULL, digest TEXT NOT NULL, input TEXT, "
                "created_at REAL NOT NULL)"
            )
        self._read_only = read_only

    def _select(self, thread_id: str) -> Any:
        try:
            return super()._select(thread_id)
        except sqlite3.OperationalError as e:
            if self._read_only and "no such table" in str(e):
                return None  # a file no run was ever recorded in
            raise


class PostgresRunRecords(_SqlRunRecords):
    """Run records in PostgreSQL, table ``superstep_runs`` in ``schema`` (created if missing),
    on one connection of their own."""

    _param = "%s"

    def __init__(
        self, conninfo: str, *, schema: str = "superstep", connect_timeout: float = 10.0
    ) -> None:
        from superstep_core.checkpoint.postgres import connect_with_table

        self._lock = threading.Lock()
        self._conn, self._table = connect_with_table(
            conninfo,
            schema,
            "superstep_runs",
            'thread_id TEXT COLLATE "C" PRIMARY KEY, target TEXT NOT NULL, source TEXT NOT NULL, '
            "digest TEXT NOT NULL, input TEXT, created_at DOUBLE PRECISION NOT NULL",
            connect_timeout=connect_timeout,
        )
