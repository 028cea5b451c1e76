"""Immutable versions of workflow documents behind one seam, `VersionStore`: in memory, in
SQLite (the embedded default, beside the checkpoints) and in PostgreSQL.

Saving a document whose content differs from its workflow's latest version writes a new
version: the next sequence number (1, 2, ...), the content hash (`content_hash`), the time and
the document. Saving the same content again writes nothing and returns the latest version. A
workflow is named by the document's ``name``. Versions are never changed or deleted, so a run
that recorded the version it started on can always continue on it.

SQL is parameterised; the table is ``superstep_workflow_versions``. Must never import compat.
"""

from __future__ import annotations

import sqlite3
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from superstep_core.document.errors import VersionNotFoundError
from superstep_core.document.model import Document, document_json, load_document

__all__ = [
    "MemoryVersionStore",
    "PostgresVersionStore",
    "SqliteVersionStore",
    "Version",
    "VersionStore",
]

_TABLE = "superstep_workflow_versions"


@dataclass(frozen=True)
class Version:
    """One saved version: workflow ``name``, sequence number ``seq`` (from 1), the document's
    ``content_hash``, ``created_at`` (ISO 8601, UTC) and the ``document``."""

    name: str
    seq: int
    content_hash: str
    created_at: str
    document: Document


class VersionStore(Protocol):
    """Where document versions are kept (see the module docstring)."""

    def save(self, doc: Document) -> tuple[Version, bool]:
        """Save ``doc``: (its version, whether a new one was written)."""
        ...

    def get(self, name: str, seq: int | None = None) -> Version:
        """Version ``seq`` of workflow ``name`` (the latest when ``None``). Raises
        `VersionNotFoundError`."""
        ...

    def versions(self, name: str) -> list[Version]:
        """Every version of ``name``, oldest first (empty when there is none)."""
        ...

    def names(self) -> list[str]:
        """The names of the saved workflows, sorted."""
        ...

    def close(self) -> None: ...


def _missing(name: str, seq: int | None, known: list[int]) -> VersionNotFoundError:
    if not known:
        return VersionNotFoundError(
            f"no saved workflow {name!r}: save it with `superstep workflow save FILE.json`"
        )
    return VersionNotFoundError(
        f"workflow {name!r} has no version {seq} (versions 1 to {max(known)})"
    )


class MemoryVersionStore:
    """A `VersionStore` in this process's memory (tests, one-off runs)."""

    def __init__(self, now: Callable[[], datetime] | None = None) -> None:
        self._now = now or (lambda: datetime.now(UTC))
        self._versions: dict[str, list[Version]] = {}
        self._lock = threading.Lock()

    def save(self, doc: Document) -> tuple[Version, bool]:
        digest = doc.content_hash
        with self._lock:
            existing = self._versions.setdefault(doc.name, [])
            if existing and existing[-1].content_hash == digest:
                return existing[-1], False
            version = Version(doc.name, len(existing) + 1, digest, self._now().isoformat(), doc)
            existing.append(version)
            return version, True

    def get(self, name: str, seq: int | None = None) -> Version:
        existing = self._versions.get(name, [])
        if not existing or (seq is not None and not 1 <= seq <= len(existing)):
            raise _missing(name, seq, [v.seq for v in existing])
        return existing[-1] if seq is None else existing[seq - 1]

    def versions(self, name: str) -> list[Version]:
        return list(self._versions.get(name, []))

    def names(self) -> list[str]:
        return sorted(n for n, vs in self._versions.items() if vs)

    def close(self) -> None:
        pass


def _version(row: tuple[Any, ...]) -> Version:
    name, seq, digest, created, text = row
    return Version(str(name), int(seq), str(digest), str(created), load_document(str(text)))


