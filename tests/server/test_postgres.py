"""The same API on PostgreSQL (skipped when ``SUPERSTEP_POSTGRES_URL`` is unset): threads,
a stream, an interrupt resumed with ``command``, a fork, ``reject``, and two servers on one
database sharing the queue."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.errors import ConflictError

from server.conftest import LiveServer, postgres_schema
from server.graphs import all_graphs
from superstep_server.app import create_app


@pytest.fixture(scope="module")
def pg_live() -> Iterator[tuple[LiveServer, LiveServer]]:
    with (
        postgres_schema() as url,
        LiveServer(create_app(database=url, graphs=all_graphs(), workers=2)) as first,
        LiveServer(create_app(database=url, graphs=all_graphs(), workers=2)) as second,
    ):
        yield first, second


async def test_runs_and_state_on_postgres(pg_live: tuple[LiveServer, LiveServer]) -> None:
    client = get_client(url=pg_live[0].url, api_key=None)
    thread = await client.threads.create(metadata={"db": "pg"})
    tid = thread["thread_id"]
    parts = [(p.event, p.data) async for p in client.runs.stream(tid, "two", input={"x": 1})]
    assert parts[0][0] == "metadata" and parts[-1] == ("values", {"x": 4})
    history = await client.threads.get_history(tid)
    assert [h["values"] for h in history] == [{"x": 4}, {"x": 2}, {"x": 1}, {}]
    middle = history[1]["checkpoint"]["checkpoint_id"]
    assert await client.runs.wait(tid, "two", input=None, checkpoint_id=middle) == {"x": 4}
    other = (await client.threads.create())["thread_id"]
    paused = await client.runs.wait(other, "review", input={"text": "pg", "log": []})
    assert paused["__interrupt__"][0]["value"]["question"] == "approve?"
    assert (await client.threads.get(other))["status"] == "interrupted"
    done = await client.runs.wait(other, "review", command={"resume": "fine"})
    assert done["log"] == ["draft", "review", "publish"]
    found = await client.threads.search(metadata={"db": "pg"})
    assert [t["thread_id"] for t in found] == [tid]


async def test_two_servers_share_one_database(pg_live: tuple[LiveServer, LiveServer]) -> None:
    one = get_client(url=pg_live[0].url, api_key=None)
    two = get_client(url=pg_live[1].url, api_key=None)
    thread = await one.threads.create()
    tid = thread["thread_id"]
    assert (await two.threads.get(tid))["thread_id"] == tid
    runs = [
        await one.runs.create(tid, "two", input={"x": i}, multitask_strategy="enqueue")
        for i in range(6)
    ]
    outputs = [await two.runs.join(tid, r["run_id"]) for r in runs]
    assert outputs == [{"x": (i + 1) * 2} for i in range(6)]
    statuses = {(await two.runs.get(tid, r["run_id"]))["status"] for r in runs}
    assert statuses == {"success"}


async def test_reject_on_postgres(pg_live: tuple[LiveServer, LiveServer], gate: Any) -> None:
    client = get_client(url=pg_live[0].url, api_key=None)
    tid = (await client.threads.create())["thread_id"]
    run = await client.runs.create(tid, "gated", input={"x": 1})
    await asyncio.to_thread(gate.entered.wait, 30)
    with pytest.raises(ConflictError):
        await client.runs.create(tid, "gated", input={"x": 1}, multitask_strategy="reject")
    gate.opened.set()
    assert await client.runs.join(tid, run["run_id"]) == {"x": 204}


def _setting(server: Any) -> tuple[str, str]:
    """``synchronous_commit`` as the server's own tables and its checkpoint saver see it."""
    tables = server.db.execute("SHOW synchronous_commit")[0]["synchronous_commit"]
    with server.threads.saver.conn.connection() as conn:
        saver = conn.execute("SHOW synchronous_commit").fetchone()
    return str(tables), str(saver["synchronous_commit"] if isinstance(saver, dict) else saver[0])


async def test_commits_are_durable_unless_the_url_says_otherwise(
    pg_live: tuple[LiveServer, LiveServer],
) -> None:
    """The server leaves ``synchronous_commit`` as the database has it (``on``: durable);
    ``options=-csynchronous_commit=off`` in the URL turns it off for its connections only."""
    assert await asyncio.to_thread(_setting, pg_live[0].app.state.server) == ("on", "on")
    with postgres_schema() as url:
        fast = url.replace("options=-c", "options=-csynchronous_commit%3Doff%20-c", 1)
        with LiveServer(create_app(database=fast, graphs=all_graphs(), workers=1)) as live:
            server = live.app.state.server
            assert await asyncio.to_thread(_setting, server) == ("off", "off")
            client = get_client(url=live.url, api_key=None)
            tid = (await client.threads.create())["thread_id"]
            assert await client.runs.wait(tid, "two", input={"x": 1}) == {"x": 4}
