"""Differential tests written as a new user writes LangGraph programs: each `programs/b*.py`
(a prebuilt ReAct agent with tools, human-in-the-loop with time travel, Send map-reduce into
a subgraph, the functional API, SQLite persistence with a Store and durability modes, bad
graphs and bad updates, async message streams and events, subgraph state edits, retry and
cache policies with a context schema, a tool that interrupts; from b60 on, a demanding
user's: Command(graph=PARENT) after a nested interrupt with every stream mode, edits of
paused nested subgraphs, message removal, cached routing, entrypoint.final, Runtime with a
store, RemainingSteps at its edges, durability modes, swarm handoffs, retried subgraphs,
answers by id, fresh subgraphs taking an answer, schema mismatches, error messages) runs
under real LangGraph and under the façade, and the results must be equal.

Both run in one subprocess each (`programs/_driver.py`), at the same time; results are the
plain JSON of `programs/_plain.py`. Skipped when no real LangGraph is found.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compat.langgraph_venv import MISSING_REASON, langgraph_python, run_both

PROGRAMS_DIR = Path(__file__).resolve().parent / "programs"
PROGRAMS = sorted(PROGRAMS_DIR.glob("b[0-9]*.py"))
_FOUND = langgraph_python()

pytestmark = pytest.mark.skipif(_FOUND is None, reason=MISSING_REASON)


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, Any]]:
    assert _FOUND is not None
    return run_both(PROGRAMS, _FOUND)


def test_every_case_has_a_program() -> None:
    assert len(PROGRAMS) >= 1


@pytest.mark.parametrize("stem", [p.stem for p in PROGRAMS])
def test_program_runs_under_langgraph(stem: str, results: dict[str, dict[str, Any]]) -> None:
    """A program that fails under real LangGraph would compare equal for the wrong reason."""
    got = results["langgraph"][stem]
    assert not (isinstance(got, dict) and set(got) in ({"raised"}, {"timeout"})), got


@pytest.mark.parametrize("stem", [p.stem for p in PROGRAMS])
def test_program_matches_langgraph(stem: str, results: dict[str, dict[str, Any]]) -> None:
    assert results["superstep"][stem] == results["langgraph"][stem]
