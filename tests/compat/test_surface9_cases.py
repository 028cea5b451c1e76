"""Differential programs ``sf*``: small surfaces of compiled graphs and of what their runs
report (graph attributes, stream metadata namespaces, interrupt ids); each runs under real
LangGraph and under the façade, results compared equal."""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

(
    PROGRAMS,
    results,
    test_program_runs_under_langgraph,
    test_program_matches_langgraph,
) = differential_program_tests("sf[0-9]*.py")
