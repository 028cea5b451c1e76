"""Checkpoints of older LangGraph formats (`superstep_compat.pregel._migrate`, reached as
a compiled graph's ``_migrate_checkpoint``): `programs/mg*.py` migrate hand-made old
checkpoints under real LangGraph and under the façade; the results must be equal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compat.langgraph_venv import MISSING_REASON, langgraph_python, run_both

PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
PROGRAMS = sorted(PROGRAMS_DIR.glob("mg[0-9]*.py"))
_FOUND = langgraph_python()


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, Any]]:
    if _FOUND is None:
        pytest.skip(MISSING_REASON)
    return run_both(PROGRAMS, _FOUND)


@pytest.mark.parametrize("stem", [p.stem for p in PROGRAMS])
def test_program_runs_under_langgraph(stem: str, results: dict[str, dict[str, Any]]) -> None:
    got = results["langgraph"][stem]
    assert not (isinstance(got, dict) and set(got) in ({"raised"}, {"timeout"})), got


@pytest.mark.parametrize("stem", [p.stem for p in PROGRAMS])
def test_program_matches_langgraph(stem: str, results: dict[str, dict[str, Any]]) -> None:
    assert results["superstep"][stem] == results["langgraph"][stem]
