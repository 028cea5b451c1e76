"""Differential tests of what a task does and how it describes itself: each
`programs/k*.py` (a Command(graph=PARENT) goto keeping the parent node's edges, the
messages stream around subgraphs and its metadata, the reduce order of push and pull
writes, routing to missing targets, a task's path/triggers/namespace) runs under real
LangGraph and under the façade, and the results must be equal.

Both run in one subprocess each (`programs/_driver.py`), at the same time; results are the
plain JSON of `programs/_plain.py`. Skipped when no real LangGraph is found.
"""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

PROGRAMS, results, test_program_runs_under_langgraph, test_program_matches_langgraph = (
    differential_program_tests("k[0-9]*.py")
)


def test_every_case_has_a_program() -> None:
    assert len(PROGRAMS) >= 5
