"""The database ``--db`` names, as the ``superstep`` commands use it: the checkpoint saver, the
thread leases and the run records, opened once, read-only for commands that only look.
`open_saver` is the one place a ``--db`` value becomes a LangGraph `BaseCheckpointSaver`
(`SqliteCheckpointSaver` for a file, `PostgresCheckpointSaver` for a URL), for engine threads
and LangGraph graphs alike.

``--db`` is a SQLite file path (default ``.superstep/superstep.db``) or a ``postgresql://`` /
``postgres://`` URL; any other ``scheme://`` is refused (never taken for a file name). A wrong
PostgreSQL URL fails at once, naming the cause, rather than after a connection pool's retries;
a file that is not a SQLite database is named as such. Passwords are redacted wherever the URL
is printed.

Must never import compat.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from superstep_core.checkpoint import (
    BaseCheckpointSaver,
    PreviousFormatError,
    SqliteCheckpointSaver,
)
from superstep_core.cli_support import DEFAULT_DB, UsageError, first_line, redact
from superstep_core.host.lease import HeldLease, LeaseHeldError, LeaseStore, process_owner
from superstep_core.host.lease_sql import SqliteLeaseStore
from superstep_core.host.run_records import RunRecords, SqliteRunRecords

__all__ = ["CliDatabase", "check_db", "database_error", "open_saver"]

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_POSTGRES = ("postgresql", "postgres")


def check_db(db: str) -> str:
    """``db`` if it is a usable ``--db`` value (an argparse type); `UsageError` otherwise."""
    scheme = _SCHEME.match(db)
    if not db.strip():
        raise UsageError("--db is empty: give a SQLite file path or a postgresql:// URL")
    if scheme is None or scheme[1].lower() in _POSTGRES:
        return db
    name = scheme[1]
    hint = ""
    if name.lower().startswith("postgres"):
        hint = " (write it as postgresql://...; the driver is always psycopg 3)"
    elif name.lower() == "sqlite":
        hint = " (give the SQLite file's path itself)"
    raise UsageError(
        f"--db {redact(db)!r}: unsupported URL scheme {name!r}{hint}; use a SQLite file path "
        f"or a postgresql:// URL"
    )


class CliDatabase:
    """The stores of one ``--db`` value. Use as a context manager; `UsageError` (one line)
    for a database that cannot be opened."""

    def __init__(self, db: str | None, *, read_only: bool = False) -> None:
        self.where = check_db(db) if db is not None else DEFAULT_DB
        self.given = db
        self.shown = redact(self.where)
        self.read_only = read_only
        self.postgres = _SCHEME.match(self.where) is not None
        self._saver: BaseCheckpointSaver[Any] | None = None
        self._leases: LeaseStore | None = None
        self._runs: RunRecords | None = None
        self.owner = process_owner()
        if self.postgres:
            self._probe()
        elif read_only:
            path = Path(self.where)
            if path.exists() and not path.is_file():
                raise UsageError(f"--db {self.where!r} is a directory, not a SQLite file")
        else:
            self._prepare_file()

    @property
    def exists(self) -> bool:
        """Whether there is anything to read (a SQLite file that is missing has no threads)."""
        return self.postgres or Path(self.where).is_file()

    def _probe(self) -> None:
        import psycopg

        try:
            psycopg.connect(self.where, connect_timeout=5).close()
        except psycopg.Error as e:
            raise UsageError(
                f"cannot connect to --db {self.shown!r}: {redact(first_line(e))}"
            ) from None

    def _prepare_file(self) -> None:
        path = Path(self.where)
        if path.is_dir():
            raise UsageError(f"--db {self.where!r} is a directory, not a SQLite file")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UsageError(
                f"cannot create the directory of --db {self.where!r}: {e.strerror}"
            ) from None

    # --- the stores --------------------------------------------------------------------------

    def saver(self) -> BaseCheckpointSaver[Any]:
        """The checkpoint saver (read-only when the command only looks)."""
        if self._saver is None:
            self._saver = self._opening(lambda: open_saver(self.where, read_only=self.read_only))
        return self._saver

    def leases(self) -> LeaseStore:
        if self.read_only:
            raise RuntimeError("a read-only command takes no lease")
        if self._leases is None:
            self._leases = self._opening(self._open_leases)
        return self._leases

    def _open_leases(self) -> LeaseStore:
        if self.postgres:
            from superstep_core.host.lease_sql import PostgresLeaseStore

            return PostgresLeaseStore(self.where)
        return SqliteLeaseStore(self.where)

    def runs(self) -> RunRecords:
        if self._runs is None:
            self._runs = self._opening(self._open_runs)
        return self._runs

    def _open_runs(self) -> RunRecords:
        if self.postgres:
            from superstep_core.host.run_records import PostgresRunRecords

            return PostgresRunRecords(self.where)
        return SqliteRunRecords(self.where, read_only=self.read_only)

    def _opening(self, open_: Any) -> Any:
        try:
            return open_()
        except Exception as e:
            error = database_error(e, self)
            if error is None:
                raise
            raise error from None

    @contextmanager
    def hold(self, thread: str) -> Iterator[HeldLease]:
        """The thread's lease for the rest of the command; `UsageError` naming the owner when
        another process holds it."""
        self.saver()  # first: a database this version cannot read is refused before any write
        try:
            held = HeldLease(self.leases(), thread, self.owner).__enter__()
        except LeaseHeldError as e:
            raise UsageError(str(e)) from None
        except Exception as e:
            error = database_error(e, self)
            if error is None:
                raise
            raise error from None
        try:
            yield held
        finally:
            held.__exit__(None, None, None)

    def close(self) -> None:
        if self._saver is not None:
            close = getattr(self._saver, "close", None)  # ours have close(); InMemorySaver not
            if close is not None:
                close()
        for store in (self._leases, self._runs):
            if store is not None:
                store.close()
        self._saver = None
        self._leases = self._runs = None

    def __enter__(self) -> CliDatabase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_saver(db: str, *, read_only: bool = False) -> BaseCheckpointSaver[Any]:
    """The checkpoint saver of ``--db`` value ``db`` (checked with `check_db`): a
    `PostgresCheckpointSaver` for a ``postgresql://`` URL (a small pool), otherwise a
    `SqliteCheckpointSaver` on the file (``read_only``: it must exist and is never written).
    The caller closes it. Raises `PreviousFormatError` for a database of the engine's earlier
    checkpoint format, ``sqlite3``/``psycopg`` errors for one that cannot be opened (see
    `database_error`)."""
    if _SCHEME.match(check_db(db)) is not None:
        from superstep_core.checkpoint.postgres import PostgresCheckpointSaver

        return PostgresCheckpointSaver(db, min_size=1, max_size=4)
    return SqliteCheckpointSaver(db, read_only=read_only)


def database_error(error: BaseException, db: CliDatabase | None = None) -> UsageError | None:
    """A one-line `UsageError` for a database failure (damaged file, full disk, read-only
    file, lost connection, the engine's earlier checkpoint format), or ``None`` when
    ``error`` is not one."""
    where = f"--db {db.shown!r}" if db is not None else "the database"
    if isinstance(error, PreviousFormatError):  # it names the file; a URL is named here
        return UsageError(f"{where}: {error}" if db is not None and db.postgres else str(error))
    text = redact(first_line(error))
    if isinstance(error, sqlite3.DatabaseError):
        lowered = text.lower()
        if "not a database" in lowered or "malformed" in lowered:
            return UsageError(f"{where} is not a SQLite database, or is damaged ({text})")
        if "full" in lowered or "disk i/o" in lowered:
            return UsageError(
                f"{where}: the disk is full ({text}); the thread keeps its last committed "
                f"superstep: free some space, then continue it with `superstep resume`"
            )
        if "readonly" in lowered or "read-only" in lowered:
            return UsageError(f"{where} is read-only ({text})")
        if "unable to open" in lowered:
            return UsageError(f"cannot open {where} ({text})")
        return UsageError(f"{where}: SQLite error: {text}")
    if isinstance(error, OSError) and error.strerror:
        return UsageError(f"{where}: {error.strerror} ({redact(str(error.filename or ''))})")
    try:
        import psycopg
        import psycopg_pool
    except ImportError:  # pragma: no cover - the postgres extra is absent
        return None
    if isinstance(error, psycopg.Error | psycopg_pool.PoolTimeout):
        return UsageError(f"{where}: PostgreSQL error: {text}")
    return None
