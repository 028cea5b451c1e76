"""Differential tests of state edits and continued threads: each `programs/s*.py` (one
reported case per program: partial resume by interrupt id, subgraph update_state,
update_state with a Command, context coercion, continued streams, bulk_update_state,
recursion budget on a continued thread, durability, update_state as END), each
`programs/i*.py` (interrupts, breakpoints, commanding a stopped thread) and each
`programs/ue*.py` (update_state as ``__input__``, edits of low-level graphs) runs under real
LangGraph and under the façade, and the results must be equal.

Both run in one subprocess each (`programs/_driver.py`), at the same time; results are the
plain JSON of `programs/_plain.py`. Skipped when no real LangGraph is found. The tests at
the end run on the façade alone: shapes whose outcome under LangGraph is a race.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from compat.langgraph_venv import differential_program_tests
from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.graph import START, StateGraph
from superstep_compat.types import Send

PROGRAMS, results, test_program_runs_under_langgraph, test_program_matches_langgraph = (
    differential_program_tests("s[0-9]*.py", "i[0-9]*.py", "ue[0-9]*.py")
)


def test_every_case_has_a_program() -> None:
    assert len(PROGRAMS) >= 10


# --- the façade alone: a failed step's finished tasks, where LangGraph's own outcome races ----


class _Log(TypedDict):
    log: Annotated[list[str], operator.add]


def _fan_out(calls: list[str], broken: dict[str, bool]) -> StateGraph[Any, Any, Any, Any]:
    def work(item: dict[str, str]) -> dict[str, list[str]]:
        calls.append(item["item"])
        if item["item"] == "y" and broken["on"]:
            raise RuntimeError("no y")
        return {"log": [item["item"]]}

    b: StateGraph[Any, Any, Any, Any] = StateGraph(_Log)
    b.add_node("work", work)
    b.add_conditional_edges(START, lambda s: [Send("work", {"item": i}) for i in "xyz"])
    return b


def test_a_failed_send_is_the_only_task_its_step_runs_again() -> None:
    calls: list[str] = []
    broken = {"on": True}
    saver = InMemorySaver()
    graph = _fan_out(calls, broken).compile(checkpointer=saver)
    cfg: Any = {"configurable": {"thread_id": "s"}}
    with pytest.raises(RuntimeError, match="no y"):
        graph.invoke({"log": []}, cfg)
    state = graph.get_state(cfg)
    assert state.next == ("work",)
    assert state.values == {"log": ["x", "z"]}
    ids = {t.id for t in state.tasks}
    found = saver.get_tuple(cfg)
    assert found is not None and found.pending_writes
    assert {task_id for task_id, _, _ in found.pending_writes} <= ids
    broken["on"] = False
    assert graph.invoke(None, cfg) == {"log": ["x", "y", "z"]}
    assert sorted(calls) == ["x", "y", "y", "z"]


def test_an_async_run_continues_a_failed_step_with_only_the_failed_task() -> None:
    calls: list[str] = []
    broken = {"on": True}

    async def good(s: _Log) -> dict[str, list[str]]:
        calls.append("good")
        return {"log": ["good"]}

    async def bad(s: _Log) -> dict[str, list[str]]:
        calls.append("bad")
        if broken["on"]:
            raise RuntimeError("boom")
        return {"log": ["bad"]}

    b: StateGraph[Any, Any, Any, Any] = StateGraph(_Log)
    b.add_node("good", good)
    b.add_node("bad", bad)
    b.add_edge(START, "good")
    b.add_edge(START, "bad")
    graph = b.compile(checkpointer=InMemorySaver())
    cfg: Any = {"configurable": {"thread_id": "a"}}
    with pytest.raises(RuntimeError, match="boom"):
        asyncio.run(graph.ainvoke({"log": []}, cfg))
    broken["on"] = False
    chunks = asyncio.run(_collect_async(graph.astream(None, cfg, stream_mode="updates")))
    assert chunks == [
        {"good": {"log": ["good"]}, "__metadata__": {"cached": True}},
        {"bad": {"log": ["bad"]}},
    ]
    assert sorted(calls) == ["bad", "bad", "good"]
    assert graph.get_state(cfg).values == {"log": ["bad", "good"]}


async def _collect_async(stream: Any) -> list[Any]:
    return [chunk async for chunk in stream]


def test_a_failed_step_with_durability_exit_is_saved_once_with_its_pending_writes() -> None:
    calls: list[str] = []
    broken = {"on": True}
    saver = InMemorySaver()
    graph = _fan_out(calls, broken).compile(checkpointer=saver)
    cfg: Any = {"configurable": {"thread_id": "e"}}
    with pytest.raises(RuntimeError, match="no y"):
        graph.invoke({"log": []}, cfg, durability="exit")
    assert [h.metadata["step"] for h in graph.get_state_history(cfg)] == [0]
    broken["on"] = False
    assert graph.invoke(None, cfg, durability="exit") == {"log": ["x", "y", "z"]}
    assert [h.metadata["step"] for h in graph.get_state_history(cfg)] == [1, 0]
