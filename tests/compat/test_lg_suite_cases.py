"""Differential tests of behaviours found failing when LangGraph's own test suite runs against
the façade (`tools/lg-suite.sh`: test_retry.py, test_pregel*.py): a `Send`'s timeout through the
checkpoint serializer and as its task's limit, error handlers beside running siblings, ...
Each `programs/l*.py` runs under real LangGraph and under the façade, and the results must be
equal.

Both run in one subprocess each (`programs/_driver.py`), at the same time; results are the
plain JSON of `programs/_plain.py`. Skipped when no real LangGraph is found.
"""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

PROGRAMS, results, test_program_runs_under_langgraph, test_program_matches_langgraph = (
    differential_program_tests("l[0-9]*.py")
)


def test_every_case_has_a_program() -> None:
    assert len(PROGRAMS) >= 1
