"""Whole-thread operations on the checkpoints the server's saver keeps (LangGraph's official
``SqliteSaver`` or ``PostgresSaver``, `superstep_server.saver`): copying a thread, pruning
it to its latest checkpoints, and deleting what given runs wrote (a run cancelled with
``rollback``).

A saver that implements the protocol's method (``copy_thread``, ``prune``,
``delete_for_runs``) is asked to; the official savers implement only some of them, so the
rest is done here: copying through the saver's public ``list``/``put``/``put_writes``, and
deleting with statements on the saver's own tables in one transaction of its connection
(the tables' layout is the official saver's, read from its ``setup``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

__all__ = ["copy_thread", "delete_for_runs", "prune_keep_latest"]


def _implements(saver: Any, name: str) -> bool:
    """Whether the saver's class overrides the protocol's ``name`` (the base raises
    ``NotImplementedError``)."""
    from langgraph.checkpoint.base import BaseCheckpointSaver

    own = getattr(type(saver), name, None)
    return own is not None and own is not getattr(BaseCheckpointSaver, name, None)


def copy_thread(saver: Any, source: str, target: str) -> None:
    """Copy every checkpoint (all namespaces) and pending write of thread ``source`` to
    thread ``target`` (which should have none), parents before children so the copy's
    history is the source's. The copies keep their checkpoint ids; their metadata names
    ``target`` where it named ``source``."""
    if _implements(saver, "copy_thread"):
        saver.copy_thread(source, target)
        return
    tuples = list(saver.list({"configurable": {"thread_id": source}}))
    tuples.sort(key=lambda t: t.checkpoint["id"])  # ids grow with time (uuid6)
    for item in tuples:
        conf = item.config["configurable"]
        ns = conf.get("checkpoint_ns", "")
        parent = (item.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        put_config: dict[str, Any] = {
            "configurable": {"thread_id": target, "checkpoint_ns": ns, "checkpoint_id": parent}
        }
        metadata = dict(item.metadata or {})
        if metadata.get("thread_id") == source:
            metadata["thread_id"] = target
        checkpoint = item.checkpoint
        saved = saver.put(put_config, checkpoint, metadata, dict(checkpoint["channel_versions"]))
        by_task: dict[str, list[tuple[str, Any]]] = defaultdict(list)
        for task_id, channel, value in item.pending_writes or ():
            by_task[task_id].append((channel, value))
        for task_id, writes in by_task.items():
            saver.put_writes(saved, writes, task_id)


def prune_keep_latest(saver: Any, thread_ids: Sequence[str]) -> None:
    """Keep only the latest checkpoint of each namespace of each thread (with its pending
    writes); the rest of their checkpoints and writes are deleted."""
    if _implements(saver, "prune"):
        saver.prune(list(thread_ids), strategy="keep_latest")
        return
    conn = _sqlite_conn(saver, "prune")
    with saver.lock, conn:
        for thread_id in thread_ids:
            latest = (
                "SELECT MAX(checkpoint_id) FROM checkpoints k WHERE k.thread_id = ? "
                "AND k.checkpoint_ns = {t}.checkpoint_ns"
            )
            conn.execute(
                "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id <> ("
                + latest.format(t="checkpoints")
                + ")",
                (thread_id, thread_id),
            )
            conn.execute(
                "DELETE FROM writes WHERE thread_id = ? AND checkpoint_id <> ("
                + latest.format(t="writes")
                + ")",
                (thread_id, thread_id),
            )


def delete_for_runs(saver: Any, thread_id: str, run_ids: Sequence[str]) -> None:
    """Delete the checkpoints of ``thread_id`` that the runs ``run_ids`` wrote (their
    metadata's ``run_id``), with their pending writes (and, on PostgreSQL, the channel
    values no checkpoint left refers to): the thread is back where it was before them."""
    if not run_ids:
        return
    if _implements(saver, "delete_for_runs"):
        saver.delete_for_runs(list(run_ids))
        return
    ids = [str(r) for r in run_ids]
    if hasattr(saver, "conn") and hasattr(saver, "lock") and _is_sqlite(saver.conn):
        conn = saver.conn
        marks = ", ".join("?" for _ in ids)
        with saver.lock, conn:
            doomed = (
                "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND "
                f"json_extract(CAST(metadata AS TEXT), '$.run_id') IN ({marks})"
            )
            conn.execute(
                f"DELETE FROM writes WHERE thread_id = ? AND checkpoint_id IN ({doomed})",
                (thread_id, thread_id, *ids),
            )
            conn.execute(
                "DELETE FROM checkpoints WHERE thread_id = ? AND "
                f"json_extract(CAST(metadata AS TEXT), '$.run_id') IN ({marks})",
                (thread_id, *ids),
            )
        return
    pool = getattr(saver, "conn", None)
    if pool is None or not hasattr(pool, "connection"):
        raise NotImplementedError(
            f"{type(saver).__name__} cannot delete the checkpoints of given runs"
        )
    with pool.connection() as conn, conn.transaction():
        conn.execute(
            "DELETE FROM checkpoint_writes w WHERE w.thread_id = %s AND w.checkpoint_id IN ("
            "SELECT c.checkpoint_id FROM checkpoints c WHERE c.thread_id = %s "
            "AND c.metadata->>'run_id' = ANY(%s))",
            (thread_id, thread_id, ids),
        )
        conn.execute(
            "DELETE FROM checkpoints WHERE thread_id = %s AND metadata->>'run_id' = ANY(%s)",
            (thread_id, ids),
        )
        # channel values are shared between checkpoints by version: drop the orphans only
        conn.execute(
            "DELETE FROM checkpoint_blobs b WHERE b.thread_id = %s AND NOT EXISTS ("
            "SELECT 1 FROM checkpoints c WHERE c.thread_id = b.thread_id "
            "AND c.checkpoint_ns = b.checkpoint_ns "
            "AND c.checkpoint->'channel_versions'->>b.channel = b.version)",
            (thread_id,),
        )


def _is_sqlite(conn: Any) -> bool:
    import sqlite3

    return isinstance(conn, sqlite3.Connection)


def _sqlite_conn(saver: Any, what: str) -> Any:
    conn = getattr(saver, "conn", None)
    if conn is None or not _is_sqlite(conn) or not hasattr(saver, "lock"):
        raise NotImplementedError(f"{type(saver).__name__} cannot {what} threads")
    return conn
