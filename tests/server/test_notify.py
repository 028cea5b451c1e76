"""Wake-ups between processes on PostgreSQL (``LISTEN``/``NOTIFY``): a server that answers the
API only and a server whose workers would poll the queue only every ten minutes; runs asked
for at the first are taken by the second's workers at once (skipped without
``SUPERSTEP_POSTGRES_URL``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph_sdk import get_client

from server.conftest import LiveServer, postgres_schema
from server.graphs import all_graphs
from superstep_server.app import create_app


@pytest.fixture(scope="module")
def api_and_sleepy_worker() -> Iterator[tuple[LiveServer, LiveServer]]:
    with (
        postgres_schema() as url,
        LiveServer(create_app(database=url, graphs=all_graphs(), workers=0)) as api,
        LiveServer(
            create_app(database=url, graphs=all_graphs(), workers=2, poll_seconds=600.0)
        ) as worker,
    ):
        yield api, worker


async def test_a_notification_wakes_the_workers_of_another_process(
    api_and_sleepy_worker: tuple[LiveServer, LiveServer],
) -> None:
    api, _worker = api_and_sleepy_worker
    client = get_client(url=api.url, api_key=None)
    # without a notification the workers would look in ten minutes (the test times out)
    assert await client.runs.wait(None, "two", input={"x": 1}) == {"x": 4}
    tid = (await client.threads.create())["thread_id"]
    runs = [
        await client.runs.create(tid, "two", input={"x": i}, multitask_strategy="enqueue")
        for i in range(3)
    ]
    # each run's end frees the thread for the next (a notification too)
    assert [await client.runs.join(tid, r["run_id"]) for r in runs] == [
        {"x": 2},
        {"x": 4},
        {"x": 6},
    ]
    parts = [p.event async for p in client.runs.stream(tid, "two", input={"x": 1})]
    assert parts == ["metadata", "values", "values", "values"]
