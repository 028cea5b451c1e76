"""``GET /threads/{id}/runs/{run_id}/tasks`` (read through the SDK's own HTTP client): each
task a run ran, with its start, its duration and its error, by the task ids the thread's
history names; whatever stream modes the run was asked for."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langgraph_sdk.errors import NotFoundError

from server.graphs import Numbers
from superstep_compat._internal._constants import CONFIG_KEY_ATTEMPT_OBSERVER
from superstep_compat.graph import START, StateGraph


async def test_a_runs_tasks_have_their_times_and_errors_by_task_id(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    run = await client.runs.create(tid, "two", input={"x": 1}, stream_mode="updates")
    await client.runs.join(tid, run["run_id"])
    tasks = await client.http.get(f"/threads/{tid}/runs/{run['run_id']}/tasks")
    assert [t["name"] for t in tasks] == ["a", "b"]
    assert all(t["duration_ms"] >= 0 and t["error"] is None for t in tasks)
    assert tasks[0]["started_at"] <= tasks[1]["started_at"]
    history = await client.threads.get_history(tid)
    ran = {t["id"] for snap in history for t in snap["tasks"]}
    assert {t["task_id"] for t in tasks} <= ran

    failed = await client.runs.create(tid, "failing", input={"x": 2})
    await client.runs.join(tid, failed["run_id"])
    tasks = await client.http.get(f"/threads/{tid}/runs/{failed['run_id']}/tasks")
    by_name = {t["name"]: t for t in tasks}
    assert by_name["a"]["error"] is None
    assert by_name["boom"]["error"] == "ValueError: boom at x=3"

    nested = await client.runs.wait(tid, "nested", input={"x": 1})
    assert nested == {"x": 5}
    last = (await client.runs.list(tid, limit=1))[0]
    tasks = await client.http.get(f"/threads/{tid}/runs/{last['run_id']}/tasks")
    assert {(t["checkpoint_ns"] != "", t["name"]) for t in tasks} == {
        (False, "child"),
        (True, "a"),
        (True, "b"),
        (False, "a"),
    }

    with pytest.raises(NotFoundError):
        other = (await client.threads.create())["thread_id"]
        await client.http.get(f"/threads/{other}/runs/{run['run_id']}/tasks")
    await client.threads.delete(tid)


async def test_a_retried_task_lists_each_attempt_with_the_error_that_ended_it(
    client: Any,
) -> None:
    tid = (await client.threads.create())["thread_id"]
    assert await client.runs.wait(tid, "retried", input={"x": 7}) == {"x": 108}
    last = (await client.runs.list(tid, limit=1))[0]
    tasks = await client.http.get(f"/threads/{tid}/runs/{last['run_id']}/tasks")
    by_name = {t["name"]: t for t in tasks}
    assert [a["attempt"] for a in by_name["a"]["attempts"]] == [1]
    assert by_name["a"]["attempts"][0]["error"] is None
    flaky = by_name["flaky"]
    assert flaky["error"] is None
    assert [(a["attempt"], a["error"], a["max_attempts"]) for a in flaky["attempts"]] == [
        (1, "ValueError: flaky attempt 1 at x=8", 3),
        (2, "ValueError: flaky attempt 2 at x=8", 3),
        (3, None, None),
    ]
    assert all(a["duration_ms"] >= 0 for a in flaky["attempts"])
    starts = [a["started_at"] for a in flaky["attempts"]]
    assert starts == sorted(starts)
    # the task ids are the history's
    history = await client.threads.get_history(tid)
    assert flaky["task_id"] in {t["id"] for snap in history for t in snap["tasks"]}

    # every attempt failed: the last error is the task's
    run = await client.runs.create(tid, "retried", input={"x": -5})
    await client.runs.join(tid, run["run_id"])
    tasks = await client.http.get(f"/threads/{tid}/runs/{run['run_id']}/tasks")
    flaky = next(t for t in tasks if t["name"] == "flaky")
    assert [a["error"] for a in flaky["attempts"]] == [
        f"ValueError: flaky attempt {n} at x=-4" for n in (1, 2, 3)
    ]
    assert flaky["error"] == "ValueError: flaky attempt 3 at x=-4"

    await client.threads.delete(tid)


def test_the_facades_attempt_observer_hears_every_attempt_sync_and_async() -> None:
    # the hook the server sets on a run's config (Superstep's own key, not LangGraph's):
    # each attempt of each task, whichever host (thread or event loop) performs it
    import asyncio

    from server.graphs import retried
    from superstep_compat._internal._constants import CONFIG_KEY_ATTEMPT_OBSERVER

    graph = retried()
    for x, run in (
        (20, lambda config: graph.invoke({"x": 20}, config)),
        (30, lambda config: asyncio.run(graph.ainvoke({"x": 30}, config))),
    ):
        heard: list[dict[str, Any]] = []
        assert run({"configurable": {CONFIG_KEY_ATTEMPT_OBSERVER: heard.append}}) == {"x": x + 101}
        flaky = [a for a in heard if a["name"] == "flaky"]
        assert [(a["attempt"], a["error"], a["max_attempts"]) for a in flaky] == [
            (1, f"ValueError: flaky attempt 1 at x={x + 1}", 3),
            (2, f"ValueError: flaky attempt 2 at x={x + 1}", 3),
            (3, None, None),
        ]
        assert len({a["task_id"] for a in flaky}) == 1  # one task, three attempts
        assert [a["attempt"] for a in heard if a["name"] == "a"] == [1]

    # an observer that raises is logged, never the run's failure
    def broken(report: dict[str, Any]) -> None:
        raise RuntimeError("observer bug")

    assert graph.invoke({"x": 40}, {"configurable": {CONFIG_KEY_ATTEMPT_OBSERVER: broken}}) == {
        "x": 141
    }


async def test_each_attempt_of_a_task_call_in_an_entrypoint_is_listed(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    assert await client.runs.wait(tid, "called", input=3) == 70
    last = (await client.runs.list(tid, limit=1))[0]
    tasks = await client.http.get(f"/threads/{tid}/runs/{last['run_id']}/tasks")
    fetched = [t for t in tasks if t["name"] == "fetch"]
    assert len(fetched) == 2 and len({t["task_id"] for t in fetched}) == 2
    for t, x in zip(sorted(fetched, key=lambda t: t["started_at"]), (3, 4), strict=True):
        assert t["error"] is None
        assert [(a["attempt"], a["error"], a["max_attempts"]) for a in t["attempts"]] == [
            (1, f"ConnectionError: fetch attempt 1 of {x}", 2),
            (2, None, None),
        ]
        assert all(a["duration_ms"] >= 0 for a in t["attempts"])
        assert t["attempts"][0]["started_at"] <= t["attempts"][1]["started_at"]
    # the entrypoint's own task has its single attempt
    (body,) = [t for t in tasks if t["name"] == "workflow"]
    assert [a["attempt"] for a in body["attempts"]] == [1]
    await client.threads.delete(tid)


async def test_an_attempt_stopped_at_its_timeout_is_listed_with_the_timeout(
    client: Any,
) -> None:
    # timeouts need an async run: the server runs one for a run streaming `events`
    tid = (await client.threads.create())["thread_id"]
    run = await client.runs.create(tid, "timed", input={"x": 4}, stream_mode=["events"])
    await client.runs.join(tid, run["run_id"])
    assert (await client.threads.get_state(tid))["values"] == {"x": 1004}
    tasks = await client.http.get(f"/threads/{tid}/runs/{run['run_id']}/tasks")
    (slow,) = [t for t in tasks if t["name"] == "slow"]
    assert slow["error"] is None
    first, second = slow["attempts"]
    assert first["attempt"] == 1 and first["max_attempts"] == 2
    assert first["error"].startswith("NodeTimeoutError: Node 'slow' ")
    assert 150 <= first["duration_ms"] < 4000
    assert (second["attempt"], second["error"], second["max_attempts"]) == (2, None, None)
    await client.threads.delete(tid)


async def test_each_attempt_of_a_task_call_in_a_graph_node_is_listed(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    assert await client.runs.wait(tid, "node_calls", input={"x": 5}) == {"x": 1050}
    last = (await client.runs.list(tid, limit=1))[0]
    tasks = await client.http.get(f"/threads/{tid}/runs/{last['run_id']}/tasks")
    (node,) = [t for t in tasks if t["name"] == "a"]
    (call,) = [t for t in tasks if t["name"] == "fetch"]
    assert [(a["attempt"], a["error"], a["max_attempts"]) for a in call["attempts"]] == [
        (1, "ConnectionError: fetch attempt 1 of 105", 2),
        (2, None, None),
    ]
    # the call ran within its node's task (the viewer places it so)
    assert node["started_at"] <= call["started_at"]
    assert call["started_at"] <= node["started_at"] + node["duration_ms"] / 1000
    await client.threads.delete(tid)


async def test_a_task_call_attempt_stopped_at_its_timeout_is_listed_with_the_timeout(
    client: Any,
) -> None:
    tid = (await client.threads.create())["thread_id"]
    run = await client.runs.create(tid, "timed_call", input=6, stream_mode=["events"])
    await client.runs.join(tid, run["run_id"])
    assert (await client.threads.get_state(tid))["values"] == 1006
    tasks = await client.http.get(f"/threads/{tid}/runs/{run['run_id']}/tasks")
    (call,) = [t for t in tasks if t["name"] == "slow"]
    first, second = call["attempts"]
    assert first["attempt"] == 1 and first["max_attempts"] == 2
    assert first["error"].startswith("NodeTimeoutError: Node 'slow' ")
    assert 150 <= first["duration_ms"] < 4000
    assert (second["attempt"], second["error"]) == (2, None)
    await client.threads.delete(tid)


async def test_an_attempt_stopped_at_the_step_timeout_is_told_with_a_timeout_error() -> None:
    # the server's observer on a graph with a step timeout (LangGraph's `step_timeout`: the
    # run raises TimeoutError); the attempt it stopped is told, with its duration
    async def sleepy(state: Numbers) -> dict[str, int]:
        await asyncio.sleep(5)
        return {"x": 0}

    builder = StateGraph(Numbers)
    builder.add_node("sleepy", sleepy)  # no timeout of its own
    builder.add_edge(START, "sleepy")
    graph = builder.compile()
    graph.step_timeout = 0.2
    told: list[dict[str, Any]] = []
    config = {"configurable": {CONFIG_KEY_ATTEMPT_OBSERVER: told.append}}
    with pytest.raises(TimeoutError):
        await graph.ainvoke({"x": 40}, config)
    (stopped,) = [r for r in told if r["name"] == "sleepy"]
    assert stopped["attempt"] == 1
    assert stopped["error"].startswith("TimeoutError: the step's timeout passed after ")
    assert 150 <= stopped["duration_ms"] < 4000
