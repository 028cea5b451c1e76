"""Differential tests of LangGraph's low-level `Pregel` and of the public names a program
imports (`programs/lp*.py`): output channels as given, writes to ``__pregel_tasks``, `Send`s
to low-level nodes, drawing a low-level graph, resuming a low-level thread. Each runs under
real LangGraph and under the façade, and the results must be equal.

Both run in one subprocess each (`programs/_driver.py`), at the same time; results are the
plain JSON of `programs/_plain.py`. Skipped when no real LangGraph is found.
"""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

PROGRAMS, results, test_program_runs_under_langgraph, test_program_matches_langgraph = (
    differential_program_tests("lp[0-9]*.py")
)


def test_every_case_has_a_program() -> None:
    assert len(PROGRAMS) >= 1
