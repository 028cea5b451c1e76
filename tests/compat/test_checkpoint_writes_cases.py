"""Differential programs ``cw*``: what a checkpoint saves, field by field, as LangGraph
writes it (``updated_channels``, channel versions, pending writes of no task); each runs
under real LangGraph and under the façade, results compared equal."""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

(
    PROGRAMS,
    results,
    test_program_runs_under_langgraph,
    test_program_matches_langgraph,
) = differential_program_tests("cw[0-9]*.py")
