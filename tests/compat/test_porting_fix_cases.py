"""Differential programs ``px*``: façade behaviours a porting pass found apart from LangGraph
(a parent command escaping the root graph, checkpoint chunk payloads, exception types);
each runs under real LangGraph and under the façade, results compared equal."""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

(
    PROGRAMS,
    results,
    test_program_runs_under_langgraph,
    test_program_matches_langgraph,
) = differential_program_tests("px[0-9]*.py")
