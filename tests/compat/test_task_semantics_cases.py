"""Differential tests of what a task does and how it describes itself: each
`programs/k*.py` (a Command(graph=PARENT) goto keeping the parent node's edges, the
messages stream around subgraphs and its metadata, the reduce order of push and pull
writes, routing to missing targets, a task's path/triggers/namespace) runs under real
LangGraph and under the façade, and the results must be equal.

Both run in one subprocess each (`programs/_driver.py`), at the same time; results are the
plain JSON of `programs/_plain.py`. Skipped when no real LangGraph is found.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from compat.langgraph_venv import MISSING_REASON, langgraph_python

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
DRIVER = PROGRAMS_DIR / "_driver.py"
PROGRAMS = sorted(PROGRAMS_DIR.glob("k[0-9]*.py"))
_FOUND = langgraph_python()

pytestmark = pytest.mark.skipif(_FOUND is None, reason=MISSING_REASON)


def _start(python: str, impl: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [python, str(DRIVER), impl, *map(str, PROGRAMS)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=str(PROGRAMS_DIR),
    )


def _collect(process: subprocess.Popen[str], impl: str) -> dict[str, Any]:
    try:
        out, err = process.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    assert process.returncode == 0, f"{impl} driver failed:\n{err[-4000:]}"
    results: dict[str, Any] = json.loads(out)
    return results


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, Any]]:
    assert _FOUND is not None
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    base["PYTHONHASHSEED"] = "0"
    real = _start(str(_FOUND), "langgraph", base)
    facade = _start(sys.executable, "superstep", {**base, "PYTHONPATH": str(ROOT / "src")})
    return {"langgraph": _collect(real, "langgraph"), "superstep": _collect(facade, "superstep")}


def test_every_case_has_a_program() -> None:
    assert len(PROGRAMS) >= 5


@pytest.mark.parametrize("stem", [p.stem for p in PROGRAMS])
def test_program_runs_under_langgraph(stem: str, results: dict[str, dict[str, Any]]) -> None:
    """A program that fails under real LangGraph would compare equal for the wrong reason."""
    got = results["langgraph"][stem]
    assert not (isinstance(got, dict) and set(got) in ({"raised"}, {"timeout"})), got


@pytest.mark.parametrize("stem", [p.stem for p in PROGRAMS])
def test_program_matches_langgraph(stem: str, results: dict[str, dict[str, Any]]) -> None:
    assert results["superstep"][stem] == results["langgraph"][stem]
