"""What the engine's SQL savers add to the protocol: one SQLite file shared by processes (WAL),
only changed channels written, read-only opening, PostgreSQL schemas created once, and the
refusal of databases in the engine's previous checkpoint format."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from superstep_core.checkpoint import PreviousFormatError, SqliteCheckpointSaver

from .conftest import drop_schema

WRITER = textwrap.dedent(
    """
    import sys
    from langgraph.checkpoint.base import empty_checkpoint
    from superstep_core.checkpoint import SqliteCheckpointSaver

    path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    saver = SqliteCheckpointSaver(path, busy_timeout=30)
    config = {"configurable": {"thread_id": name, "checkpoint_ns": ""}}
    versions = {}
    for step in range(count):
        cp = empty_checkpoint()
        cp["id"] = f"{step:012d}"
        new = {"step": saver.get_next_version(versions.get("step"), None)}
        if step == 0:
            new["big"] = saver.get_next_version(None, None)
        versions.update(new)
        cp["channel_versions"] = dict(versions)
        cp["channel_values"] = {"big": b"x" * 50_000, "step": step}
        config = saver.put(config, cp, {"source": "loop", "step": step, "by": name}, new)
        saver.put_writes(config, [("effect", step)], f"task{step}")
    saver.close()
    """
)


def test_two_processes_write_one_file_concurrently_without_lock_errors(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    count = 120
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, str(count)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("p1", "p2")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    with SqliteCheckpointSaver(path) as saver:
        for name in ("p1", "p2"):
            config = {"configurable": {"thread_id": name}}
            steps = [t.metadata["step"] for t in saver.list(config)]
            assert steps == list(reversed(range(count)))
            latest = saver.get_tuple(config)
            assert latest is not None
            assert latest.checkpoint["channel_values"] == {"big": b"x" * 50_000, "step": count - 1}
            assert latest.pending_writes == [(f"task{count - 1}", "effect", count - 1)]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def _put_steps(saver: Any, thread: str, steps: int) -> None:
    config: Any = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    versions: dict[str, Any] = {}
    for step in range(steps):
        cp = empty_checkpoint()
        new = {"turn": saver.get_next_version(versions.get("turn"), None)}
        if step == 0:
            new["messages"] = saver.get_next_version(None, None)
        versions.update(new)
        cp["channel_versions"] = dict(versions)
        cp["channel_values"] = {"messages": b"m" * 200, "turn": step}
        config = saver.put(config, cp, {"step": step}, new)


def test_a_step_writes_only_the_channels_named_in_new_versions(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SqliteCheckpointSaver(path) as saver:
        _put_steps(saver, "t", 300)
    with sqlite3.connect(path) as conn:
        rows = dict(
            conn.execute(
                "SELECT channel, count(*) FROM superstep_blobs GROUP BY channel"
            ).fetchall()
        )
    assert rows == {"messages": 1, "turn": 300}


def test_a_read_only_saver_reads_and_never_writes(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SqliteCheckpointSaver(path) as saver:
        _put_steps(saver, "t", 2)
    with SqliteCheckpointSaver(path, read_only=True) as saver:
        latest = saver.get_tuple({"configurable": {"thread_id": "t"}})
        assert latest is not None and latest.checkpoint["channel_values"]["turn"] == 1
        with pytest.raises(sqlite3.OperationalError):
            _put_steps(saver, "u", 1)
    missing = tmp_path / "empty.db"
    sqlite3.connect(missing).close()
    with SqliteCheckpointSaver(missing, read_only=True) as saver:
        assert list(saver.list(None)) == []


_PREVIOUS_SQLITE = """
CREATE TABLE checkpoints (thread_id TEXT, namespace TEXT, step INTEGER, parent_id TEXT,
    header BLOB, versions TEXT, metadata TEXT);
