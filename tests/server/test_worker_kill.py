"""A ``superstep worker`` process SIGKILLed in the middle of a run: another worker process
takes the run over when the lease runs out and finishes it from the last checkpoint; the
node that had finished does not run again (a log per node and process proves it). Skipped
without ``SUPERSTEP_POSTGRES_URL``."""

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
import os
import time
from pathlib import Path
from typing import TypedDict

from superstep_compat.graph import START, StateGraph

LOG = Path(os.environ["SERVER_TEST_LOG"])
GATE = Path(os.environ["SERVER_TEST_GATE"])


class S(TypedDict):
    x: int


def note(what: str) -> None:
    with LOG.open("a") as f:
        f.write(f"{what} {os.getpid()}\\n")


def a(state: S) -> dict:
    note("a-done")
    return {"x": state["x"] + 1}


def b(state: S) -> dict:
    note("b-entered")
    while not GATE.exists():  # the test opens the gate once the first worker is dead
        time.sleep(0.02)
    note("b-done")
    return {"x": state["x"] * 2}


builder = StateGraph(S)
builder.add_node("a", a)
builder.add_node("b", b)
builder.add_edge(START, "a")
builder.add_edge("a", "b")
graph = builder.compile()
"""


def _log(path: Path) -> list[tuple[str, int]]:
    if not path.exists():
        return []
    return [(w, int(p)) for w, p in (line.split() for line in path.read_text().splitlines())]


async def test_a_killed_worker_process_is_taken_over(tmp_path: Path) -> None:
    (tmp_path / "slow.py").write_text(GRAPH)
    (tmp_path / "langgraph.json").write_text('{"graphs": {"slow": "./slow.py:graph"}}')
    log, gate = tmp_path / "nodes.log", tmp_path / "gate"
    env = {**os.environ, "SERVER_TEST_LOG": str(log), "SERVER_TEST_GATE": str(gate)}
    config = str(tmp_path / "langgraph.json")
    port = _free_port()
    with postgres_schema() as url:
        api = spawn_api_only(config, port, url, env)
        first = subprocess.Popen(
            [str(SUPERSTEP), "worker", "--config", config, "--db", url, "--lease", "2"], env=env
        )
        second = None
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(600):
                try:
                    if httpx.get(f"{base}/ok", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    threading.Event().wait(0.05)
            client = get_client(url=base, api_key=None)
            thread = await client.threads.create()
            run = await client.runs.create(
                thread["thread_id"], "slow", input={"x": 1}, durability="sync"
            )
            for _ in range(3000):
                if ("b-entered", first.pid) in _log(log):
                    break
                await asyncio.sleep(0.02)
            assert ("b-entered", first.pid) in _log(log)
            first.send_signal(signal.SIGKILL)
            first.wait(30)
            second = subprocess.Popen(
                [str(SUPERSTEP), "worker", "--config", config, "--db", url, "--lease", "2"],
                env=env,
            )
            gate.write_text("open")
            assert await client.runs.join(thread["thread_id"], run["run_id"]) == {"x": 4}
            assert (await client.runs.get(thread["thread_id"], run["run_id"]))["status"] == (
                "success"
            )
        finally:
            for process in (api, first, second):
                if process is not None and process.poll() is None:
                    process.send_signal(signal.SIGTERM)
                    process.wait(30)
    assert second is not None
    entries = _log(log)
    assert entries.count(("a-done", first.pid)) == 1
    assert [e for e in entries if e[0] == "a-done"] == [("a-done", first.pid)]  # not again
    assert [e for e in entries if e[0] == "b-done"] == [("b-done", second.pid)]
