"""Differential tests: every program in `programs/` (a small LangGraph program defining
`run()`) runs under real LangGraph and under the façade, and the two results must be equal.

Each implementation runs all programs in one subprocess (`programs/_driver.py`); the two
subprocesses run at the same time. Results are plain JSON made by `programs/_plain.py`
(messages, snapshots, interrupts by their public fields; no ids, timestamps or configs).
Skipped when the real-LangGraph venv at /work/.venv-langgraph is missing.

Known discrepancies are `xfail(strict=True)`: when one is fixed the test fails, and its entry
in `KNOWN_DIFFERENCES` must go.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compat.langgraph_venv import langgraph_python, run_both

PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
# The shared helper (SUPERSTEP_LANGGRAPH_PYTHON, the project's .venv-langgraph), else /work's.
LANGGRAPH_PY = langgraph_python() or Path("/work/.venv-langgraph/bin/python")
PROGRAMS = sorted(PROGRAMS_DIR.glob("p[0-9]*.py"))

pytestmark = pytest.mark.skipif(
    not LANGGRAPH_PY.exists(), reason="no langgraph venv at /work/.venv-langgraph"
)

KNOWN_DIFFERENCES: dict[str, str] = {}


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, Any]]:
    assert LANGGRAPH_PY is not None
    return run_both(PROGRAMS, LANGGRAPH_PY)


def test_there_are_enough_programs() -> None:
    assert 15 <= len(PROGRAMS) <= 150  # a bound catches a glob gone wrong; there are 73
    assert set(KNOWN_DIFFERENCES) <= {p.stem for p in PROGRAMS}


@pytest.mark.parametrize("stem", [p.stem for p in PROGRAMS])
def test_program_runs_under_langgraph(stem: str, results: dict[str, dict[str, Any]]) -> None:
    """A program that fails under real LangGraph would compare equal for the wrong reason."""
    got = results["langgraph"][stem]
    assert not (isinstance(got, dict) and set(got) in ({"raised"}, {"timeout"})), got


@pytest.mark.parametrize(
    "stem",
    [
        pytest.param(
            p.stem,
            marks=pytest.mark.xfail(reason=KNOWN_DIFFERENCES[p.stem], strict=True),
        )
        if p.stem in KNOWN_DIFFERENCES
        else p.stem
        for p in PROGRAMS
    ],
)
def test_program_matches_langgraph(stem: str, results: dict[str, dict[str, Any]]) -> None:
    assert results["superstep"][stem] == results["langgraph"][stem]
