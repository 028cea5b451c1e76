"""`SqlCheckpointSaver`: LangGraph's checkpoint protocol on SQL tables, the shared half of
`SqliteCheckpointSaver` and `PostgresCheckpointSaver` (each supplies connections, transactions
and its DDL; the statements are written once, with ``?`` placeholders).

Three tables (names prefixed ``superstep_``): ``checkpoints`` (one row per checkpoint: the
checkpoint without its channel values and the metadata, each as the serde's ``(type, bytes)``),
``blobs`` (one row per ``(thread, namespace, channel, version)``: a channel value is written
only when ``put`` names it in ``new_versions``, so a step costs O(changed channels)) and
``writes`` (pending writes, ``(thread, namespace, checkpoint, task, idx)``). Values go through
the saver's ``serde`` (`JsonPlusSerializer` by default: ormsgpack, never pickle); ``bytes``
values are stored as given.

Statements: a ``put`` writes the step's channel values (one multi-row statement), then the
checkpoint row (one statement); a ``put_writes`` is one multi-row statement. Each statement is
atomic and durable when it returns (SQLite autocommit, a committed PostgreSQL transaction),
and the order makes a ``put`` safe without a transaction around both: until its row is
written, the values are rows no checkpoint names (invisible; a retry's ``ON CONFLICT DO
NOTHING`` meets them), and once the row is visible every value it names is there. Readers
never see a checkpoint without its values. (The one race this admits is a ``delete_thread``
or ``prune`` of the same thread running between the two statements, which leaves the new
checkpoint without its values; deleting a thread while it is being written is unsupported.)

Write rules follow LangGraph's savers: a regular pending write is write-once per ``(task,
idx)``; the special channels of ``WRITES_IDX_MAP`` (``__error__``, ``__interrupt__``, ...) are
replaced. ``get_next_version`` makes ``"<counter>.<random>"`` strings, so a channel written
on two branches of one thread (time travel) never reuses a version.

The async methods run the sync ones in a worker thread (one core, two entry points).

Must never import: the runtime, the host, the llm layer, compat, or superstep_core.persistence.
"""

from __future__ import annotations

import builtins
import itertools
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

import orjson
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from superstep_core.twin import in_thread, in_thread_iter

__all__ = ["SqlCheckpointSaver"]

CHECKPOINTS = "superstep_checkpoints"
BLOBS = "superstep_blobs"
WRITES = "superstep_writes"

_CHECKPOINT_COLUMNS = (
    "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, "
    "metadata_type, metadata"
)
_INSERT_CHECKPOINT = (
    f"INSERT INTO {CHECKPOINTS} ({_CHECKPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET "
    "parent_checkpoint_id=excluded.parent_checkpoint_id, type=excluded.type, "
    "checkpoint=excluded.checkpoint, metadata_type=excluded.metadata_type, "
    "metadata=excluded.metadata"
)
_ROWS_PER_STATEMENT = 32  # rows of one multi-row INSERT (bounded statement text, parameters)


