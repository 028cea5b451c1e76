"""Differential programs `w*` (programs/), from a porting pass that wrote realistic apps of
kinds the other programs did not cover: a hand-built supervisor of two ReAct agents with
handoff tools (w01; the graph's JSON names the prebuilt agent's model nodes as LangGraph's
`RunnableCallable`s), map-reduce over a pydantic state (w02), a ``checkpointer=True``
subgraph whose parallel interrupts are answered by id (w03), a tool-calling agent streamed in
three modes with subgraphs (w04), a semantically indexed store (w05), reviewing tool calls
at ``interrupt_before`` (w06), a summarizing chatbot (w07), a ``Command``-routed network
stopped by its recursion limit (w08), langchain custom events (w09), durability modes with
forks and history filters (w10), the prebuilt agent's hooks, prompt, state schema,
structured response and versions (w11), failures among parallel async tasks (w12: a task
its runner cancelled because a sibling failed keeps ``CancelledError()`` as its error, and
the error saved is the failed task's, whichever the engine's order names first), the
checkpointer's own API (w13), a task that asks beside a sibling that fails (w14: the failed
thread keeps the question as LangGraph saved it when the task ended), a failed subgraph's
stream and views (w15: a sync subgraph's task starts stream before its tasks end;
continued, a subgraph that failed half way goes on from its checkpoint), which subgraphs go
on from their checkpoints in a continued run's first step (w16), LangGraph's warning for a
``durability`` given to a graph without a checkpointer (w17), failed Send branches running
subgraphs and an entrypoint calling one, continued (w18), ``update_state`` with a `Command`
and no ``as_node`` on a paused thread (w19: written as START, its goto still routes),
``Command(resume=..., goto=...)`` (w20: the goto's nodes run in the resumed step), a
``checkpointer=True`` subgraph when its parent is replayed or forked at a past checkpoint
(w21: it starts on that checkpoint's state, not told it resumes). Each
runs under real LangGraph and under the façade; the two results must be equal."""

from __future__ import annotations

from compat.langgraph_venv import differential_program_tests

(
    PROGRAMS,
    results,
    test_program_runs_under_langgraph,
    test_program_matches_langgraph,
) = differential_program_tests("w[0-9]*.py")
