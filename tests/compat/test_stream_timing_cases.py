"""Differential programs ``st*``: when a root stream's nodes run relative to what its
consumer pulls (LangGraph's lazy stream: task starts before their nodes), sync and async;
each runs under real LangGraph and under the façade, results compared equal."""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

(
    PROGRAMS,
    results,
    test_program_runs_under_langgraph,
    test_program_matches_langgraph,
) = differential_program_tests("st[0-9]*.py")