class _SqlVersionStore(ABC):
    """What the SQLite and PostgreSQL stores share: the queries, written once with the
    driver's placeholder (``?`` or ``%s``). A subclass opens ``_db`` and says how a save holds
    its workflow exclusively (`_exclusive`)."""

    _param: str
    _db: Any
    _lock: threading.Lock
    _now: Callable[[], datetime]

    _COLUMNS = "name, seq, content_hash, created_at, document"

    def _create_table(self, *, temporary: bool = False) -> None:
        kind = "TEMP TABLE" if temporary else "TABLE IF NOT EXISTS"
        self._db.execute(
            f"CREATE {kind} {_TABLE} (name TEXT NOT NULL, seq INTEGER NOT NULL, "
            "content_hash TEXT NOT NULL, created_at TEXT NOT NULL, document TEXT NOT NULL, "
            "PRIMARY KEY (name, seq))"
        )

    @abstractmethod
    def _exclusive(self, name: str) -> AbstractContextManager[None]:
        """A transaction no other save of workflow ``name`` runs beside (the read of the
        latest version and the insert of the next must not interleave)."""

    def _select(self, where: str) -> str:
        return f"SELECT {self._COLUMNS} FROM {_TABLE} WHERE {where.format(p=self._param)}"

    def save(self, doc: Document) -> tuple[Version, bool]:
        digest = doc.content_hash
        p = self._param
        with self._lock, self._exclusive(doc.name):
            row = self._db.execute(
                self._select("name = {p} ORDER BY seq DESC LIMIT 1"), (doc.name,)
            ).fetchone()
            if row is not None and row[2] == digest:
                return _version(row), False
            seq = 1 if row is None else int(row[1]) + 1
            created = self._now().isoformat()
            self._db.execute(
                f"INSERT INTO {_TABLE} ({self._COLUMNS}) VALUES ({p}, {p}, {p}, {p}, {p})",
                (doc.name, seq, digest, created, document_json(doc, indent=None)),
            )
        return Version(doc.name, seq, digest, created, doc), True

    def get(self, name: str, seq: int | None = None) -> Version:
        with self._lock:
            if seq is None:
                cur = self._db.execute(
                    self._select("name = {p} ORDER BY seq DESC LIMIT 1"), (name,)
                )
            else:
                cur = self._db.execute(self._select("name = {p} AND seq = {p}"), (name, seq))
            row = cur.fetchone()
        if row is None:
            raise _missing(name, seq, [v.seq for v in self.versions(name)])
        return _version(row)

    def versions(self, name: str) -> list[Version]:
        with self._lock:
            rows = self._db.execute(self._select("name = {p} ORDER BY seq"), (name,)).fetchall()
        return [_version(r) for r in rows]

    def names(self) -> list[str]:
        with self._lock:
            rows = self._db.execute(f"SELECT DISTINCT name FROM {_TABLE} ORDER BY name").fetchall()
        return [str(r[0]) for r in rows]

    def close(self) -> None:
        self._db.close()


class SqliteVersionStore(_SqlVersionStore):
    """A `VersionStore` in an SQLite file (may be the checkpoint database). ``read_only``
    opens an existing file without writing to it (saving then raises)."""

    _param = "?"

    def __init__(
        self,
        path: str | Path,
        now: Callable[[], datetime] | None = None,
        *,
        read_only: bool = False,
    ) -> None:
        self.path = Path(path)
        self._now = now or (lambda: datetime.now(UTC))
        where = f"file:{self.path}?mode=ro" if read_only else str(self.path)
        self._db = sqlite3.connect(
            where, uri=read_only, check_same_thread=False, isolation_level=None
        )
        self._db.execute("PRAGMA busy_timeout = 5000")
        self._lock = threading.Lock()
        if read_only:
            if not self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (_TABLE,)
            ).fetchone():  # nothing saved yet: an empty table of our own, not in the file
                self._create_table(temporary=True)
            return
        self._create_table()

    @contextmanager
    def _exclusive(self, name: str) -> Iterator[None]:
        # BEGIN IMMEDIATE takes SQLite's write lock at once: no other writer reads the same
        # latest version meanwhile.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")


class PostgresVersionStore(_SqlVersionStore):
    """A `VersionStore` in PostgreSQL (``url``: ``postgresql://user@host:port/db``). Saves
    of one workflow are serialised with a transaction-scoped advisory lock."""

    _param = "%s"

    def __init__(self, url: str, now: Callable[[], datetime] | None = None) -> None:
        import psycopg

        self._now = now or (lambda: datetime.now(UTC))
        self._db = psycopg.connect(url, autocommit=True)
        self._lock = threading.Lock()
        self._create_table()

    @contextmanager
    def _exclusive(self, name: str) -> Iterator[None]:
        with self._db.transaction():
            self._db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"{_TABLE}:{name}",))
            yield
