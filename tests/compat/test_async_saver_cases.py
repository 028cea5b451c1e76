"""Differential tests of async checkpoint savers bound to an event loop (issue #13): each
program in `programs/as*.py` runs under real LangGraph and under the façade and must give the
same result, with a timeout on every await so that a deadlock fails instead of hanging.

`as01` is the façade's own invariant as much as LangGraph's behaviour: the saver's coroutines
run on its own loop only (see `superstep_compat.pregel._saver_bridge`)."""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

PROGRAMS, results, test_program_runs_under_langgraph, test_program_matches_langgraph = (
    differential_program_tests("as[0-9]*.py")
)
