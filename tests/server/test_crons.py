"""Crons, driven by the official ``langgraph-sdk`` client: create (on a thread and
stateless), search, count, update, delete, bad requests, and firing (the test moves a
cron's next run into the past instead of waiting for the clock)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from langgraph_sdk.errors import NotFoundError, UnprocessableEntityError

from server.conftest import LiveServer
from superstep_server.crons import next_run


def test_next_run_reads_the_schedule_in_its_time_zone() -> None:
    after = datetime(2026, 1, 5, 8, 30, tzinfo=UTC)
    assert next_run("0 9 * * *", None, after) == datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    # 09:00 in Oslo (UTC+1 in January) is 08:00 UTC: the next one is tomorrow's
    oslo = next_run("0 9 * * *", "Europe/Oslo", after)
    assert oslo == datetime(2026, 1, 6, 8, 0, tzinfo=UTC)


def _due_now(live: LiveServer, cron_id: str) -> None:
    past = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
    live.app.state.server.db.execute(
        "UPDATE server_crons SET next_run_date = ? WHERE cron_id = ?", (past, cron_id)
    )


async def test_create_search_update_delete(client: Any) -> None:
    thread = await client.threads.create()
    cron = await client.crons.create_for_thread(
        thread["thread_id"],
        "two",
        schedule="*/5 * * * *",
        input={"x": 1},
        metadata={"owner": "crons-test"},
    )
    assert cron["thread_id"] == thread["thread_id"] and cron["enabled"] is True
    assert datetime.fromisoformat(cron["next_run_date"]) > datetime.now(UTC)
    assert cron["payload"]["input"] == {"x": 1}
    stateless = await client.crons.create(
        "two", schedule="0 9 * * 1", input={"x": 2}, metadata={"owner": "crons-test"}
    )
    assert stateless["thread_id"] is None and stateless["on_run_completed"] == "delete"
    found = await client.crons.search(metadata={"owner": "crons-test"})
    assert {c["cron_id"] for c in found} == {cron["cron_id"], stateless["cron_id"]}
    assert await client.crons.count(thread_id=thread["thread_id"]) == 1
    # GET /runs/crons/{id}, as the reference serves it (this SDK has no crons.get)
    assert await client.http.get(f"/runs/crons/{cron['cron_id']}") == cron
    updated = await client.crons.update(cron["cron_id"], schedule="0 0 1 1 *", enabled=False)
    assert updated["schedule"] == "0 0 1 1 *" and updated["enabled"] is False
    assert await client.crons.search(enabled=False, metadata={"owner": "crons-test"}) == [updated]
    await client.crons.delete(cron["cron_id"])
    await client.crons.delete(stateless["cron_id"])
    with pytest.raises(NotFoundError):
        await client.crons.delete(cron["cron_id"])
    with pytest.raises(NotFoundError):
        await client.http.get(f"/runs/crons/{cron['cron_id']}")


async def test_bad_cron_requests(client: Any) -> None:
    with pytest.raises(UnprocessableEntityError) as schedule:
        await client.crons.create("two", schedule="every tuesday", input={"x": 1})
    assert "schedule" in str(schedule.value)
    with pytest.raises(UnprocessableEntityError) as zone:
        await client.crons.create("two", schedule="* * * * *", timezone="Mars/Olympus")
    assert "timezone" in str(zone.value)
    with pytest.raises(UnprocessableEntityError, match="Invalid assistant: 'no-such-graph'"):
        await client.crons.create("no-such-graph", schedule="* * * * *")
    with pytest.raises(NotFoundError):  # a UUID no assistant has
        await client.crons.create("00000000-0000-4000-8000-00000000abcd", schedule="* * * * *")
    with pytest.raises(UnprocessableEntityError) as mode:
        await client.crons.create("two", schedule="* * * * *", stream_mode="all")  # type: ignore[arg-type]
    assert "'all' is not a stream mode" in str(mode.value)


async def _runs_of(client: Any, thread_id: str, count: int) -> list[dict[str, Any]]:
    for _ in range(1000):
        runs = await client.runs.list(thread_id)
        if len(runs) >= count:
            return list(runs)
        await asyncio.sleep(0.02)
    raise AssertionError("the cron never fired")


async def test_a_due_cron_fires_once(client: Any, live: LiveServer) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    cron = await client.crons.create_for_thread(tid, "two", schedule="0 0 * * *", input={"x": 3})
    _due_now(live, cron["cron_id"])
    [run] = await _runs_of(client, tid, 1)
    assert run["metadata"]["cron_id"] == cron["cron_id"]
    # as the reference: the cron's payload names it in the configurable its runs get
    assert cron["payload"]["config"] == {"configurable": {"cron_id": cron["cron_id"]}}
    assert run["kwargs"]["config"]["configurable"]["cron_id"] == cron["cron_id"]
    assert await client.runs.join(tid, run["run_id"]) == {"x": 8}
    state = await client.threads.get_state(tid)
    assert state["metadata"]["cron_id"] == cron["cron_id"]
    moved = (await client.crons.search(thread_id=tid))[0]
    assert datetime.fromisoformat(moved["next_run_date"]) > datetime.now(UTC)
    await asyncio.sleep(0.2)  # the workers keep ticking: not due, so no second run
    assert len(await client.runs.list(tid)) == 1
    await client.crons.delete(cron["cron_id"])


async def test_a_stateless_cron_leaves_no_thread(client: Any, live: LiveServer) -> None:
    threads_before = await client.threads.count()
    cron = await client.crons.create("two", schedule="0 0 * * *", input={"x": 4})
    _due_now(live, cron["cron_id"])
    db = live.app.state.server.db
    for _ in range(1000):
        rows = db.execute(
            "SELECT status, output FROM server_runs WHERE metadata LIKE ?",
            (f"%{cron['cron_id']}%",),
        )
        if rows and rows[0]["status"] == "success":
            break
        await asyncio.sleep(0.02)
    assert rows and rows[0]["output"] == '{"x":10}'
    assert await client.threads.count() == threads_before
    await client.crons.delete(cron["cron_id"])
