"""Differential programs `u*` (programs/): what a user porting LangGraph programs met that
differed: error texts and attributes of small surfaces (u01), a cached task's start events
(u02), the keys of the config a node sees (u03), invoke's result when the first node
interrupts before any step wrote (u04), the state methods given a config without
``configurable`` (u05), `update_state` without ``as_node`` after an edit (u06), a `Command`
as a new thread's first input (u07). Each runs under real LangGraph and under the façade;
the two results must be equal."""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

(
    PROGRAMS,
    results,
    test_program_runs_under_langgraph,
    test_program_matches_langgraph,
) = differential_program_tests("u[0-9]*.py")
