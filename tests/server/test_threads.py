"""Threads and their state (``GET|POST state``, at a checkpoint, ``as_node``, history,
status with interrupts), driven by the official ``langgraph-sdk`` client."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langgraph_sdk.errors import (
    BadRequestError,
    ConflictError,
    NotFoundError,
    UnprocessableEntityError,
)


async def test_create_get_update_search_count_delete(client: Any) -> None:
    tag = uuid.uuid4().hex
    made = await client.threads.create(metadata={"tag": tag, "n": 1})
    assert made["status"] == "idle"
    assert made["metadata"] == {"tag": tag, "n": 1}
    assert made["values"] is None and made["interrupts"] == {}
    assert await client.threads.get(made["thread_id"]) == made
    with pytest.raises(ConflictError):
        await client.threads.create(thread_id=made["thread_id"])
    again = await client.threads.create(thread_id=made["thread_id"], if_exists="do_nothing")
    assert again["thread_id"] == made["thread_id"]
    patched = await client.threads.update(made["thread_id"], metadata={"n": 2})
    assert patched["metadata"] == {"tag": tag, "n": 2}
    other = await client.threads.create(metadata={"tag": tag, "n": 3})
    found = await client.threads.search(metadata={"tag": tag})
    assert [t["thread_id"] for t in found] == [other["thread_id"], made["thread_id"]]
    oldest_first = await client.threads.search(metadata={"tag": tag}, sort_order="asc")
    assert [t["thread_id"] for t in oldest_first] == [made["thread_id"], other["thread_id"]]
    assert await client.threads.count(metadata={"tag": tag}) == 2
    assert await client.threads.search(ids=[other["thread_id"]], limit=5) == [
        await client.threads.get(other["thread_id"])
    ]
    await client.threads.delete(made["thread_id"])
    with pytest.raises(NotFoundError, match=f"Thread with ID {made['thread_id']} not found"):
        await client.threads.get(made["thread_id"])
    with pytest.raises(NotFoundError):
        await client.threads.delete(made["thread_id"])
    with pytest.raises(UnprocessableEntityError):
        await client.threads.search(status="sleeping")  # type: ignore[arg-type]


async def test_state_after_a_run_and_at_a_checkpoint(client: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    result = await client.runs.wait(tid, "two", input={"x": 1})
    assert result == {"x": 4}
    state = await client.threads.get_state(tid)
    assert state["values"] == {"x": 4}
    assert state["next"] == []
    assert state["checkpoint"]["thread_id"] == tid
    assert state["metadata"]["step"] == 2
    history = await client.threads.get_history(tid)
    assert [h["values"] for h in history] == [{"x": 4}, {"x": 2}, {"x": 1}, {}]
    assert history[0]["checkpoint"] == state["checkpoint"]
    assert history[1]["checkpoint"] == state["parent_checkpoint"]
    # the reference's deprecated top-level ids, on every state (not only an empty one)
    assert state["checkpoint_id"] == state["checkpoint"]["checkpoint_id"]
    assert state["parent_checkpoint_id"] == state["parent_checkpoint"]["checkpoint_id"]
    assert history[-1]["parent_checkpoint_id"] is None
    middle = history[1]["checkpoint"]
    at = await client.threads.get_state(tid, checkpoint_id=middle["checkpoint_id"])
    assert at["values"] == {"x": 2} and at["next"] == ["b"]
    posted = await client.threads.get_state(tid, checkpoint=middle)
    assert posted["values"] == {"x": 2}
    limited = await client.threads.get_history(tid, limit=2)
    assert [h["values"] for h in limited] == [{"x": 4}, {"x": 2}]
    before = await client.threads.get_history(tid, before=middle["checkpoint_id"])
    assert [h["values"] for h in before] == [{"x": 1}, {}]
    by_step = await client.threads.get_history(tid, metadata={"step": 1})
    assert [h["values"] for h in by_step] == [{"x": 2}]
    # the viewer's read-only /history/steps: the same entries without their states
    steps = await client.http.post(f"/threads/{tid}/history/steps", json={"limit": 2})
    assert [{**h, "values": None} for h in limited] == steps
    older = await client.http.post(
        f"/threads/{tid}/history/steps", json={"before": middle["checkpoint_id"]}
    )
    assert [h["checkpoint"] for h in older] == [h["checkpoint"] for h in before]
    with pytest.raises(NotFoundError):
        await client.threads.get_state(tid, checkpoint_id=str(uuid.uuid4()))
    thread_row = await client.threads.get(tid)
    assert thread_row["status"] == "idle" and thread_row["values"] == {"x": 4}
    assert thread_row["metadata"]["graph_id"] == "two"


async def test_update_state_as_node(client: Any) -> None:
    thread = await client.threads.create(graph_id="two")
    tid = thread["thread_id"]
    await client.runs.wait(tid, "two", input={"x": 1})
    updated = await client.threads.update_state(tid, {"x": 10}, as_node="a")
    assert updated["checkpoint"]["thread_id"] == tid
    state = await client.threads.get_state(tid)
    assert state["values"] == {"x": 10}
    assert state["next"] == ["b"]  # as if `a` wrote it: `b` runs next
    assert state["checkpoint"] == updated["checkpoint"]
    assert (await client.threads.get(tid))["status"] == "interrupted"
    resumed = await client.runs.wait(tid, "two", input=None)
    assert resumed == {"x": 20}
    assert state["metadata"]["source"] == "update" and state["metadata"]["graph_id"] == "two"
    with pytest.raises(BadRequestError, match="Node nowhere does not exist"):
        await client.threads.update_state(tid, {"x": 1}, as_node="nowhere")


async def test_interrupt_status_and_resume(client: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    paused = await client.runs.wait(tid, "review", input={"text": "hi", "log": []})
    assert paused["text"] == "hi (drafted)"
    [pending] = paused["__interrupt__"]
    assert pending["value"] == {"question": "approve?", "text": "hi (drafted)"}
    row = await client.threads.get(tid)
    assert row["status"] == "interrupted"
    [(task_id, interrupts)] = row["interrupts"].items()
    assert interrupts[0]["id"] == pending["id"]
    state = await client.threads.get_state(tid)
    assert state["next"] == ["review"]
    assert state["interrupts"][0]["value"]["question"] == "approve?"
    assert state["tasks"][0]["id"] == task_id and state["tasks"][0]["name"] == "review"
    done = await client.runs.wait(tid, "review", command={"resume": "yes"})
    assert done["text"] == "hi (drafted) -> yes"
    assert done["log"] == ["draft", "review", "publish"]
    row = await client.threads.get(tid)
    assert row["status"] == "idle" and row["interrupts"] == {}


async def test_error_status(client: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    with pytest.raises(Exception, match="ValueError: boom at x=6"):
        await client.runs.wait(tid, "failing", input={"x": 5})
    other = await client.threads.create()
    out = await client.runs.wait(other["thread_id"], "failing", input={"x": 1}, raise_error=False)
    assert out == {"__error__": {"error": "ValueError", "message": "boom at x=2"}}
    row = await client.threads.get(tid)
    assert row["status"] == "error"
    assert row["error"] == {"error": "ValueError", "message": "boom at x=6"}
    state = await client.threads.get_state(tid)
    assert state["values"] == {"x": 6}  # the failed run kept its last checkpoint
    assert state["next"] == ["boom"]
    # the failed task's error as LangGraph keeps it (its repr), not quoted once more
    assert [t["error"] for t in state["tasks"]] == ["ValueError('boom at x=6')"]
    assert "boom at x=6" in state["tasks"][0]["error"]


async def test_prune_deletes_threads(client: Any) -> None:
    keep = await client.threads.create()
    gone = [await client.threads.create() for _ in range(2)]
    await client.runs.wait(gone[0]["thread_id"], "two", input={"x": 1})
    answer = await client.threads.prune([t["thread_id"] for t in gone] + [str(uuid.uuid4())])
    assert answer == {"pruned_count": 2}
    for thread in gone:
        with pytest.raises(NotFoundError):
            await client.threads.get(thread["thread_id"])
    assert (await client.threads.get(keep["thread_id"]))["thread_id"] == keep["thread_id"]


async def test_create_a_thread_from_supersteps(client: Any) -> None:
    thread = await client.threads.create(
        graph_id="review",
        supersteps=[
            {"updates": [{"values": {"text": "seed", "log": []}, "as_node": "__start__"}]},
            {
                "updates": [
                    {"values": {"text": "seed (drafted)", "log": ["draft"]}, "as_node": "draft"}
                ]
            },
        ],
    )
    tid = thread["thread_id"]
    assert thread["values"] == {"text": "seed (drafted)", "log": ["draft"]}
    state = await client.threads.get_state(tid)
    assert state["next"] == ["review"]
    paused = await client.runs.wait(tid, "review", input=None)
    assert paused["__interrupt__"][0]["value"]["text"] == "seed (drafted)"
    with pytest.raises(UnprocessableEntityError) as bad:
        await client.threads.create(
            graph_id="review", supersteps=[{"updates": [{"values": {}, "as_node": "nowhere"}]}]
        )
    assert "supersteps" in str(bad.value)


async def test_a_seeding_superstep_may_be_a_command(client: Any) -> None:
    """As if ``draft`` had returned ``Command(update=..., goto="jump")``: its update is
    written and ``jump`` is scheduled beside ``draft``'s own edge to ``review``."""
    thread = await client.threads.create(
        graph_id="review",
        supersteps=[
            {"updates": [{"values": {"text": "seed", "log": []}, "as_node": "__start__"}]},
            {
                "updates": [
                    {
                        "values": None,
                        "command": {
                            "update": {"text": "by command", "log": ["cmd"]},
                            "goto": "jump",
                        },
                        "as_node": "draft",
                    }
                ]
            },
        ],
    )
    tid = thread["thread_id"]
    assert thread["values"] == {"text": "by command", "log": ["cmd"]}
    state = await client.threads.get_state(tid)
    assert sorted(state["next"]) == ["jump", "review"]
    with pytest.raises(UnprocessableEntityError) as bad:
        await client.threads.create(
            graph_id="review",
            supersteps=[{"updates": [{"values": None, "command": "jump", "as_node": "draft"}]}],
        )
    assert "command" in str(bad.value)