class SqlCheckpointSaver(BaseCheckpointSaver[str]):
    """The statements of a SQL saver; subclasses give `_write` and `_read` (context managers
    yielding a DB-API cursor inside one transaction), `_blob_rows` (a checkpoint's blobs) and
    `_placeholder` (``"?"`` or ``"%s"``)."""

    _placeholder = "?"

    def __init__(self, *, serde: SerializerProtocol | None = None) -> None:
        super().__init__(serde=serde)
        self._sql: dict[str, str] = {}
        # versions: "<counter>.<nonce of this saver><serial>", unique without a random draw each
        self._nonce = os.urandom(6).hex()
        self._serial = itertools.count(1)

    # --- what a dialect supplies ----------------------------------------------------------------

    def _write(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _read(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _write_one(self) -> AbstractContextManager[Any]:
        """A cursor whose statements each commit on their own (no transaction round trip
        where the dialect allows it; by default `_write`)."""
        return self._write()

    def _blob_rows(
        self, cur: Any, thread_id: str, ns: str, versions: Mapping[str, str]
    ) -> builtins.list[tuple[str, str, bytes | None]]:
        """``(channel, type, blob)`` of each ``channel -> version`` stored."""
        raise NotImplementedError

    def q(self, statement: str) -> str:
        """``statement`` with this dialect's placeholders (cached)."""
        found = self._sql.get(statement)
        if found is None:
            found = self._sql[statement] = statement.replace("?", self._placeholder)
        return found

    # --- the protocol ---------------------------------------------------------------------------

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        configurable = config["configurable"]
        thread_id = str(configurable["thread_id"])
        ns = str(configurable.get("checkpoint_ns", ""))
        checkpoint_id = get_checkpoint_id(config)
        select = (
            f"SELECT {_CHECKPOINT_COLUMNS} FROM {CHECKPOINTS} WHERE thread_id=? AND checkpoint_ns=?"
        )
        with self._read() as cur:
            if checkpoint_id:
                cur.execute(self.q(f"{select} AND checkpoint_id=?"), (thread_id, ns, checkpoint_id))
            else:
                cur.execute(
                    self.q(f"{select} ORDER BY checkpoint_id DESC LIMIT 1"), (thread_id, ns)
                )
            row = cur.fetchone()
            if row is None:
                return None
            return self._tuple(cur, row)

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        where: builtins.list[str] = []
        params: builtins.list[Any] = []
        if config is not None:
            configurable = config["configurable"]
            where.append("thread_id=?")
            params.append(str(configurable["thread_id"]))
            if configurable.get("checkpoint_ns") is not None:
                where.append("checkpoint_ns=?")
                params.append(str(configurable["checkpoint_ns"]))
            if checkpoint_id := get_checkpoint_id(config):
                where.append("checkpoint_id=?")
                params.append(checkpoint_id)
        if before is not None and (before_id := get_checkpoint_id(before)):
            where.append("checkpoint_id<?")
            params.append(before_id)
        query = f"SELECT {_CHECKPOINT_COLUMNS} FROM {CHECKPOINTS}"
        if where:
            query += " WHERE " + " AND ".join(where)
        # newest first within a thread; across threads (config None) thread by thread
        order = "checkpoint_id DESC" if config else "thread_id, checkpoint_ns, checkpoint_id DESC"
        query += f" ORDER BY {order}"
        if limit is not None and not filter:
            query += f" LIMIT {int(limit)}"
        wanted = dict(filter or {})
        out: builtins.list[CheckpointTuple] = []
        with self._read() as cur:
            cur.execute(self.q(query), params)
            rows = cur.fetchall()
            for row in rows:
                if limit is not None and len(out) >= limit:
                    break
                if wanted:
                    metadata = self.serde.loads_typed((row[6], _bytes(row[7])))
                    if any(metadata.get(k) != v for k, v in wanted.items()):
                        continue
                out.append(self._tuple(cur, row))
        yield from out

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        configurable = config["configurable"]
        thread_id = str(configurable["thread_id"])
        ns = str(configurable.get("checkpoint_ns", ""))
        checkpoint_id = checkpoint["id"]
        stored: dict[str, Any] = dict(checkpoint)
        values: dict[str, Any] = stored.pop("channel_values")
        dumps = self.serde.dumps_typed
        blobs: builtins.list[Any] = []
        for channel, version in new_versions.items():
            # a channel without a value (a consumed trigger) needs no row: reads skip it
            if channel in values:
                kind, blob = dumps(values[channel])
                blobs += (thread_id, ns, channel, str(version), kind, blob)
        kind, data = dumps(stored)
        meta_kind, meta = dumps(_metadata(config, metadata))
        row = (
            thread_id,
            ns,
            checkpoint_id,
            configurable.get("checkpoint_id"),
            kind,
            data,
            meta_kind,
            meta,
        )
        # values first, then the row that names them (see the module docstring)
        with self._write_one() as cur:
            for i in range(0, len(blobs), 6 * _ROWS_PER_STATEMENT):
                chunk = blobs[i : i + 6 * _ROWS_PER_STATEMENT]
                cur.execute(self.q(_insert_blobs(len(chunk) // 6)), chunk)
            cur.execute(self.q(_INSERT_CHECKPOINT), row)
        return {
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": ns,
                "checkpoint_id": checkpoint_id,
            }
        }

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        if not writes:
            return
        configurable = config["configurable"]
        thread_id = str(configurable["thread_id"])
        ns = str(configurable.get("checkpoint_ns", ""))
        checkpoint_id = str(configurable["checkpoint_id"])
        dumps = self.serde.dumps_typed
        params: builtins.list[Any] = []
        for idx, (channel, value) in enumerate(writes):
            kind, blob = dumps(value)
            index = WRITES_IDX_MAP.get(channel, idx)
            params += (thread_id, ns, checkpoint_id, task_id, index, channel, kind, blob, task_path)
        # one statement: atomic without a transaction round trip (more rows than one statement
        # takes go in one transaction)
        if len(writes) <= _ROWS_PER_STATEMENT:
            with self._write_one() as cur:
                cur.execute(self.q(_insert_writes(len(writes))), params)
            return
        rows = [params[i : i + 9] for i in range(0, len(params), 9)]
        with self._write() as cur:
            cur.executemany(self.q(_insert_writes(1)), rows)

    def delete_thread(self, thread_id: str) -> None:
        with self._write() as cur:
            for table in (CHECKPOINTS, BLOBS, WRITES):
                cur.execute(self.q(f"DELETE FROM {table} WHERE thread_id=?"), (str(thread_id),))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints (and their pending writes) whose metadata ``run_id`` is one
        of ``run_ids``. Metadata is stored through the serde, so this reads every checkpoint's
        metadata (one pass over the table); channel values stay (other checkpoints may name
        them)."""
        wanted = {str(r) for r in run_ids}
        if not wanted:
            return
        with self._write() as cur:
            cur.execute(
                self.q(
                    f"SELECT thread_id, checkpoint_ns, checkpoint_id, metadata_type, metadata "
                    f"FROM {CHECKPOINTS}"
                )
            )
            doomed = [
                (thread, ns, checkpoint_id)
                for thread, ns, checkpoint_id, kind, data in cur.fetchall()
                if str(self.serde.loads_typed((kind, _bytes(data))).get("run_id")) in wanted
            ]
            for table in (CHECKPOINTS, WRITES):
                cur.executemany(
                    self.q(
                        f"DELETE FROM {table} WHERE thread_id=? AND checkpoint_ns=? "
                        "AND checkpoint_id=?"
                    ),
                    doomed,
                )

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy every checkpoint, blob and pending write of ``source_thread_id`` to
        ``target_thread_id`` (rows the target already has are kept)."""
        columns = {
            CHECKPOINTS: _CHECKPOINT_COLUMNS,
            BLOBS: "thread_id, checkpoint_ns, channel, version, type, blob",
            WRITES: "thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, "
            "blob, task_path",
        }
        with self._write() as cur:
            for table, cols in columns.items():
                rest = cols.removeprefix("thread_id, ")
                cur.execute(
                    self.q(
                        f"INSERT INTO {table} ({cols}) SELECT ?, {rest} FROM {table} "
                        "WHERE thread_id=? ON CONFLICT DO NOTHING"
                    ),
                    (str(target_thread_id), str(source_thread_id)),
                )

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """``"delete"``: remove the threads. ``"keep_latest"``: keep only the latest
        checkpoint of each namespace (with its pending writes and the blobs it names)."""
        if strategy == "delete":
            for thread_id in thread_ids:
                self.delete_thread(thread_id)
            return
        if strategy != "keep_latest":
            raise ValueError(f"prune strategy must be 'keep_latest' or 'delete', not {strategy!r}")
        for thread_id in thread_ids:
            self._keep_latest(str(thread_id))

    def _keep_latest(self, thread_id: str) -> None:
        with self._write() as cur:
            cur.execute(
                self.q(
                    f"SELECT checkpoint_ns, max(checkpoint_id) FROM {CHECKPOINTS} "
                    "WHERE thread_id=? GROUP BY checkpoint_ns"
                ),
                (thread_id,),
            )
            latest = cur.fetchall()
            for ns, checkpoint_id in latest:
                cur.execute(
                    self.q(
                        f"SELECT type, checkpoint FROM {CHECKPOINTS} "
                        "WHERE thread_id=? AND checkpoint_ns=? AND checkpoint_id=?"
                    ),
                    (thread_id, ns, checkpoint_id),
                )
                kind, data = cur.fetchone()
                versions = self.serde.loads_typed((kind, _bytes(data)))["channel_versions"]
                keep = {(str(c), str(v)) for c, v in versions.items()}
                for table in (CHECKPOINTS, WRITES):
                    cur.execute(
                        self.q(
                            f"DELETE FROM {table} WHERE thread_id=? AND checkpoint_ns=? "
                            "AND checkpoint_id<>?"
                        ),
                        (thread_id, ns, checkpoint_id),
                    )
                cur.execute(
                    self.q(
                        f"SELECT channel, version FROM {BLOBS} "
                        "WHERE thread_id=? AND checkpoint_ns=?"
                    ),
                    (thread_id, ns),
                )
                stale = [(c, v) for c, v in cur.fetchall() if (c, v) not in keep]
                cur.executemany(
                    self.q(
                        f"DELETE FROM {BLOBS} WHERE thread_id=? AND checkpoint_ns=? "
                        "AND channel=? AND version=?"
                    ),
                    [(thread_id, ns, c, v) for c, v in stale],
                )

    def get_next_version(self, current: str | None, channel: None) -> str:  # type: ignore[override]
        """``"<n+1, 32 digits>.<suffix>"`` after ``current`` (``None``, an int, or a version
        made by this or LangGraph's savers, which share the 32-digit counter): increasing, and
        unique even when two branches of a thread write the same channel (the suffix is this
        saver's random nonce and a serial number)."""
        if current is None:
            counter = 0
        elif isinstance(current, int):
            counter = current
        else:
            counter = int(str(current).split(".", 1)[0])
        return f"{counter + 1:032}.{self._nonce}{next(self._serial):010d}"

    # --- async twins: the same core in a worker thread (a subclass's override included) -----

    aget_tuple = in_thread(get_tuple)
    alist = in_thread_iter(list)
    aput = in_thread(put)
    aput_writes = in_thread(put_writes)
    adelete_thread = in_thread(delete_thread)
    adelete_for_runs = in_thread(delete_for_runs)
    acopy_thread = in_thread(copy_thread)
    aprune = in_thread(prune)

    # --- rows -> tuples -------------------------------------------------------------------------

    def _tuple(self, cur: Any, row: Sequence[Any]) -> CheckpointTuple:
        thread_id, ns, checkpoint_id, parent_id, kind, data, meta_kind, meta = row
        loads = self.serde.loads_typed
        checkpoint = loads((kind, _bytes(data)))
        versions = {str(c): str(v) for c, v in checkpoint.get("channel_versions", {}).items()}
        values: dict[str, Any] = {}
        if versions:
            for channel, blob_kind, blob in self._blob_rows(cur, thread_id, ns, versions):
                if blob_kind != "empty":
                    values[channel] = loads((blob_kind, _bytes(blob)))
        checkpoint["channel_values"] = values
        cur.execute(
            self.q(
                f"SELECT task_id, channel, type, blob FROM {WRITES} WHERE thread_id=? AND "
                "checkpoint_ns=? AND checkpoint_id=? ORDER BY task_path, task_id, idx"
            ),
            (thread_id, ns, checkpoint_id),
        )
        writes = [(task, channel, loads((t, _bytes(b)))) for task, channel, t, b in cur.fetchall()]
        config: RunnableConfig = {
            "configurable": {
                "thread_id": thread_id,
                "checkpoint_ns": ns,
                "checkpoint_id": checkpoint_id,
            }
        }
        parent: RunnableConfig | None = None
        if parent_id:
            parent = {
                "configurable": {
                    "thread_id": thread_id,
                    "checkpoint_ns": ns,
                    "checkpoint_id": parent_id,
                }
            }
        return CheckpointTuple(config, checkpoint, loads((meta_kind, _bytes(meta))), parent, writes)


def _insert_blobs(rows: int) -> str:
    """The statement writing ``rows`` channel values (a value of a version is written once)."""
    values = ", ".join(["(?, ?, ?, ?, ?, ?)"] * rows)
    return f"INSERT INTO {BLOBS} VALUES {values} ON CONFLICT DO NOTHING"


def _insert_writes(rows: int) -> str:
    """The statement writing ``rows`` pending writes: a regular one is write-once per (task,
    idx), a special one (negative idx, `WRITES_IDX_MAP`) is replaced."""
    values = ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?)"] * rows)
    return (
        f"INSERT INTO {WRITES} VALUES {values} "
        "ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET "
        "channel=excluded.channel, type=excluded.type, blob=excluded.blob, "
        "task_path=excluded.task_path WHERE excluded.idx < 0"
    )


_CONFIG_KEYS = frozenset({"thread_id", "checkpoint_ns", "checkpoint_id"})


def _metadata(config: RunnableConfig, metadata: CheckpointMetadata) -> CheckpointMetadata:
    """The metadata to store, as LangGraph's savers make it (config values merged in by
    `get_checkpoint_metadata`); the common case of a config holding only the checkpoint's
    address needs no merge (NUL characters are kept: the serde's bytes can hold them)."""
    if "metadata" not in config and _CONFIG_KEYS.issuperset(config.get("configurable", ())):
        return metadata
    return get_checkpoint_metadata(config, metadata)


def _bytes(value: Any) -> bytes:
    """A BLOB/BYTEA column as ``bytes`` (psycopg gives ``memoryview``); ``None`` as empty."""
    if value is None:
        return b""
    return value if type(value) is bytes else bytes(value)


def versions_json(versions: Mapping[str, str]) -> str:
    """A checkpoint's ``channel -> version`` map as JSON text (for ``json_each``)."""
    return orjson.dumps(dict(versions)).decode()
