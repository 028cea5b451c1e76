"""``make test`` runs pytest on two workers, where pytest prints dots and never a file name:
the project's conftest prints a line as each test file finishes, so a long run shows where
it is."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.timeout(900)  # three interpreters start, on a machine the whole suite loads
def test_a_run_on_workers_names_each_file_as_it_finishes() -> None:
    files = ["tests/engine/test_validation.py", "tests/engine/test_lifecycle.py"]
    xdist = ["-n", "2", "--dist", "loadfile", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *xdist, *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=850,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    lines = [line.strip() for line in done.stdout.splitlines() if "  done " in line]
    assert sorted(line.split()[1] for line in lines) == sorted(files), done.stdout
    assert all(line.endswith(("1/2 files)", "2/2 files)")) for line in lines), lines
