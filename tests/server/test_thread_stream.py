"""The thread-level stream (``GET /threads/{id}/stream``) through the official
``langgraph-sdk`` (``client.threads.join_stream``)."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import pytest
from langgraph_sdk.errors import NotFoundError, UnprocessableEntityError


async def _collect(opening: Any, parts: list[Any], until: Any) -> None:
    stream = await opening  # the SDK's async join_stream is a coroutine giving the stream
    async for part in stream:
        parts.append(part)
        if until(parts):
            return


def _done(n: int) -> Any:
    return lambda parts: sum(p.data.get("status") == "run_done" for p in parts) >= n


async def test_run_modes_follow_each_run_then_run_done(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    parts: list[Any] = []
    stream = client.threads.join_stream(tid)
    reader = asyncio.create_task(_collect(stream, parts, _done(2)))
    await asyncio.sleep(0.3)  # the stream is open before the runs are queued
    first = await client.runs.create(tid, "two", input={"x": 1})
    await client.runs.join(tid, first["run_id"])
    second = await client.runs.create(tid, "two", input={"x": 5}, stream_mode="updates")
    await asyncio.wait_for(reader, 60)
    events = [(p.event, p.data) for p in parts]
    assert events[0] == ("metadata", {"run_id": first["run_id"], "attempt": 1})
    assert ("values", {"x": 4}) in events
    done_first = events.index(("metadata", {"status": "run_done", "run_id": first["run_id"]}))
    assert events[done_first - 1] == ("values", {"x": 4})
    after = events[done_first + 1 :]
    assert after[0] == ("metadata", {"run_id": second["run_id"], "attempt": 1})
    assert ("updates", {"b": {"x": 12}}) in after
    assert after[-1] == ("metadata", {"status": "run_done", "run_id": second["run_id"]})
    assert all(re.fullmatch(r"\d+-\d+", p.id) for p in parts)  # the reference's format
    assert parts[1].id.split("-")[0] == parts[0].id.split("-")[0]  # one run: one time
    # resuming after the first run's end replays the second run only
    resumed: list[Any] = []
    again = client.threads.join_stream(tid, last_event_id=parts[done_first].id)
    await asyncio.wait_for(_collect(again, resumed, _done(1)), 60)
    assert [(p.event, p.data) for p in resumed] == after
    # from the start: both runs
    everything: list[Any] = []
    replay = client.threads.join_stream(tid, last_event_id="-1")
    await asyncio.wait_for(_collect(replay, everything, _done(2)), 60)
    assert [(p.event, p.data) for p in everything] == events


async def test_lifecycle_and_state_update_modes(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    lifecycle: list[Any] = []
    updates: list[Any] = []
    life = asyncio.create_task(
        _collect(client.threads.join_stream(tid, stream_mode="lifecycle"), lifecycle, _done(1))
    )
    state = asyncio.create_task(
        _collect(
            client.threads.join_stream(tid, stream_mode="state_update"),
            updates,
            lambda parts: len(parts) >= 1,
        )
    )
    await asyncio.sleep(0.3)
    run = await client.runs.create(tid, "two", input={"x": 1})
    await asyncio.wait_for(life, 60)
    assert [(p.event, p.data) for p in lifecycle] == [
        ("metadata", {"run_id": run["run_id"], "attempt": 1}),
        ("metadata", {"status": "run_done", "run_id": run["run_id"]}),
    ]
    await client.threads.update_state(tid, {"x": 100}, as_node="b")
    await asyncio.wait_for(state, 60)
    [update] = updates
    assert update.event == "state_update"
    assert update.data["thread_id"] == tid
    assert update.data["state"]["values"] == {"x": 100}


async def test_thread_stream_errors(client: Any) -> None:
    with pytest.raises(NotFoundError):
        missing = "00000000-0000-0000-0000-000000000000"
        async for _ in await client.threads.join_stream(missing):
            pass
    tid = (await client.threads.create())["thread_id"]
    with pytest.raises(UnprocessableEntityError):
        async for _ in await client.threads.join_stream(tid, stream_mode="everything"):  # type: ignore[arg-type]
            pass


async def test_state_updates_are_replayed_in_order_with_the_runs(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    run = await client.runs.create(tid, "two", input={"x": 1})
    await client.runs.join(tid, run["run_id"])
    await client.threads.update_state(tid, {"x": 7}, as_node="b")
    later = await client.runs.create(tid, "two", input={"x": 2})
    await client.runs.join(tid, later["run_id"])
    await client.threads.update_state(tid, {"x": 9}, as_node="b")

    everything: list[Any] = []
    both = ["run_modes", "state_update"]
    replay = client.threads.join_stream(tid, last_event_id="-1", stream_mode=both)
    await asyncio.wait_for(
        _collect(
            replay,
            everything,
            lambda parts: sum(p.event == "state_update" for p in parts) >= 2,
        ),
        60,
    )
    order = [
        p.data["status"] if p.event == "metadata" and "status" in p.data else p.event
        for p in everything
        if p.event in ("state_update", "metadata")
    ]
    assert order == ["metadata", "run_done", "state_update", "metadata", "run_done", "state_update"]
    updates = [p for p in everything if p.event == "state_update"]
    assert [u.data["state"]["values"]["x"] for u in updates] == [7, 9]
    # ids as the reference writes them (Redis stream ids); an update's is the moment it was made
    assert all(re.fullmatch(r"\d+-\d+", p.id) for p in everything)
    assert all(u.id.endswith("-0") for u in updates)

    # resuming after the first update: the second run, then the second update
    resumed: list[Any] = []
    again = client.threads.join_stream(tid, last_event_id=updates[0].id, stream_mode=both)
    await asyncio.wait_for(
        _collect(again, resumed, lambda parts: any(p.event == "state_update" for p in parts)), 60
    )
    assert resumed[0].event == "metadata"
    assert resumed[0].data == {"run_id": later["run_id"], "attempt": 1}
    assert resumed[-1].id == updates[1].id
    assert sum(p.event == "state_update" for p in resumed) == 1


async def test_resume_from_a_moment_and_bad_ids(client: Any) -> None:
    """A bare millisecond time (a Redis stream id without sequence) resumes after that
    moment; an id of another format is a 422 naming the header, as the reference."""
    tid = (await client.threads.create())["thread_id"]
    first = await client.runs.create(tid, "two", input={"x": 1})
    await client.runs.join(tid, first["run_id"])
    await asyncio.sleep(0.01)
    moment = str(int(time.time() * 1000))
    await asyncio.sleep(0.01)
    second = await client.runs.create(tid, "two", input={"x": 2})
    await client.runs.join(tid, second["run_id"])
    resumed: list[Any] = []
    again = client.threads.join_stream(tid, last_event_id=moment)
    await asyncio.wait_for(_collect(again, resumed, _done(1)), 60)
    assert resumed[0].data == {"run_id": second["run_id"], "attempt": 1}
    assert resumed[-1].data == {"status": "run_done", "run_id": second["run_id"]}
    # a run's event id: the rest of that run, then what came after it
    everything: list[Any] = []
    replay = client.threads.join_stream(tid, last_event_id="-")
    await asyncio.wait_for(_collect(replay, everything, _done(2)), 60)
    rest: list[Any] = []
    after_first_event = client.threads.join_stream(tid, last_event_id=everything[0].id)
    await asyncio.wait_for(_collect(after_first_event, rest, _done(2)), 60)
    assert [(p.id, p.data) for p in rest] == [(p.id, p.data) for p in everything[1:]]
    with pytest.raises(UnprocessableEntityError, match="last-event-id"):
        async for _ in await client.threads.join_stream(tid, last_event_id="abc:1"):
            pass
