"""A full disk while a thread runs: one line naming the cause, exit status 2, and the thread
keeps its last committed superstep, so ``resume`` finishes it once there is room again. The
disk is "full" through the file-size limit of the process (``RLIMIT_FSIZE``)."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

BIG = """
from superstep_core import Graph, LastValue, compute_node

HUGE = "".join(f"{i:08x}" for i in range(500_000))

graph = (
    Graph("big", version="1")
    .with_channels(small=LastValue(), big=LastValue())
    .add_node("small", compute_node(lambda s, _: {"small": "ok"}))
    .add_node("big", compute_node(lambda s, _: {"big": HUGE}))
    .start_at("small")
    .connect("small", "big")
    .end_at("big")
)
"""

LIMIT = 1_000_000  # bytes per file: the first supersteps fit, the 4 MB value does not


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


def test_a_full_disk_is_one_line_exit_2_and_the_thread_resumes(tmp_path: Path) -> None:
    if sys.platform == "win32":  # pragma: no cover
        pytest.skip("RLIMIT_FSIZE is POSIX")
    (tmp_path / "big.py").write_text(BIG)
    cli = [sys.executable, "-m", "superstep_core.cli"]
    full = subprocess.run(
        [*cli, "run", "big.py:graph", "--thread", "b"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        preexec_fn=_limited,
    )
    errors = [line for line in full.stderr.splitlines() if "error" in line]
    assert full.returncode == 2, full.stderr
    assert len(errors) == 1 and "the disk is full" in errors[0], full.stderr
    assert "Traceback" not in full.stderr
    done = subprocess.run(
        [*cli, "resume", "--thread", "b", "--json"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    result = orjson.loads(done.stdout.splitlines()[-1])
    assert result["status"] == "completed" and result["values"]["small"] == "ok"
