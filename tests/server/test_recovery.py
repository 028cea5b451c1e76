"""A run whose worker died is queued again when its lease expires and continues from its
last checkpoint: no node that finished runs again (a counter per node proves it)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, TypedDict

from langgraph_sdk import get_client

from server.conftest import LiveServer
from superstep_compat.graph import START, StateGraph
from superstep_server.app import create_app
from superstep_server.db import open_database
from superstep_server.runs import Runs
from superstep_server.saver import open_saver
from superstep_server.threads import Threads

THREAD = "00000000-0000-4000-8000-0000000000a1"  # thread ids are UUIDs in the API

CALLS: Counter[str] = Counter()


class Path3(TypedDict):
    trail: str


def _node(name: str) -> Any:
    def run(state: Path3) -> dict[str, str]:
        CALLS[name] += 1
        return {"trail": state["trail"] + name}

    return run


def counted() -> Any:
    builder = StateGraph(Path3)
    for name in ("a", "b", "c"):
        builder.add_node(name, _node(name))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", "c")
    return builder.compile()


async def test_a_dead_workers_run_continues_from_its_last_checkpoint(tmp_path: Path) -> None:
    CALLS.clear()
    where = str(tmp_path / "recover.db")
    db = open_database(where)
    threads = Threads(db, saver=None)
    with db.transaction() as tx:
        threads.insert(tx, THREAD, {})
    from superstep_server.graphs import system_assistant_id

    assistant = {"assistant_id": system_assistant_id("counted"), "graph_id": "counted"}
    run, _ = Runs(db).create(
        thread_id=THREAD,
        assistant=assistant,
        kwargs={"input": {"trail": ""}, "stream_mode": ["values"]},
        metadata={},
        multitask_strategy="reject",
        if_not_exists="reject",
        temporary=False,
        insert_thread=threads.insert,
    )
    # The first attempt: claimed by a worker that got through `a` and `b`, then died.
    claimed = Runs(db, lease_seconds=-1.0).claim("dead-worker")
    assert claimed is not None and claimed["run_id"] == run["run_id"]
    with open_saver(where) as saver:
        first = counted()
        first.checkpointer = saver
        config = {"configurable": {"thread_id": THREAD}, "metadata": {"run_id": run["run_id"]}}
        first.invoke({"trail": ""}, config, interrupt_before=["c"])
    db.close()
    assert CALLS == {"a": 1, "b": 1}

    app = create_app(database=where, graphs={"counted": counted()}, workers=1)
    with LiveServer(app) as live:  # its workers sweep the expired lease and run it again
        client = get_client(url=live.url, api_key=None)
        assert await client.runs.join(THREAD, run["run_id"]) == {"trail": "abc"}
        again = await client.runs.get(THREAD, run["run_id"])
    assert again["status"] == "success"
    assert CALLS == {"a": 1, "b": 1, "c": 1}
