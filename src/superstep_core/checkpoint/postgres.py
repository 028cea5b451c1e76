"""The PostgreSQL `CheckpointStore`: psycopg 3 with a ``psycopg_pool`` connection pool.

Tables live in their own schema (default ``superstep``), created on first use under an advisory
lock so several processes may start at once. Each operation is one transaction on a pooled
connection; upserts (``ON CONFLICT``) make every write idempotent. Text keys use the ``"C"``
collation so ``list`` orders namespaces and ``get`` orders pending writes exactly as the other
stores do (by code point).

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.persistence.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from psycopg import sql
from psycopg_pool import ConnectionPool

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

__all__ = ["PostgresCheckpointStore"]

_SCHEMA = """
CREATE SCHEMA IF NOT EXISTS {s};
CREATE TABLE IF NOT EXISTS {s}.checkpoints (
    thread_id TEXT COLLATE "C" NOT NULL, namespace TEXT COLLATE "C" NOT NULL,
    step BIGINT NOT NULL, parent_id TEXT, header BYTEA NOT NULL, versions JSONB NOT NULL,
    metadata JSONB NOT NULL, PRIMARY KEY (thread_id, namespace, step));
CREATE TABLE IF NOT EXISTS {s}.blobs (
    thread_id TEXT COLLATE "C" NOT NULL, namespace TEXT COLLATE "C" NOT NULL,
    channel TEXT COLLATE "C" NOT NULL, version BIGINT NOT NULL, value BYTEA NOT NULL,
    PRIMARY KEY (thread_id, namespace, channel, version));
CREATE TABLE IF NOT EXISTS {s}.writes (
    thread_id TEXT COLLATE "C" NOT NULL, namespace TEXT COLLATE "C" NOT NULL,
    step BIGINT NOT NULL, task_id TEXT COLLATE "C" NOT NULL, idx INTEGER NOT NULL,
    channel TEXT NOT NULL, value BYTEA NOT NULL,
    PRIMARY KEY (thread_id, namespace, step, task_id, idx));
CREATE TABLE IF NOT EXISTS {s}.effects (
    thread_id TEXT COLLATE "C" NOT NULL, key TEXT COLLATE "C" NOT NULL, result BYTEA NOT NULL,
    PRIMARY KEY (thread_id, key));
CREATE TABLE IF NOT EXISTS {s}.inputs (
    thread_id TEXT COLLATE "C" NOT NULL, seq BIGINT NOT NULL, data BYTEA NOT NULL,
    PRIMARY KEY (thread_id, seq));
