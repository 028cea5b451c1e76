"""Thread leases in SQL databases: `SqliteLeaseStore` (a row taken in a ``BEGIN IMMEDIATE``
write transaction) and `PostgresLeaseStore` (a row taken by one conditional upsert). Both use
the table ``superstep_leases`` (in the store's schema on PostgreSQL) and parameterised SQL only.
See `superstep_core.host.lease` for the semantics.

Must never import: the runtime, the llm layer, compat.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

from superstep_core.host.lease import Lease, LeaseBackend

__all__ = ["PostgresLeaseStore", "SqliteLeaseStore"]

_COLUMNS = "key, owner, expires_at, fence"

# One statement: take the key when it is free, expired, already ours, or the (gone) owner we
# replace; a different owner bumps the fencing number.
_CLAIM = """
INSERT INTO {t} (key, owner, expires_at, fence) VALUES ({p}, {p}, {p}, 1)
ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
    fence = CASE WHEN {t}.owner = excluded.owner THEN {t}.fence ELSE {t}.fence + 1 END
WHERE {t}.expires_at <= {p} OR {t}.owner = excluded.owner OR {t}.owner = {p}
RETURNING key, owner, expires_at, fence
"""
_EXTEND = (
    "UPDATE {t} SET expires_at = {p} WHERE key = {p} AND owner = {p} AND fence = {p} "
    "RETURNING key, owner, expires_at, fence"
)
_DROP = "DELETE FROM {t} WHERE key = {p} AND owner = {p}"
_HOLDER = "SELECT key, owner, expires_at, fence FROM {t} WHERE key = {p}"


def _lease(row: Any) -> Lease | None:
    return None if row is None else Lease(str(row[0]), str(row[1]), float(row[2]), int(row[3]))


class SqliteLeaseStore(LeaseBackend):
    """Leases in the SQLite file ``path`` (the thread's checkpoint file), table created if
    missing. ``clock``: seconds since the epoch (default ``time.time``)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Callable[[], float] | None = None,
        busy_timeout: float = 30.0,
    ) -> None:
        self.clock = clock or time.time
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(
            os.fspath(path), timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
        self._sql = {
            name: text.format(t="superstep_leases", p="?")
            for name, text in (("claim", _CLAIM), ("extend", _EXTEND), ("drop", _DROP))
        }
        self._sql["holder"] = _HOLDER.format(t="superstep_leases", p="?")
        self._write(
            "CREATE TABLE IF NOT EXISTS superstep_leases (key TEXT PRIMARY KEY, "
            "owner TEXT NOT NULL, expires_at REAL NOT NULL, fence INTEGER NOT NULL)",
            (),
        )

    def _write(self, statement: str, params: tuple[Any, ...]) -> Any:
        with self._lock:
            cur = self._conn.cursor()
            cur.execute("BEGIN IMMEDIATE")  # the write lock first: no upgrade deadlock
            try:
                cur.execute(statement, params)
                row = cur.fetchone() if cur.description else None
            except BaseException:
                if self._conn.in_transaction:  # SQLite already rolled back on a full disk
                    cur.execute("ROLLBACK")
                raise
            cur.execute("COMMIT")
            return row

    def _claim(self, key: str, owner: str, ttl: float, replacing: str) -> Lease | None:
        now = self.clock()
        return _lease(self._write(self._sql["claim"], (key, owner, now + ttl, now, replacing)))

    def _extend(self, lease: Lease, ttl: float) -> Lease | None:
        params = (self.clock() + ttl, lease.key, lease.owner, lease.fence)
        return _lease(self._write(self._sql["extend"], params))

    def _drop(self, lease: Lease) -> None:
        self._write(self._sql["drop"], (lease.key, lease.owner))

    def holder(self, key: str) -> Lease | None:
        with self._lock:
            return _lease(self._conn.execute(self._sql["holder"], (key,)).fetchone())

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class PostgresLeaseStore(LeaseBackend):
    """Leases in PostgreSQL, table ``superstep_leases`` in ``schema`` (created if missing), on
    one connection of their own (``conninfo``: a libpq URL; ``connect_timeout`` seconds).
    ``clock``: seconds since the epoch; by default the server's clock
    (``clock_timestamp()``), so hosts with skewed clocks agree on expiry."""

    def __init__(
        self,
        conninfo: str,
        *,
        schema: str = "superstep",
        clock: Callable[[], float] | None = None,
        connect_timeout: float = 10.0,
    ) -> None:
        from superstep_core.checkpoint.postgres import connect_with_table

        self._server_clock = clock is None
        self.clock = clock or self._server_now
        self._lock = threading.Lock()
        self._conn, t = connect_with_table(
            conninfo,
            schema,
            "superstep_leases",
            'key TEXT COLLATE "C" PRIMARY KEY, owner TEXT NOT NULL, '
            "expires_at DOUBLE PRECISION NOT NULL, fence BIGINT NOT NULL",
            connect_timeout=connect_timeout,
        )
        self._sql = {
            "claim": _CLAIM.format(t=t, p="%s"),
            "extend": _EXTEND.format(t=t, p="%s"),
            "drop": _DROP.format(t=t, p="%s"),
            "holder": _HOLDER.format(t=t, p="%s"),
        }

    def _server_now(self) -> float:
        row = self._conn.execute("SELECT EXTRACT(EPOCH FROM clock_timestamp())").fetchone()
        assert row is not None
        return float(row[0])

    def _one(self, statement: str, params: tuple[Any, ...]) -> Any:
        with self._lock:
            return self._conn.execute(statement, params).fetchone()

    def _claim(self, key: str, owner: str, ttl: float, replacing: str) -> Lease | None:
        with self._lock:
            now = self.clock()
            row = self._conn.execute(
                self._sql["claim"], (key, owner, now + ttl, now, replacing)
            ).fetchone()
        return _lease(row)

    def _extend(self, lease: Lease, ttl: float) -> Lease | None:
        with self._lock:
            until = self.clock() + ttl
            row = self._conn.execute(
                self._sql["extend"], (until, lease.key, lease.owner, lease.fence)
            ).fetchone()
        return _lease(row)

    def _drop(self, lease: Lease) -> None:
        with self._lock:
            self._conn.execute(self._sql["drop"], (lease.key, lease.owner))

    def holder(self, key: str) -> Lease | None:
        return _lease(self._one(self._sql["holder"], (key,)))

    def close(self) -> None:
        with self._lock:
            self._conn.close()
