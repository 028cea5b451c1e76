"""``superstep serve --config examples/langgraph.json``, as a process, answering the official
``langgraph-sdk`` client for the issue's whole flow on examples/agent.py: create a thread,
stream a run, read state and history, interrupt and resume with ``command``, fork from an
older checkpoint, store put and search, and a restart that keeps everything."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from server.conftest import _free_port

ROOT = Path(__file__).resolve().parents[2]
SUPERSTEP = Path(sys.executable).parent / "superstep"


@contextmanager
def serve(db: Path) -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        [
            str(SUPERSTEP),
            "serve",
            "--config",
            str(ROOT / "examples" / "langgraph.json"),
            "--port",
            str(port),
            "--db",
            str(db),
            "--workers",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={
            **{k: v for k, v in os.environ.items() if k != "LANGGRAPH_API_URL"},
            "PYTHONUNBUFFERED": "1",
        },
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if process.poll() is not None:
                out = process.stdout.read().decode() if process.stdout else ""
                raise AssertionError(f"superstep serve exited {process.returncode}: {out}")
            try:
                if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            threading_wait(0.05)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)


def threading_wait(seconds: float) -> None:
    import threading

    threading.Event().wait(seconds)


def _text(message: dict[str, Any]) -> str:
    return str(message.get("content"))


async def test_the_issue_flow_on_the_example_agent(tmp_path: Path) -> None:
    from langgraph_sdk import get_client

    db = tmp_path / "agent.db"
    with serve(db) as url:
        client = get_client(url=url, api_key=None)
        thread = await client.threads.create()
        tid = thread["thread_id"]
        question = {"messages": [{"role": "user", "content": "What's the weather in Paris?"}]}
        parts = [
            (p.event, p.data)
            async for p in client.runs.stream(tid, "agent", input=question, stream_mode="updates")
        ]
        assert parts[0][0] == "metadata"
        updates = [d for e, d in parts if e == "updates"]
        assert updates[0]["agent"]["messages"][0]["tool_calls"][0]["name"] == "get_weather"
        asked = updates[-1]["__interrupt__"][0]["value"]
        assert asked == {
            "question": "run these tools?",
            "calls": [["get_weather", {"city": "Paris"}]],
        }
        waiting = await client.threads.get_state(tid)
        assert waiting["next"] == ["human_review"]
        assert (await client.threads.get(tid))["status"] == "interrupted"

        done = await client.runs.wait(tid, "agent", command={"resume": {"approve": True}})
        messages = done["messages"]
        assert _text(messages[-2]) == "14°C, light rain"
        assert _text(messages[-1]) == "Here is what I found. get_weather: 14°C, light rain."
        assert (await client.threads.get(tid))["status"] == "idle"

        history = await client.threads.get_history(tid, limit=50)
        assert history[0]["values"]["messages"] == messages
        paused_at = next(h for h in history if h["next"] == ["human_review"])
        # Fork from the step before the pause: a resume at the paused checkpoint itself would
        # reuse the answer saved there (LangGraph keeps its __resume__ writes), so run from
        # its parent to the interrupt again and answer that one otherwise.
        await client.runs.wait(
            tid, "agent", input=None, checkpoint_id=paused_at["parent_checkpoint"]["checkpoint_id"]
        )
        assert (await client.threads.get(tid))["status"] == "interrupted"
        forked = await client.runs.wait(
            tid, "agent", command={"resume": {"approve": False, "reason": "not today"}}
        )
        assert "not run: the reviewer said 'not today'" in _text(forked["messages"][-2])

        await client.store.put_item(["travellers", "t1"], "home", {"city": "Oslo"})
        found = await client.store.search_items(["travellers"])
        assert [i["value"] for i in found["items"]] == [{"city": "Oslo"}]
        final = await client.threads.get_state(tid)
        # as under `langgraph dev`: the runs' metadata names the server's URL
        assert final["metadata"]["langgraph_api_url"] == url

    with serve(db) as url:  # a restart on the same database keeps threads and the store
        client = get_client(url=url, api_key=None)
        assert (await client.threads.get_state(tid))["values"] == final["values"]
        item = await client.store.get_item(["travellers", "t1"], "home")
        assert item["value"] == {"city": "Oslo"}
        assistant = await client.assistants.get("agent")
        assert assistant["assistant_id"] == (await client.assistants.search())[0]["assistant_id"]