"""

_COLUMNS = "thread_id, namespace, step, parent_id, header, versions, metadata"


class PostgresCheckpointStore:
    """A `CheckpointStore` in PostgreSQL.

    ``conninfo``: a libpq URL or DSN (e.g. ``postgresql://postgres@127.0.0.1:5432/test``).
    ``schema``: the schema holding the tables (created if missing). ``pool``: an open
    ``ConnectionPool`` to use instead of creating one (it is then not closed by `close`);
    otherwise a pool of ``min_size``..``max_size`` connections is opened.
    """

    def __init__(
        self,
        conninfo: str = "",
        *,
        schema: str = "superstep",
        pool: ConnectionPool | None = None,
        min_size: int = 1,
        max_size: int = 4,
    ) -> None:
        self.schema = schema
        self._owns_pool = pool is None
        self._pool = pool or ConnectionPool(
            conninfo, min_size=min_size, max_size=max_size, open=True
        )
        ident = sql.Identifier(schema)
        self._t = {
            name: sql.SQL("{}.{}").format(ident, sql.Identifier(name)).as_string()
            for name in ("checkpoints", "blobs", "writes", "effects", "inputs")
        }
        with self._pool.connection() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"superstep:{schema}",))
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(sql.SQL(statement).format(s=ident))

    def put(self, checkpoint: Checkpoint, new_blobs: Mapping[str, bytes]) -> None:
        check_put(checkpoint, new_blobs)
        metadata = encode_metadata(checkpoint).decode()
        thread, ns = checkpoint.thread_id, checkpoint.namespace
        t = self._t
        with self._pool.connection() as conn, conn.cursor() as cur:
            if new_blobs:
                cur.executemany(
                    f"INSERT INTO {t['blobs']} VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    [
                        (thread, ns, channel, checkpoint.versions[channel], value)
                        for channel, value in new_blobs.items()
                    ],
                )
            cur.execute(
                f"INSERT INTO {t['checkpoints']} ({_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s::jsonb) "
                "ON CONFLICT (thread_id, namespace, step) DO UPDATE SET "
                "parent_id=excluded.parent_id, header=excluded.header, "
                "versions=excluded.versions, metadata=excluded.metadata",
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
        t = self._t
        select = f"SELECT {_COLUMNS} FROM {t['checkpoints']} WHERE thread_id=%s AND namespace=%s"
        with self._pool.connection() as conn, conn.cursor() as cur:
            if checkpoint_id is None:
                cur.execute(f"{select} ORDER BY step DESC LIMIT 1", (thread_id, namespace))
            else:
                step = step_in(namespace, checkpoint_id)
                cur.execute(f"{select} AND step=%s", (thread_id, namespace, step))
            row = cur.fetchone()
            if row is None:
                return None
            checkpoint = _checkpoint(row)
            channels = list(checkpoint.versions)
            cur.execute(
                f"SELECT b.channel, b.value FROM unnest(%s::text[], %s::bigint[]) AS v(c, n) "
                f"JOIN {t['blobs']} AS b ON b.thread_id=%s AND b.namespace=%s "
                "AND b.channel=v.c AND b.version=v.n",
                (channels, [checkpoint.versions[c] for c in channels], thread_id, namespace),
            )
            values = {channel: bytes(value) for channel, value in cur.fetchall()}
            cur.execute(
                f"SELECT task_id, idx, channel, value FROM {t['writes']} "
                "WHERE thread_id=%s AND namespace=%s AND step=%s ORDER BY task_id, idx",
                (thread_id, namespace, checkpoint.step),
            )
            writes = tuple(PendingWrite(w[0], w[1], w[2], bytes(w[3])) for w in cur.fetchall())
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
        query = f"SELECT {_COLUMNS} FROM {self._t['checkpoints']} WHERE thread_id=%s"
        params: builtins.list[Any] = [thread_id]
        if namespace is not None:
            query += " AND namespace=%s"
            params.append(namespace)
        if before is not None:
            query += " AND step<%s"
            params.append(parse_checkpoint_id(before)[1])
        query += " ORDER BY step DESC, namespace"
        if limit is not None:
            query += " LIMIT %s"
            params.append(limit)
        with self._pool.connection() as conn:
            rows = conn.execute(query, params).fetchall()
        return [_checkpoint(row) for row in rows]

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
        t = self._t
        with self._pool.connection() as conn, conn.cursor() as cur:
            cur.execute(
                f"DELETE FROM {t['writes']} "
                "WHERE thread_id=%s AND namespace=%s AND step=%s AND task_id=%s",
                (thread_id, namespace, step, task_id),
            )
            if writes:
                cur.executemany(
                    f"INSERT INTO {t['writes']} VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    [
                        (thread_id, namespace, step, task_id, index, channel, value)
                        for index, (channel, value) in enumerate(writes)
                    ],
                )
            if effects:
                cur.executemany(
                    f"INSERT INTO {t['effects']} VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                    [(thread_id, key, result) for key, result in effects.items()],
                )

    def record_effect(self, thread_id: str, key: str, result: bytes) -> bytes:
        t = self._t
        with self._pool.connection() as conn:
            conn.execute(
                f"INSERT INTO {t['effects']} VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                (thread_id, key, result),
            )
            row = conn.execute(
                f"SELECT result FROM {t['effects']} WHERE thread_id=%s AND key=%s",
                (thread_id, key),
            ).fetchone()
        assert row is not None
        return bytes(row[0])

    def get_effect(self, thread_id: str, key: str) -> bytes | None:
        with self._pool.connection() as conn:
            row = conn.execute(
                f"SELECT result FROM {self._t['effects']} WHERE thread_id=%s AND key=%s",
                (thread_id, key),
            ).fetchone()
        return None if row is None else bytes(row[0])

    def append_input(self, thread_id: str, seq: int, data: bytes) -> None:
        t = self._t
        with self._pool.connection() as conn:
            inserted = conn.execute(
                f"INSERT INTO {t['inputs']} VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                (thread_id, seq, data),
            ).rowcount
            if inserted == 0:
                row = conn.execute(
                    f"SELECT data FROM {t['inputs']} WHERE thread_id=%s AND seq=%s",
                    (thread_id, seq),
                ).fetchone()
                if row is None or bytes(row[0]) != data:
                    raise InputLogConflictError(thread_id, seq)

    def read_inputs(self, thread_id: str) -> builtins.list[tuple[int, bytes]]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT seq, data FROM {self._t['inputs']} WHERE thread_id=%s ORDER BY seq",
                (thread_id,),
            ).fetchall()
        return [(seq, bytes(data)) for seq, data in rows]

    def delete_thread(self, thread_id: str) -> None:
        with self._pool.connection() as conn:
            for table in self._t.values():
                conn.execute(f"DELETE FROM {table} WHERE thread_id=%s", (thread_id,))

    def close(self) -> None:
        if self._owns_pool:
            self._pool.close()

    def __enter__(self) -> PostgresCheckpointStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _checkpoint(row: tuple[Any, ...]) -> Checkpoint:
    thread_id, namespace, step, parent_id, header, versions, metadata = row
    return Checkpoint(
        thread_id=thread_id,
        namespace=namespace,
        step=step,
        parent_id=parent_id,
        header=bytes(header),
        versions=versions,
        metadata=metadata,
    )
