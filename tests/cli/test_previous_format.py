"""A database of the engine's checkpoint format from before LangGraph's protocol: every command
that opens it says so in one line naming the file (exit status 2), and changes nothing."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

OLD = """
CREATE TABLE checkpoints (thread_id TEXT NOT NULL, namespace TEXT NOT NULL, step INTEGER NOT NULL,
    parent_id TEXT, header BLOB NOT NULL, versions TEXT NOT NULL, metadata TEXT NOT NULL,
    PRIMARY KEY (thread_id, namespace, step));
CREATE TABLE effects (thread_id TEXT NOT NULL, key TEXT NOT NULL, result BLOB NOT NULL);
CREATE TABLE inputs (thread_id TEXT NOT NULL, seq INTEGER NOT NULL, data BLOB NOT NULL);
"""


@pytest.mark.parametrize(
    "command",
    [
        ["history", "--thread", "t"],
        ["resume", "--thread", "t"],
        ["run", "examples/pipeline.py:graph", "--thread", "new"],
    ],
    ids=lambda c: c[0],
)
def test_an_old_database_is_refused_in_one_line(tmp_path: Path, command: list[str]) -> None:
    db = tmp_path / "old.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(OLD)
    before = db.read_bytes()
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "superstep_core.cli", *command, "--db", str(db)],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert str(db) in lines[0] and "previous checkpoint format" in lines[0]
    assert db.read_bytes() == before
