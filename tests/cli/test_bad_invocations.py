"""Bad invocations of every subcommand: one line on stderr, exit status 2, no traceback, and
nothing created that was not asked for. Each is run in a fresh process, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ASKING = Path(__file__).with_name("asking_graph.py")
GRAPH = f"{ASKING}:graph"

BAD = [
    # options of run
    ["run"],
    ["run", "nocolon"],
    ["run", ":graph"],
    ["run", "missing.py:graph"],
    ["run", f"{ASKING}:nope"],
    ["run", "no_such_module_xyz:graph"],
    ["run", GRAPH, "--input", "{bad"],
    ["run", GRAPH, "--workers", "-3"],
    ["run", GRAPH, "--workers", "0"],
    ["run", GRAPH, "--workers", "many"],
    ["run", GRAPH, "--max-supersteps", "-1"],
    ["run", GRAPH, "--stream", "bogus"],
    ["run", GRAPH, "--stream", ","],
    ["run", GRAPH, "--stream", "values"],
    ["run", GRAPH, "--thread", ""],
    ["run", GRAPH, "--thread", "   "],
    ["run", GRAPH, "--thread", "a\x1b[31mb"],
    ["run", GRAPH, "--db", "x.db"],
    ["run", GRAPH, "--thread", "t", "--db", "mysql://u:secret@h/db"],
    ["run", GRAPH, "--thread", "t", "--db", "postgresql+psycopg://u:secret@h/db"],
    ["run", GRAPH, "--thread", "t", "--db", "sqlite:///x.db"],
    ["run", GRAPH, "--thread", "t", "--db", ""],
    ["run", GRAPH, "--thread", "t", "--db", "postgresql://u:secret@127.0.0.1:1/db"],
    ["run", GRAPH, "--thread", "t", "--db", "damaged.db"],
    ["run", GRAPH, "--thread", "t", "--db", "."],
    ["run", GRAPH, "--bogus-option"],
    ["run", GRAPH, "--timeout", "-5"],
    ["run", GRAPH, "--timeout", "nan"],
    ["run", GRAPH, "--timeout", "0"],
    ["run", GRAPH, "--max-cost-minor", "-5"],
    ["resume", "--thread", "nope", "--timeout", "inf"],
    ["plan", "status", "plan.json", "--state", "s.json", "--max-cost-minor", "-1"],
    # resume
    ["resume"],
    ["resume", "--thread", ""],
    ["resume", "--thread", "nope"],
    ["resume", "--thread", "nope", "--value", "{bad"],
    ["resume", "--thread", "nope", "--value", "1", "--retry"],
    ["resume", "--thread", "nope", "--workers", "-3"],
    ["resume", "--thread", "nope", "--expected-step", "x"],
    ["resume", "--thread", "nope", "--target", "nocolon"],
    ["resume", "--thread", "nope", "--db", "mysql://h/db"],
    ["resume", "--thread", "nope", "--db", "damaged.db"],
    ["resume", "--thread", "nope", "--db", "postgresql://u:secret@127.0.0.1:1/db"],
    # history
    ["history"],
    ["history", "--thread", ""],
    ["history", "--thread", "nope"],
    ["history", "--thread", "nope", "--db", "missing.db"],
    ["history", "--thread", "nope", "--db", "damaged.db"],
    ["history", "--thread", "nope", "--db", "mysql://h/db"],
    ["history", "--thread", "nope", "--target", "missing.py:graph"],
    # replay
    ["replay"],
    ["replay", "--thread", "nope"],
    ["replay", "--thread", "nope", "--db", "damaged.db"],
    ["replay", "--thread", "nope", "--db", "missing.db"],
    # graph
    ["graph"],
    ["graph", "missing.py:graph"],
    ["graph", GRAPH, "--format", "png"],
    ["graph", f"{ASKING}:ask"],
    # no subcommand at all, or an unknown one
    [],
    ["frobnicate"],
]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bad")
    (root / "damaged.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)
    return root


@pytest.mark.parametrize("argv", BAD, ids=lambda a: " ".join(a)[:60] or "(none)")
def test_a_bad_invocation_is_one_line_and_exit_status_2(workdir: Path, argv: list[str]) -> None:
    before = sorted(p.name for p in workdir.rglob("*"))
    done = subprocess.run(
        [sys.executable, "-m", "superstep_core.cli", *argv],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "FORCE_COLOR": "1"},
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("superstep: error: "), lines
    assert "Traceback" not in done.stderr and "\x1b" not in done.stderr
    assert "secret" not in done.stderr
    created = set(p.name for p in workdir.rglob("*")) - set(before)
    assert created <= {".superstep", "superstep.db", "superstep.db-wal", "superstep.db-shm"}, (
        created
    )
    assert not any(p.name.startswith(("mysql", "postgresql", "sqlite")) for p in workdir.iterdir())
