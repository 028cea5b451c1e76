"""A task's `Runtime` is its run's (context, store, writer) with its own execution info.

The tasks copied from one step context share the runtime its first task made
(`RunContext.shared_runtime`): these pin down that the sharing never crosses what a runtime
is made of (another run's context or store, a stream writer of a ``custom`` stream, a node
with limits), and that each task still sees its own task id and step."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from superstep_compat.checkpoint.memory import InMemorySaver
from superstep_compat.graph import START, StateGraph
from superstep_compat.runtime import get_runtime
from superstep_compat.types import TimeoutPolicy


class State(TypedDict):
    seen: list[Any]


def _graph(checkpointer: Any = None) -> Any:
    def node(name: str) -> Any:
        def run(state: State) -> dict[str, Any]:
            rt = get_runtime()
            rt.stream_writer({"from": name})
            info = rt.execution_info
            seen = (name, rt.context, info.task_id, info.node_attempt)
            return {"seen": [*state["seen"], seen]}

        return run

    builder = StateGraph(State)
    builder.add_node("a", node("a"))
    builder.add_node("b", node("b"))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    return builder.compile(checkpointer=checkpointer)


def test_each_task_sees_its_own_task_id_and_its_runs_context() -> None:
    graph = _graph()
    first = graph.invoke({"seen": []}, context={"user": 1})["seen"]
    second = graph.invoke({"seen": []}, context={"user": 2})["seen"]
    assert [(n, c) for n, c, _, _ in first] == [("a", {"user": 1}), ("b", {"user": 1})]
    # a later run of the same graph gets its own context, not the runtime the last one shared
    assert [(n, c) for n, c, _, _ in second] == [("a", {"user": 2}), ("b", {"user": 2})]
    assert len({t for _, _, t, _ in first}) == 2  # a task id per task


def test_a_checkpointed_runs_tasks_share_no_runtime_across_threads() -> None:
    graph = _graph(InMemorySaver())
    for user in (1, 2, 3):
        config = {"configurable": {"thread_id": f"t{user}"}}
        seen = graph.invoke({"seen": []}, config, context={"user": user})["seen"]
        assert [c for _, c, _, _ in seen] == [{"user": user}, {"user": user}]


def test_a_custom_streams_tasks_each_write_through_the_runs_writer() -> None:
    graph = _graph()
    chunks = list(graph.stream({"seen": []}, stream_mode="custom"))
    assert chunks == [{"from": "a"}, {"from": "b"}]
    # and a plain invoke afterwards shares nothing with it (its writer writes nowhere)
    assert [n for n, *_ in graph.invoke({"seen": []})["seen"]] == ["a", "b"]


def test_a_node_with_limits_and_one_without_both_write_to_the_stream() -> None:
    async def limited(state: State) -> dict[str, Any]:
        get_runtime().stream_writer({"from": "limited"})
        return {"seen": [*state["seen"], "limited"]}

    def plain(state: State) -> dict[str, Any]:
        get_runtime().stream_writer({"from": "plain"})
        return {"seen": [*state["seen"], "plain"]}

    builder = StateGraph(State)
    builder.add_node("limited", limited, timeout=TimeoutPolicy(run_timeout=30))
    builder.add_node("plain", plain)
    builder.add_edge(START, "limited")
    builder.add_edge("limited", "plain")
    graph = builder.compile()

    async def main() -> list[Any]:
        return [c async for c in graph.astream({"seen": []}, stream_mode="custom")]

    assert asyncio.run(main()) == [{"from": "limited"}, {"from": "plain"}]
