"""A façade node's work is an effect of the run's host: with a ledger (`LEDGER_KEY`) every
task's outcome is recorded under its effect id, and a run repeated on the same input replays
them from the ledger without calling the node, nor the @task it called, again.

A @task call is an effect of its own (a nested effect of its node's effect): the host records
it in the same ledger under its own id, so a node re-run with its own outcome missing (it died
after the call, say) gets the call's result back from the ledger without calling it.

A node's task is an effect of a registered kind whose request is plain data (`TaskRequest`), so
any host that registers the façade's performer for it can run a façade graph: below, the
engine's durable host runs one on a checkpoint saver, records every effect (node tasks and
@task calls) and its input log, replays the thread from that log without calling any user
code, and recovers a run that died inside a node without calling its finished @task again."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from superstep_compat.func import task
from superstep_compat.graph import START, StateGraph
from superstep_compat.pregel._run_input import INPUT_EVENT
from superstep_compat.pregel._run_options import LEDGER_KEY
from superstep_compat.pregel._task_context import RunContext
from superstep_compat.pregel._work import TASK_KIND, TaskPerformer, TaskRequest
from superstep_core.host import DurableRunner
from superstep_core.host.thread_checkpoints import _key
from superstep_core.node import EffectCompleted, External
from superstep_core.persistence import Codec


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


# --- any host: the engine's durable host runs a façade graph, records, replays -------------


class Crash(BaseException):
    """The process dying: not an `Exception`, so no host catches it as a failed effect."""


def _sync_graph(calls: list[str], crash_after_task: list[bool] | None = None) -> Any:
    @task
    def shout(text: str) -> str:
        calls.append(f"task shout({text})")
        return text.upper()

    def research(state: State) -> dict[str, list[str]]:
        calls.append("node research")
        loud = shout(state["topic"]).result()
        if crash_after_task:
            crash_after_task.pop()
            raise Crash
        return {"notes": [loud]}

    def outline(state: State) -> dict[str, list[str]]:
        calls.append("node outline")
        return {"notes": [f"outline of {state['topic']}"]}

    b = StateGraph(State)
    b.add_node("research", research)
    b.add_node("outline", outline)
    b.add_edge(START, "research")
    b.add_edge("research", "outline")
    return b.compile()


def _durable(app: Any, saver: InMemorySaver) -> DurableRunner:
    config = {"configurable": {"thread_id": "t"}}
    performer = TaskPerformer(app.runner, lambda: RunContext(config=config))
    return DurableRunner(saver, {TASK_KIND: performer.perform})


def test_a_sync_run_records_a_task_alone_in_its_step_too() -> None:
    # each node here is alone in its step: it is still the host's effect, never run inline
    calls: list[str] = []
    app = _sync_graph(calls)
    ledger = Ledger()
    config = {"configurable": {"thread_id": "t", LEDGER_KEY: ledger}}
    first = app.invoke({"topic": "tides", "notes": []}, config)
    assert first["notes"] == ["TIDES", "outline of tides"]
    calls.clear()
    assert app.invoke({"topic": "tides", "notes": []}, config) == first
    assert calls == []


def test_a_node_task_is_a_plain_data_effect_the_codec_stores() -> None:
    request = TaskRequest("research", "research:3", {"topic": "tides"}, None, ("yes",), 2)
    codec = Codec()
    assert codec.loads(codec.dumps(request)) == request


def test_any_host_runs_a_facade_graph_records_it_and_replays_it_from_the_log() -> None:
    calls: list[str] = []
    app = _sync_graph(calls)
    saver = InMemorySaver()
    runner = _durable(app, saver)
    dx = runner.start(app.engine, "t")
    ex = dx.send(External(INPUT_EVENT, {"topic": "tides", "notes": []}))
    assert ex.values["notes"] == ["TIDES", "outline of tides"]
    assert calls == ["node research", "task shout(tides)", "node outline"]
    # the input's superstep, then one superstep (one checkpoint) per LangGraph step: each
    # node's work is performed inside the superstep that asked for it
    assert [(h.step, h.written) for h in runner.history("t")] == [
        (0, ()),
        (1, ("notes", "topic")),
        (2, ("notes",)),
        (3, ("notes",)),
    ]
    recorded = [  # the ledger's keys, from its pending writes' task ids
        _key(task_id)
        for writes in saver.writes.values()
        for (task_id, _), _ in writes.items()
        if task_id.startswith("effect")
    ]
    assert any(key.endswith("/0:shout") for key in recorded)  # the @task call, on its own
    assert sum(key.startswith("t/research:") for key in recorded) == 1  # its node

    calls.clear()
    report = runner.replay(app.engine, "t")
    assert report.matched, report.mismatches
    assert report.execution is not None and report.execution.values == ex.values
    assert calls == []  # nodes and @task calls alike came from the log


def test_a_run_that_died_in_a_node_is_recovered_without_calling_its_finished_task() -> None:
    calls: list[str] = []
    app = _sync_graph(calls, crash_after_task=[True])
    saver = InMemorySaver()
    runner = _durable(app, saver)
    dx = runner.start(app.engine, "t")
    with pytest.raises(Crash):
        dx.send(External(INPUT_EVENT, {"topic": "tides", "notes": []}))
    assert calls == ["node research", "task shout(tides)"]

    calls.clear()
    ex = runner.recover(app.engine, "t").run()
    assert ex.values["notes"] == ["TIDES", "outline of tides"]
    # the node runs again; its @task call's result comes from the ledger
    assert calls == ["node research", "node outline"]
    assert runner.replay(app.engine, "t").matched
