"""``superstep serve --workers 0`` (the API only) and ``superstep worker`` processes on one
PostgreSQL database, driven by the official ``langgraph-sdk`` client (skipped without
``SUPERSTEP_POSTGRES_URL``)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
from pathlib import Path

import httpx
from langgraph_sdk import get_client

from server.conftest import SUPERSTEP, _free_port, postgres_schema, spawn_api_only

GRAPH = """
from typing import TypedDict
from superstep_compat.graph import START, StateGraph
import os

class S(TypedDict):
    x: int
    pid: int

def a(state: S) -> dict:
    return {"x": state["x"] + 1, "pid": os.getpid()}

builder = StateGraph(S)
builder.add_node("a", a)
builder.add_edge(START, "a")
graph = builder.compile()
"""


async def test_api_only_server_and_a_worker_process(tmp_path: Path) -> None:
    with postgres_schema() as url:
        await _api_and_worker(tmp_path, url)


async def _api_and_worker(tmp_path: Path, url: str) -> None:
    (tmp_path / "one.py").write_text(GRAPH)
    (tmp_path / "langgraph.json").write_text('{"graphs": {"one": "./one.py:graph"}}')
    config = str(tmp_path / "langgraph.json")
    port = _free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    api = spawn_api_only(config, port, url, env)
    worker = subprocess.Popen(
        [str(SUPERSTEP), "worker", "--config", config, "--db", url, "--workers", "2"], env=env
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            assert api.poll() is None and worker.poll() is None
            try:
                if httpx.get(f"{base}/ok", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                threading.Event().wait(0.05)
        client = get_client(url=base, api_key=None)
        out = await client.runs.wait(None, "one", input={"x": 1, "pid": 0})
        assert out["x"] == 2
        assert out["pid"] == worker.pid  # run by the worker process, not the API's
        thread = await client.threads.create()
        run = await client.runs.create(thread["thread_id"], "one", input={"x": 5, "pid": 0})
        assert (await client.runs.join(thread["thread_id"], run["run_id"]))["x"] == 6
        assert (await client.threads.get(thread["thread_id"]))["status"] == "idle"
        # the worker process relays the run's events: the API server streams them
        parts = [
            (p.event, p.data)
            async for p in client.runs.stream(
                thread["thread_id"],
                "one",
                input={"x": 7, "pid": 0},
                stream_mode=["values", "updates"],
                stream_resumable=True,
            )
        ]
        assert [e for e, _ in parts] == ["metadata", "values", "updates", "values"]
        assert parts[-1][1]["x"] == 8 and parts[-1][1]["pid"] == worker.pid
        run_id = parts[0][1]["run_id"]
        again = [
            (p.event, p.data)
            async for p in client.runs.join_stream(thread["thread_id"], run_id, last_event_id="1")
        ]
        assert again == parts[2:]
        stateless = [e async for e in client.runs.stream(None, "one", input={"x": 1, "pid": 0})]
        assert [p.event for p in stateless] == ["metadata", "values", "values"]
        # the SDK's v3 session: its events relayed from the worker process
        async with client.threads.stream(assistant_id="one") as session:
            await session.run.start(input={"x": 20, "pid": 0})
            seen = [values async for values in session.values]
            out = await asyncio.wait_for(session.output, 30)
        assert out == {"x": 21, "pid": worker.pid} and seen[-1] == out
    finally:
        for process in (api, worker):
            process.send_signal(signal.SIGTERM)
        for process in (api, worker):
            process.wait(30)
    assert worker.returncode == 0
