"""Differential programs ``pg*``: known differences of the façade's Pregel loop from
LangGraph's (breakpoints before a low-level graph's first step, ...). Each runs under real
LangGraph and under the façade, and the results must be equal.

Both run in one subprocess each (`programs/_driver.py`), at the same time; results are the
plain JSON of `programs/_plain.py`. Skipped when no real LangGraph is found.
"""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

PROGRAMS, results, test_program_runs_under_langgraph, test_program_matches_langgraph = (
    differential_program_tests("pg[0-9]*.py")
)


def test_every_case_has_a_program() -> None:
    assert len(PROGRAMS) >= 1
