"""200 runs at once over 4 workers (SQLite, and PostgreSQL with two servers sharing the
queue) all finish with the right values, and every node ran exactly once per run (a counter
per node and run proves it)."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph_sdk import get_client

from server.conftest import LiveServer, postgres_schema
from superstep_compat.graph import START, StateGraph
from superstep_server.app import create_app

CALLS: Counter[tuple[str, int]] = Counter()
LOCK = threading.Lock()


class Job(TypedDict):
    n: int
    out: int


def _node(name: str, step: int) -> Any:
    def run(state: Job) -> dict[str, int]:
        with LOCK:
            CALLS[(name, state["n"])] += 1
        return {"out": state.get("out", 0) * 10 + step}

    return run


def counted() -> Any:
    builder = StateGraph(Job)
    builder.add_node("a", _node("a", 1))
    builder.add_node("b", _node("b", 2))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    return builder.compile()


@pytest.fixture(params=["sqlite", "postgres"])
def servers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[LiveServer]]:
    CALLS.clear()
    if request.param == "sqlite":
        app = create_app(database=str(tmp_path / "scale.db"), graphs={"job": counted()}, workers=4)
        with LiveServer(app) as live:
            yield [live]
        return
    with (
        postgres_schema() as url,
        LiveServer(create_app(database=url, graphs={"job": counted()}, workers=2)) as one,
        LiveServer(create_app(database=url, graphs={"job": counted()}, workers=2)) as two,
    ):
        yield [one, two]


async def test_200_runs_over_4_workers(servers: list[LiveServer]) -> None:
    clients = [get_client(url=s.url, api_key=None) for s in servers]
    threads = [(await clients[0].threads.create())["thread_id"] for _ in range(50)]

    async def submit(i: int) -> dict[str, Any]:
        client = clients[i % len(clients)]
        return dict(
            await client.runs.create(
                threads[i % 50], "job", input={"n": i, "out": 0}, multitask_strategy="enqueue"
            )
        )

    runs = await asyncio.gather(*(submit(i) for i in range(200)))
    outputs = await asyncio.gather(
        *(
            clients[(i + 1) % len(clients)].runs.join(r["thread_id"], r["run_id"])
            for i, r in enumerate(runs)
        )
    )
    assert [o["n"] for o in outputs] == list(range(200))
    assert all(o["out"] == 12 for o in outputs)
    assert all(CALLS[("a", i)] == 1 and CALLS[("b", i)] == 1 for i in range(200)), CALLS
    statuses = Counter(
        [(await clients[0].runs.get(r["thread_id"], r["run_id"]))["status"] for r in runs]
    )
    assert statuses == {"success": 200}
