"""Differential programs ``fa*``: checkpoints the façade saves with LangGraph's fields only (no
``__superstep_facade__`` blob) in the cases that carried it before (a join's target due, ...),
and threads continued from them; each runs under real LangGraph and under the façade, what
the saver holds and what the thread does compared equal."""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

(
    PROGRAMS,
    results,
    test_program_runs_under_langgraph,
    test_program_matches_langgraph,
) = differential_program_tests("fa[0-9]*.py")
