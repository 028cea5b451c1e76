"""`PostgresCheckpointSaver`: LangGraph's checkpoint protocol in PostgreSQL (psycopg 3 with a
``psycopg_pool`` connection pool), with the statements of `superstep_core.checkpoint.sql`.

Tables live in their own schema (default ``superstep``), created on first use under an advisory
lock so several processes may start at once. Each operation is one transaction on a pooled
connection. Text keys use the ``"C"`` collation, so checkpoint ids sort by code point exactly
as in SQLite and in memory. A schema still holding the tables of the engine's earlier store
(``checkpoints`` with a ``header`` column, ``effects``, ``inputs``) is refused with
`PreviousFormatError`.

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.persistence.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from langgraph.checkpoint.serde.base import SerializerProtocol
from psycopg import sql
from psycopg_pool import ConnectionPool

from superstep_core.checkpoint.errors import PreviousFormatError
from superstep_core.checkpoint.sql import BLOBS, CHECKPOINTS, WRITES, SqlCheckpointSaver

__all__ = ["PostgresCheckpointSaver"]

_SCHEMA = f"""
CREATE SCHEMA IF NOT EXISTS {{s}};
CREATE TABLE IF NOT EXISTS {{s}}.{CHECKPOINTS} (
    thread_id TEXT COLLATE "C" NOT NULL, checkpoint_ns TEXT COLLATE "C" NOT NULL DEFAULT '',
    checkpoint_id TEXT COLLATE "C" NOT NULL, parent_checkpoint_id TEXT COLLATE "C",
    type TEXT NOT NULL, checkpoint BYTEA NOT NULL, metadata_type TEXT NOT NULL,
    metadata BYTEA NOT NULL, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));
CREATE TABLE IF NOT EXISTS {{s}}.{BLOBS} (
    thread_id TEXT COLLATE "C" NOT NULL, checkpoint_ns TEXT COLLATE "C" NOT NULL DEFAULT '',
    channel TEXT COLLATE "C" NOT NULL, version TEXT COLLATE "C" NOT NULL, type TEXT NOT NULL,
    blob BYTEA, PRIMARY KEY (thread_id, checkpoint_ns, channel, version));
CREATE TABLE IF NOT EXISTS {{s}}.{WRITES} (
    thread_id TEXT COLLATE "C" NOT NULL, checkpoint_ns TEXT COLLATE "C" NOT NULL DEFAULT '',
    checkpoint_id TEXT COLLATE "C" NOT NULL, task_id TEXT COLLATE "C" NOT NULL,
    idx INTEGER NOT NULL, channel TEXT NOT NULL, type TEXT NOT NULL, blob BYTEA,
    task_path TEXT COLLATE "C" NOT NULL DEFAULT '',
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx));
"""

_PREVIOUS = (
    "SELECT 1 FROM information_schema.columns WHERE table_schema=%s "
    "AND table_name='checkpoints' AND column_name='header'"
)


class PostgresCheckpointSaver(SqlCheckpointSaver):
    """A `BaseCheckpointSaver` in PostgreSQL.

    ``conninfo``: a libpq URL or DSN (e.g. ``postgresql://postgres@127.0.0.1:5432/test``).
    ``schema``: the schema holding the tables (created if missing). ``pool``: an open
    ``ConnectionPool`` to use instead of creating one (it is then not closed by `close`);
    otherwise a pool of ``min_size``..``max_size`` connections is opened. ``serde``: the
    serializer (default `JsonPlusSerializer`). Raises `PreviousFormatError` when the schema
    holds the engine's earlier tables.
    """

    _placeholder = "%s"

    def __init__(
        self,
        conninfo: str = "",
        *,
        schema: str = "superstep",
        pool: ConnectionPool | None = None,
        min_size: int = 1,
        max_size: int = 4,
        serde: SerializerProtocol | None = None,
    ) -> None:
        super().__init__(serde=serde)
        self.schema = schema
        self._owns_pool = pool is None
        self._pool = pool or ConnectionPool(
            conninfo, min_size=min_size, max_size=max_size, open=True
        )
        ident = sql.Identifier(schema)
        self._prefix = sql.SQL("{}.").format(ident).as_string()
        try:
            with self._pool.connection() as conn:
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"superstep:{schema}",))
                if conn.execute(_PREVIOUS, (schema,)).fetchone():
                    raise PreviousFormatError(f"PostgreSQL schema {schema!r}")
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(sql.SQL(statement).format(s=ident))
        except BaseException:
            self.close()
            raise

    def q(self, statement: str) -> str:
        found = self._sql.get(statement)
        if found is None:
            found = statement.replace("?", "%s")
            for table in (CHECKPOINTS, BLOBS, WRITES):
                found = found.replace(f" {table}", f" {self._prefix}{table}")
            self._sql[statement] = found
        return found

    @contextmanager
    def _write(self) -> Iterator[Any]:
        with self._pool.connection() as conn, conn.cursor() as cur:
            yield cur  # the pool's connection commits on leaving, rolls back on an error

    _read = _write

    def _blob_rows(
        self, cur: Any, thread_id: str, ns: str, versions: Mapping[str, str]
    ) -> builtins.list[tuple[str, str, bytes | None]]:
        channels = builtins.list(versions)
        cur.execute(
            self.q(
                "SELECT b.channel, b.type, b.blob FROM unnest(?::text[], ?::text[]) AS v(c, n) "
                f"JOIN {BLOBS} AS b ON b.thread_id=? AND b.checkpoint_ns=? "
                "AND b.channel=v.c AND b.version=v.n"
            ),
            (channels, [versions[c] for c in channels], thread_id, ns),
        )
        rows: builtins.list[tuple[str, str, bytes | None]] = cur.fetchall()
        return rows

    def close(self) -> None:
        """Close the pool (unless it was given); the saver must not be used afterwards."""
        if self._owns_pool:
            self._pool.close()

    def __enter__(self) -> PostgresCheckpointSaver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect_with_table(
    conninfo: str, schema: str, name: str, columns: str, *, connect_timeout: float
) -> tuple[Any, str]:
    """A connection of its own (autocommit) and the quoted name of table ``name`` in
    ``schema``, both created (``columns``: the table's column list) when missing, under the
    schema's advisory lock so that processes starting together do not race on the DDL."""
    import psycopg

    conn = psycopg.connect(
        conninfo, autocommit=True, connect_timeout=max(1, round(connect_timeout))
    )
    table = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(name))
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"superstep:{schema}",))
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        conn.execute(sql.SQL("CREATE TABLE IF NOT EXISTS {} (" + columns + ")").format(table))
    return conn, table.as_string(conn)
