"""Checkpoints of older LangGraph formats (`superstep_compat.pregel._migrate`, reached as
a compiled graph's ``_migrate_checkpoint``): `programs/mg*.py` migrate hand-made old
checkpoints under real LangGraph and under the façade; the results must be equal."""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

PROGRAMS, results, test_program_runs_under_langgraph, test_program_matches_langgraph = (
    differential_program_tests("mg[0-9]*.py")
)
