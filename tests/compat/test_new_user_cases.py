"""Differential tests written as a new user writes LangGraph programs: each `programs/b*.py`
(a prebuilt ReAct agent with tools, human-in-the-loop with time travel, Send map-reduce into
a subgraph, the functional API, SQLite persistence with a Store and durability modes, bad
graphs and bad updates, async message streams and events, subgraph state edits, retry and
cache policies with a context schema, a tool that interrupts; from b60 on, a demanding
user's: Command(graph=PARENT) after a nested interrupt with every stream mode, edits of
paused nested subgraphs, message removal, cached routing, entrypoint.final, Runtime with a
store, RemainingSteps at its edges, durability modes, swarm handoffs, retried subgraphs,
answers by id, fresh subgraphs taking an answer, schema mismatches, error messages; from
b86 on, a user porting real code: the Runnable schemas of MessagesState graphs, output
schemas, the task an exception escaped from, checkpoint chunks of a continued thread,
handoffs in the messages stream, LCEL chains as nodes; from b92 on, edits before any run, bad
state values, the functional API's execution info, waiting edges with Sends and loops; from
b98 on, the recursion limit reached in a task's setup, bad updates of a pydantic state, the
versions_seen of Send-only nodes, tasks cancelled by a step timeout or by the caller) runs
under real LangGraph and under the façade, and the results must be equal.

Both run in one subprocess each (`programs/_driver.py`), at the same time; results are the
plain JSON of `programs/_plain.py`. Skipped when no real LangGraph is found.
"""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

PROGRAMS, results, test_program_runs_under_langgraph, test_program_matches_langgraph = (
    differential_program_tests("b[0-9]*.py")
)


def test_every_case_has_a_program() -> None:
    assert len(PROGRAMS) >= 1
