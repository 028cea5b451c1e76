"""A façade node's work is an effect of the run's host: with a ledger (`LEDGER_KEY`) every
task's outcome is recorded under its effect id, and a run repeated on the same input replays
them from the ledger without calling the node, nor the @task it called, again.

A @task call is an effect of its own (a nested effect of its node's effect): the host records
it in the same ledger under its own id, so a node re-run with its own outcome missing (it died
after the call, say) gets the call's result back from the ledger without calling it.

What this does not yet show (issue 12): a sync task alone in its superstep runs inline in the
node's reducer, outside the ledger (the async run below has no inline tasks)."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from superstep_compat.func import task
from superstep_compat.graph import START, StateGraph
from superstep_compat.pregel._run import LEDGER_KEY
from superstep_core.node import EffectCompleted


class State(TypedDict):
    topic: str
    notes: Annotated[list[str], operator.add]


class Ledger:
    """An in-memory `EffectLedger`: recorded results by effect id."""

    def __init__(self) -> None:
        self.results: dict[str, EffectCompleted] = {}

    def recorded(self, effect_id: str) -> EffectCompleted | None:
        return self.results.get(effect_id)

    def record(self, completed: EffectCompleted) -> None:
        self.results[completed.effect_id] = completed


def _graph(calls: list[str]) -> Any:
    @task
    def shout(text: str) -> str:
        calls.append(f"task shout({text})")
        return text.upper()

    async def research(state: State) -> dict[str, list[str]]:
        calls.append("node research")
        return {"notes": [shout(state["topic"]).result()]}

    async def outline(state: State) -> dict[str, list[str]]:
        calls.append("node outline")
        return {"notes": [f"outline of {state['topic']}"]}

    b = StateGraph(State)
    b.add_node("research", research)
    b.add_node("outline", outline)
    b.add_edge(START, "research")
    b.add_edge(START, "outline")
    return b.compile()


def test_node_work_and_its_task_replay_from_the_ledger_without_running_again() -> None:
    calls: list[str] = []
    app = _graph(calls)
    ledger = Ledger()
    config = {"configurable": {"thread_id": "t", LEDGER_KEY: ledger}}
    first = asyncio.run(app.ainvoke({"topic": "tides", "notes": []}, config))
    assert sorted(calls) == ["node outline", "node research", "task shout(tides)"]
    assert len(ledger.results) >= 2  # the two nodes' tasks at least

    calls.clear()
    again = asyncio.run(app.ainvoke({"topic": "tides", "notes": []}, config))
    assert again == first
    assert sorted(first["notes"]) == ["TIDES", "outline of tides"]
    assert calls == []  # nothing was run: every task's outcome came from the ledger


def test_without_the_ledger_the_work_runs_again() -> None:
    calls: list[str] = []
    app = _graph(calls)
    config = {"configurable": {"thread_id": "t"}}
    asyncio.run(app.ainvoke({"topic": "tides", "notes": []}, config))
    asyncio.run(app.ainvoke({"topic": "tides", "notes": []}, config))
    assert calls.count("node research") == 2


def test_a_task_call_is_recorded_as_an_effect_of_its_own_and_replayed() -> None:
    calls: list[str] = []
    app = _graph(calls)
    ledger = Ledger()
    config = {"configurable": {"thread_id": "t", LEDGER_KEY: ledger}}
    first = asyncio.run(app.ainvoke({"topic": "tides", "notes": []}, config))
    task_entries = {k: v for k, v in ledger.results.items() if v.tag == "shout"}
    assert [v.result for v in task_entries.values()] == ["TIDES"]

    # Keep only the task call's record: the nodes run again, the task call does not.
    ledger.results = dict(task_entries)
    calls.clear()
    again = asyncio.run(app.ainvoke({"topic": "tides", "notes": []}, config))
    assert again == first
    assert sorted(calls) == ["node outline", "node research"]