CREATE TABLE inputs (thread_id TEXT, seq INTEGER, data BLOB);
"""


@pytest.mark.parametrize("read_only", [False, True])
def test_a_file_of_the_previous_format_is_refused_in_one_line(
    tmp_path: Path, read_only: bool
) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:
        conn.executescript(_PREVIOUS_SQLITE)
    with pytest.raises(PreviousFormatError) as caught:
        SqliteCheckpointSaver(path, read_only=read_only)
    message = str(caught.value)
    assert str(path) in message and "previous checkpoint format" in message
    assert "\n" not in message


def test_a_file_of_langgraphs_sqlite_saver_is_not_taken_for_the_previous_format(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lg.db"
    with sqlite3.connect(path) as conn:  # LangGraph's SqliteSaver's tables
        conn.execute(
            "CREATE TABLE checkpoints (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, "
            "parent_checkpoint_id TEXT, type TEXT, checkpoint BLOB, metadata BLOB)"
        )
    with SqliteCheckpointSaver(path) as saver:
        _put_steps(saver, "t", 1)
        assert saver.get_tuple({"configurable": {"thread_id": "t"}}) is not None


def test_postgres_savers_opening_one_schema_at_once_create_it_once(
    postgres_schema: tuple[str, str],
) -> None:
    from superstep_core.checkpoint.postgres import PostgresCheckpointSaver

    url, schema = postgres_schema
    savers: list[PostgresCheckpointSaver] = []
    errors: list[BaseException] = []

    def open_saver() -> None:
        try:
            savers.append(PostgresCheckpointSaver(url, schema=schema, max_size=1))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_saver) for _ in range(4)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        _put_steps(savers[0], "t", 3)
        latest = savers[-1].get_tuple({"configurable": {"thread_id": "t"}})
        assert latest is not None and latest.checkpoint["channel_values"]["turn"] == 2
    finally:
        for saver in savers:
            saver.close()


def test_a_postgres_schema_of_the_previous_format_is_refused(
    postgres_schema: tuple[str, str],
) -> None:
    import psycopg

    from superstep_core.checkpoint.postgres import PostgresCheckpointSaver

    url, schema = postgres_schema
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f'CREATE TABLE "{schema}".checkpoints (thread_id TEXT, header BYTEA)')
    with pytest.raises(PreviousFormatError, match=schema):
        PostgresCheckpointSaver(url, schema=schema)
    drop_schema(url, schema)


def _many_writes_and_values(saver: Any) -> None:
    """More values and pending writes than one statement takes (32 rows): all are kept, a
    regular write stays as first written, a special one (``__interrupt__``) is replaced."""
    cp = empty_checkpoint()
    new = {f"c{i}": saver.get_next_version(None, None) for i in range(70)}
    cp["channel_versions"] = dict(new)
    cp["channel_values"] = {f"c{i}": i for i in range(70) if i % 7}  # some have no value
    config = saver.put({"configurable": {"thread_id": "w", "checkpoint_ns": ""}}, cp, {}, new)
    saver.put_writes(config, [(f"c{i}", i) for i in range(40)], "task")
    saver.put_writes(config, [(f"c{i}", -i) for i in range(41)], "task")
    saver.put_writes(config, [("__interrupt__", "first")], "asker")
    saver.put_writes(config, [("__interrupt__", "second")], "asker")
    found = saver.get_tuple(config)
    assert found is not None
    assert found.checkpoint["channel_values"] == {f"c{i}": i for i in range(70) if i % 7}
    assert found.checkpoint["channel_versions"] == new
    writes = {(task, channel): value for task, channel, value in found.pending_writes}
    assert writes == {
        **{("task", f"c{i}"): i for i in range(40)},
        ("task", "c40"): -40,
        ("asker", "__interrupt__"): "second",
    }


def test_many_values_and_writes_in_sqlite(tmp_path: Path) -> None:
    with SqliteCheckpointSaver(tmp_path / "s.db") as saver:
        _many_writes_and_values(saver)


def test_many_values_and_writes_in_postgres(postgres_schema: tuple[str, str]) -> None:
    from superstep_core.checkpoint.postgres import PostgresCheckpointSaver

    url, schema = postgres_schema
    with PostgresCheckpointSaver(url, schema=schema, max_size=1) as saver:
        _many_writes_and_values(saver)
