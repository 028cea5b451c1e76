"""Graceful shutdown: a server (or ``superstep worker`` process) that stops drains its runs.
A run in progress stops at its next step boundary, the step it was in committed, and goes
back to the queue; the next server on the database continues it from that checkpoint, and
no node runs twice (a counter per node proves it). The process variant on PostgreSQL sends
SIGTERM to a worker process and lets another one finish the run (skipped without
``SUPERSTEP_POSTGRES_URL``)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, TypedDict

import httpx
from langgraph_sdk import get_client

from server.conftest import SUPERSTEP, LiveServer, _free_port, postgres_schema, spawn_api_only
from superstep_compat.graph import START, StateGraph
from superstep_server.app import create_app
from superstep_server.db import open_database
from superstep_server.runs import Runs

CALLS: Counter[str] = Counter()
ENTERED = threading.Event()
GATE = threading.Event()


class Trail(TypedDict):
    trail: str


def _node(name: str) -> Any:
    def run(state: Trail) -> dict[str, str]:
        if name == "b":
            ENTERED.set()
            assert GATE.wait(30), "the test never opened the gate"
        CALLS[name] += 1
        return {"trail": state["trail"] + name}

    return run


def three() -> Any:
    builder = StateGraph(Trail)
    for name in ("a", "b", "c"):
        builder.add_node(name, _node(name))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", "c")
    return builder.compile()


async def test_a_stopping_server_requeues_its_run_after_the_step_in_progress(
    tmp_path: Path,
) -> None:
    CALLS.clear()
    ENTERED.clear()
    GATE.clear()
    where = str(tmp_path / "drain.db")
    app = create_app(database=where, graphs={"three": three()}, workers=1)
    with LiveServer(app) as live:
        client = get_client(url=live.url, api_key=None)
        thread = await client.threads.create()
        run = await client.runs.create(thread["thread_id"], "three", input={"trail": ""})
        assert await asyncio.to_thread(ENTERED.wait, 30)
        server = app.state.server

        def open_when_draining() -> None:  # b finishes only once the drain was asked for
            while not server.ctx.draining:
                time.sleep(0.01)
            GATE.set()

        opener = threading.Thread(target=open_when_draining)
        opener.start()
    opener.join(30)
    assert CALLS == {"a": 1, "b": 1}  # b's step finished and c never started

    db = open_database(where)
    row = Runs(db).row(run["run_id"])
    db.close()
    assert row is not None
    assert (row["status"], row["worker"], row["attempt"]) == ("pending", None, 1)

    again = create_app(database=where, graphs={"three": three()}, workers=1)
    with LiveServer(again) as live:
        client = get_client(url=live.url, api_key=None)
        assert await client.runs.join(thread["thread_id"], run["run_id"]) == {"trail": "abc"}
        done = await client.runs.get(thread["thread_id"], run["run_id"])
        history = await client.threads.get_history(thread["thread_id"])
    assert done["status"] == "success"
    assert CALLS == {"a": 1, "b": 1, "c": 1}
    assert [h["values"].get("trail") for h in history][:4] == ["abc", "ab", "a", ""]


async def test_a_draining_server_claims_no_run(tmp_path: Path) -> None:
    """Runs queued while a server drains wait for another server (or its restart)."""
    CALLS.clear()
    GATE.set()
    where = str(tmp_path / "late.db")
    app = create_app(database=where, graphs={"three": three()}, workers=1, poll_seconds=0.05)
    with LiveServer(app) as live:
        app.state.server.ctx.drain()
        client = get_client(url=live.url, api_key=None)
        thread = await client.threads.create()
        run = await client.runs.create(thread["thread_id"], "three", input={"trail": "x"})
        await asyncio.sleep(0.5)  # ten polls of its worker
        waiting = await client.runs.get(thread["thread_id"], run["run_id"])
    assert waiting["status"] == "pending" and not CALLS
    again = create_app(database=where, graphs={"three": three()}, workers=1)
    with LiveServer(again) as live:
        client = get_client(url=live.url, api_key=None)
        assert await client.runs.join(thread["thread_id"], run["run_id"]) == {"trail": "xabc"}
    assert CALLS == {"a": 1, "b": 1, "c": 1}


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
    while not GATE.exists():  # the test opens the gate once SIGTERM was sent
        time.sleep(0.02)
    note("b-done")
    return {"x": state["x"] * 2}


def c(state: S) -> dict:
    note("c-done")
    return {"x": state["x"] + 10}


builder = StateGraph(S)
builder.add_node("a", a)
builder.add_node("b", b)
builder.add_node("c", c)
builder.add_edge(START, "a")
builder.add_edge("a", "b")
builder.add_edge("b", "c")
graph = builder.compile()
"""


def _log(path: Path) -> list[tuple[str, int]]:
    if not path.exists():
        return []
    return [(w, int(p)) for w, p in (line.split() for line in path.read_text().splitlines())]


