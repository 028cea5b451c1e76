"""Differential programs `v*` (programs/), from a porting pass that wrote user programs the
way LangGraph's how-to guides do and diffed them: a sync stream's parallel step in the
order its tasks ended (v01), Runnable nodes streamed under `astream_events` (v02), the
order of a task's saved writes when it returns a `Command` with a goto (v03), a `Command`
as an entrypoint thread's first input (v04), a resumed step's cached updates in LangGraph's
task order (v05); from the next pass: a sync `subgraphs=True` stream stopped while a
subgraph node runs keeps that task's writes (v06), an interrupted task's chunks streamed
as it ends under the live modes (v07). Each runs under real LangGraph and under the
façade; the two results must be equal."""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

(
    PROGRAMS,
    results,
    test_program_runs_under_langgraph,
    test_program_matches_langgraph,
) = differential_program_tests("v[0-9]*.py")