async def test_a_thread_no_run_has_given_a_graph_reads_empty(client: Any) -> None:
    # as the reference answers a new thread (a chat front-end loads one before its first run)
    tid = (await client.threads.create())["thread_id"]
    state = await client.threads.get_state(tid)
    assert state["values"] == {} and state["next"] == [] and state["checkpoint"] is None
    assert await client.threads.get_history(tid) == []
    from langgraph_sdk.errors import BadRequestError

    with pytest.raises(BadRequestError, match="has no assigned graph ID"):
        await client.threads.update_state(tid, {"x": 1})
    # its first run gives it one
    assert await client.runs.wait(tid, "two", input={"x": 1}) == {"x": 4}
    assert (await client.threads.get_state(tid))["values"] == {"x": 4}


async def test_a_subgraph_tasks_checkpoint_in_history_is_langgraphs_config(client: Any) -> None:
    # as the reference shows it: the task's configurable as LangGraph gives it (thread_id
    # and the subgraph's checkpoint_ns), no checkpoint_id
    tid = (await client.threads.create())["thread_id"]
    await client.runs.wait(tid, "nested", input={"x": 1})
    shown = [
        t["checkpoint"]
        for h in await client.threads.get_history(tid)
        for t in h["tasks"]
        if t["name"] == "child"
    ]
    assert shown and all(set(c) == {"thread_id", "checkpoint_ns"} for c in shown)
    assert all(c["thread_id"] == tid and c["checkpoint_ns"].startswith("child:") for c in shown)