async def test_a_terminated_worker_process_hands_its_run_over_at_a_step_boundary(
    tmp_path: Path,
) -> None:
    (tmp_path / "slow.py").write_text(GRAPH)
    (tmp_path / "langgraph.json").write_text('{"graphs": {"slow": "./slow.py:graph"}}')
    log, gate = tmp_path / "nodes.log", tmp_path / "gate"
    env = {**os.environ, "SERVER_TEST_LOG": str(log), "SERVER_TEST_GATE": str(gate)}
    config = str(tmp_path / "langgraph.json")
    port = _free_port()
    # a long lease: a takeover within it proves the run was handed back, not swept
    worker = [str(SUPERSTEP), "worker", "--config", config, "--lease", "120"]
    with postgres_schema() as url:
        api = spawn_api_only(config, port, url, env)
        first = subprocess.Popen([*worker, "--db", url], env=env)
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
                thread["thread_id"], "slow", input={"x": 1}, stream_resumable=True
            )
            for _ in range(3000):
                if ("b-entered", first.pid) in _log(log):
                    break
                await asyncio.sleep(0.02)
            assert ("b-entered", first.pid) in _log(log)
            first.send_signal(signal.SIGTERM)
            await asyncio.sleep(0.3)  # the drain was asked for while b runs
            gate.write_text("open")
            assert await asyncio.to_thread(first.wait, 30) == 0
            second = subprocess.Popen([*worker, "--db", url], env=env)
            out = await asyncio.wait_for(
                client.runs.join(thread["thread_id"], run["run_id"]), timeout=60
            )
            assert out == {"x": 14}
            done = await client.runs.get(thread["thread_id"], run["run_id"])
            assert done["status"] == "success"
            # the relayed events of both attempts, numbered on: one stream to rejoin
            parts = [
                (p.event, p.data)
                async for p in client.runs.join_stream(
                    thread["thread_id"], run["run_id"], last_event_id="-1"
                )
            ]
            metadata = [d for e, d in parts if e == "metadata"]
            assert [m["attempt"] for m in metadata] == [1, 2]
            assert [d["x"] for e, d in parts if e == "values"] == [1, 2, 4, 4, 14]
        finally:
            for process in (api, first, second):
                if process is not None and process.poll() is None:
                    process.send_signal(signal.SIGTERM)
                    process.wait(30)
    assert second is not None
    entries = _log(log)
    assert [e for e in entries if e[0] != "b-entered"] == [
        ("a-done", first.pid),
        ("b-done", first.pid),
        ("c-done", second.pid),
    ]


async def test_a_signalled_server_stops_claiming_at_the_signal_not_after_its_connections(
    tmp_path: Path,
) -> None:
    """``superstep serve`` on SIGTERM drains at once, while uvicorn still waits for its open
    connections (a client following a run's stream): the run in progress stops after its
    step and a queued run is not claimed; both finish on the next server."""
    (tmp_path / "slow.py").write_text(GRAPH)
    (tmp_path / "langgraph.json").write_text('{"graphs": {"slow": "./slow.py:graph"}}')
    log, gate = tmp_path / "nodes.log", tmp_path / "gate"
    env = {**os.environ, "SERVER_TEST_LOG": str(log), "SERVER_TEST_GATE": str(gate)}
    db = str(tmp_path / "serve.db")

    def serve() -> tuple[subprocess.Popen[bytes], str]:
        port = _free_port()
        command = [str(SUPERSTEP), "serve", "--config", str(tmp_path / "langgraph.json")]
        process = subprocess.Popen(
            [*command, "--port", str(port), "--db", db, "--workers", "1"], env=env
        )
        base = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                if httpx.get(f"{base}/ok", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                threading.Event().wait(0.05)
        return process, base

    process, base = serve()
    try:
        client = get_client(url=base, api_key=None)
        first = await client.threads.create()
        running = await client.runs.create(first["thread_id"], "slow", input={"x": 1})
        for _ in range(1500):
            if _log(log) and _log(log)[-1][0] == "b-entered":
                break
            await asyncio.sleep(0.02)
        second = await client.threads.create()
        queued = await client.runs.create(second["thread_id"], "slow", input={"x": 5})
        # a client following the run: uvicorn waits for it before its own shutdown
        follow = f"{base}/threads/{first['thread_id']}/runs/{running['run_id']}/stream"

        def keep_following() -> None:
            with contextlib.suppress(httpx.TransportError):  # cut at uvicorn's grace end
                httpx.get(follow, timeout=60)

        following = threading.Thread(target=keep_following, daemon=True)
        following.start()
        await asyncio.sleep(0.3)
        process.send_signal(signal.SIGTERM)
        await asyncio.sleep(0.5)  # the drain was asked for while b runs
        gate.write_text("open")
        # uvicorn raises the signal again once it has shut down: the conventional status
        assert await asyncio.to_thread(process.wait, 30) == -signal.SIGTERM
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
    assert [what for what, _ in _log(log)] == ["a-done", "b-entered", "b-done"]
    rows = open_database(db)
    try:
        runs = Runs(rows)
        assert runs.row(running["run_id"])["status"] == "pending"  # type: ignore[index]
        assert runs.row(queued["run_id"])["status"] == "pending"  # type: ignore[index]
    finally:
        rows.close()

    process, base = serve()
    try:
        client = get_client(url=base, api_key=None)
        assert await client.runs.join(first["thread_id"], running["run_id"]) == {"x": 14}
        assert await client.runs.join(second["thread_id"], queued["run_id"]) == {"x": 22}
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    assert [what for what, _ in _log(log)].count("c-done") == 2
