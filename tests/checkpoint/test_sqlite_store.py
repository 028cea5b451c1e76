"""SQLite-specific behaviour: one file shared by processes, WAL, and O(changed) writes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from superstep_core.checkpoint import Checkpoint, SqliteCheckpointStore, checkpoint_id

WRITER = textwrap.dedent(
    """
    import sys
    from superstep_core.checkpoint import Checkpoint, SqliteCheckpointStore, checkpoint_id

    path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = SqliteCheckpointStore(path, busy_timeout=30)
    results = []
    for step in range(count):
        parent = checkpoint_id(step - 1) if step else None
        versions = {"big": 1, "step": step + 1}
        blobs = {"step": str(step).encode()}
        if step == 0:
            blobs["big"] = b"x" * 50_000
        store.put(Checkpoint(name, "", step, parent, b"h", versions, {"by": name}), blobs)
        effects = {f"e{step}": b"r"}
        store.put_writes(name, "", checkpoint_id(step), "task", [("step", b"w")], effects)
        store.append_input(name, step, name.encode())
        results.append(store.record_effect("shared", f"race:{step}", name.encode()))
    store.close()
    print(",".join(r.decode() for r in results))
    """
)


def test_two_processes_write_one_file_concurrently_without_lock_errors(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    count = 150
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, str(count)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("p1", "p2")
    ]
    outputs = [proc.communicate(timeout=60) for proc in procs]
    for proc, (_, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
    # Both processes raced for the same write-once effect keys and got the same answers.
    assert outputs[0][0] == outputs[1][0]

    store = SqliteCheckpointStore(path)
    for name in ("p1", "p2"):
        assert [c.step for c in store.list(name)] == list(reversed(range(count)))
        loaded = store.get(name)
        assert loaded is not None
        assert loaded.values == {"big": b"x" * 50_000, "step": str(count - 1).encode()}
        assert len(store.read_inputs(name)) == count
        assert store.get_effect(name, f"e{count - 1}") == b"r"
    store.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_the_file_is_in_wal_mode_and_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SqliteCheckpointStore(path) as store:
        store.put(Checkpoint("t", "", 0, None, b"h", {"a": 1}, {}), {"a": b"A"})
    with SqliteCheckpointStore(path) as store:
        loaded = store.get("t")
        assert loaded is not None and loaded.values == {"a": b"A"}
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_superstep_writes_only_the_channels_that_changed(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    message = b"m" * 200
    with SqliteCheckpointStore(path) as store:
        store.put(Checkpoint("t", "", 0, None, b"h", {"messages": 1}, {}), {"messages": message})
        for step in range(1, 1000):
            versions = {"messages": 1, "turn": step}
            parent = checkpoint_id(step - 1)
            store.put(Checkpoint("t", "", step, parent, b"h", versions, {}), {"turn": b"%d" % step})
    with sqlite3.connect(path) as conn:
        rows = dict(conn.execute("SELECT channel, count(*) FROM blobs GROUP BY channel").fetchall())
    assert rows == {"messages": 1, "turn": 999}
