"""The SDK's v3 thread-centric streaming session (``client.threads.stream``): ``run.start``,
the values projection, ``output``, interrupts answered with ``run.respond``, errors, and
raw events with their ``seq`` resumed ``since`` one of them; all through the official
``langgraph-sdk`` client."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from server.conftest import LiveServer


@pytest.fixture
def client(live: LiveServer) -> Any:
    return get_client(url=live.url, api_key=None)


async def test_a_session_starts_a_run_and_reads_its_values_and_output(client: Any) -> None:
    async with client.threads.stream(assistant_id="two") as session:
        started = await session.run.start(input={"x": 3})
        assert started["run_id"]
        seen = []
        async for values in session.values:
            seen.append(values)
        assert seen[-1] == {"x": 8}
        assert await asyncio.wait_for(session.output, 30) == {"x": 8}
        assert {"x": 4} in seen  # after a, before b
    run = await client.runs.get(session.thread_id, started["run_id"])
    assert run["status"] == "success"


async def test_an_interrupt_is_answered_with_run_respond(client: Any) -> None:
    async with client.threads.stream(assistant_id="review") as session:
        await session.run.start(input={"text": "essay", "log": []})
        for _ in range(500):
            if session.interrupted:
                break
            await asyncio.sleep(0.02)
        assert session.interrupted
        [asked] = session.interrupts
        assert asked["value"] == {"question": "approve?", "text": "essay (drafted)"}
        await session.run.respond("yes")
        out = await asyncio.wait_for(session.output, 30)
    assert out["text"] == "essay (drafted) -> yes"
    assert out["log"] == ["draft", "review", "publish"]


async def test_an_answer_sent_before_its_run_ended_waits_for_the_run(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the interrupt's event streams before the run ends and the thread records it; an
    # answer sent in between used to be refused with no_such_interrupt
    from superstep_server.runs import Runs

    finish = Runs.finish

    def slow_finish(self: Runs, *args: Any, **kwargs: Any) -> Any:
        time.sleep(1.0)
        return finish(self, *args, **kwargs)

    monkeypatch.setattr(Runs, "finish", slow_finish)
    async with client.threads.stream(assistant_id="review") as session:
        await session.run.start(input={"text": "late", "log": []})
        for _ in range(500):
            if session.interrupted:
                break
            await asyncio.sleep(0.02)
        assert session.interrupted
        await session.run.respond("yes")
        out = await asyncio.wait_for(session.output, 30)
    assert out["text"] == "late (drafted) -> yes"


async def test_a_failing_run_fails_the_output_with_its_error(client: Any) -> None:
    async with client.threads.stream(assistant_id="failing") as session:
        await session.run.start(input={"x": 1})
        with pytest.raises(RuntimeError, match="ValueError: boom at x="):
            await asyncio.wait_for(session.output, 30)


async def test_events_carry_seqs_and_a_stream_resumes_after_one(live: LiveServer) -> None:
    client = get_client(url=live.url, api_key=None)
    async with client.threads.stream(assistant_id="two") as session:
        await session.run.start(input={"x": 1})
        await asyncio.wait_for(session.output, 30)
        tid = session.thread_id
    body = {"channels": ["values", "updates", "lifecycle"]}
    url = f"{live.url}/threads/{tid}/stream/events"

    async def read(body: dict[str, Any], count: int) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        async with httpx.AsyncClient(timeout=30) as http, http.stream("POST", url, json=body) as r:
            assert r.status_code == 200
            async for line in r.aiter_lines():
                if line.startswith("data: "):
                    events.append(json.loads(line[6:]))
                    if len(events) == count:
                        break
        return events

    events = await read(body, 6)
    assert [(e["method"], e["params"]["data"].get("event")) for e in events] == [
        ("lifecycle", "running"),
        ("values", None),
        ("updates", None),
        ("values", None),
        ("updates", None),
        ("values", None),
    ]
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == 6
    assert events[-1]["params"] == {
        "namespace": [],
        "timestamp": events[-1]["params"]["timestamp"],
        "data": {"x": 4},
    }
    again = await read({**body, "since": seqs[2]}, 4)
    # numbered across every channel, so those filtered out leave gaps
    assert [e["seq"] for e in again][:3] == seqs[3:] and again[3]["seq"] > seqs[-1]
    assert again[-1]["params"]["data"] == {"event": "completed", "graph_name": "two"}


async def test_an_unserved_command_answers_the_protocols_error(live: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        tid = (await http.post("/threads", json={})).json()["thread_id"]
        answer = await http.post(
            f"/threads/{tid}/commands", json={"id": 7, "method": "agent.getTree", "params": {}}
        )
        missing = await http.post(f"/threads/{tid}/stream/events", json={"channels": 3})
    assert answer.status_code == 200
    assert answer.json()["type"] == "error" and answer.json()["id"] == 7
    assert answer.json()["error"] == "not_supported"
    assert missing.status_code == 422 and "channels" in missing.json()["detail"]


async def test_a_chat_models_message_streams_as_protocol_events(client: Any) -> None:
    async with client.threads.stream(assistant_id="chat") as session:
        await session.run.start(input={"messages": [{"role": "user", "content": "hi"}]})
        # the projection feeds each message's events as it is iterated: read them after
        messages = [message async for message in session.messages]
        texts = [await asyncio.wait_for(m.text, 30) for m in messages]
        out = await asyncio.wait_for(session.output, 30)
    assert texts == ["hello there"]
    # a model streamed as protocol events returns its content as blocks (langchain-core's)
    content = out["messages"][-1]["content"]
    assert "".join(b["text"] for b in content if b["type"] == "text") == "hello there"


async def test_tool_calls_stream_on_the_tools_channel(client: Any) -> None:
    async with client.threads.stream(assistant_id="tooled") as session:
        await session.run.start(input={"messages": []})
        calls = [call async for call in session.tool_calls]
        outputs = [await asyncio.wait_for(call.output, 30) for call in calls]
    assert [(c.tool_call_id, c.name, c.input) for c in calls] == [
        ("call-1", "add", {"a": 1, "b": 2})
    ]
    assert outputs[0]["content"] == "3"


async def test_state_commands_read_list_and_fork_checkpoints(client: Any, live: LiveServer) -> None:
    async with client.threads.stream(assistant_id="two") as session:
        await session.run.start(input={"x": 1})
        assert await asyncio.wait_for(session.output, 30) == {"x": 4}
        tid = session.thread_id

    async with httpx.AsyncClient(base_url=live.url) as http:

        async def command(method: str, params: dict[str, Any]) -> dict[str, Any]:
            body = {"id": 1, "method": method, "params": params}
            answer = await http.post(f"/threads/{tid}/commands", json=body)
            assert answer.status_code == 200
            return dict(answer.json())

        state = (await command("state.get", {"namespace": [], "keys": ["x"]}))["result"]
        listed = (await command("state.listCheckpoints", {"limit": 3}))["result"]["checkpoints"]
        assert state["values"] == {"x": 4} and state["checkpoint"]["id"] == listed[0]["id"]
        assert [c["step"] for c in listed] == [2, 1, 0]
        assert all(c["timestamp"] and c["metadata"]["step"] == c["step"] for c in listed)
        after_a = listed[1]["id"]
        forked = await command("state.fork", {"checkpoint_id": after_a})
        assert forked["result"]["thread_id"] == tid
        out = await client.runs.join(tid, forked["result"]["run_id"])
        assert out == {"x": 4}  # b ran again from the state after a
        history = await client.threads.get_history(tid, limit=2)  # the new branch
        assert after_a in {h["parent_checkpoint"]["checkpoint_id"] for h in history}
        missing = await command("state.fork", {"checkpoint_id": "nope"})
        assert missing["type"] == "error" and missing["error"] == "no_such_checkpoint"
        sub = await command("state.get", {"namespace": ["child"]})
        assert sub["error"] == "invalid_argument" and "root graph" in sub["message"]


async def test_a_second_run_in_a_session_continues_the_thread(client: Any) -> None:
    async with client.threads.stream(assistant_id="two") as session:
        await session.run.start(input={"x": 1})
        assert await asyncio.wait_for(session.output, 30) == {"x": 4}
    async with client.threads.stream(session.thread_id, assistant_id="two") as again:
        started = await again.run.start(input={"x": 10})
        # Not `again.output`: a stream opened on a thread with runs replays them (as the
        # reference server's thread stream does), so the SDK may resolve `output` on the
        # first run's end before this one's; joining this run is what the test is about.
        out = await asyncio.wait_for(client.runs.join(session.thread_id, started["run_id"]), 30)
        assert out == {"x": 22}


def _key(event: dict[str, Any]) -> tuple[Any, ...]:
    """An event without its timestamp (the time it was sent, per stream)."""
    params = event["params"]
    return event["seq"], event["method"], params["namespace"], params["data"]


async def _read_all(
    url: str, body: dict[str, Any], count: int | None = None
) -> list[dict[str, Any]]:
    """The events of a thread's runs until its last run's root lifecycle ends (or ``count``
    of them: the stream stays open for the thread's next runs)."""
    events: list[dict[str, Any]] = []
    async with httpx.AsyncClient(timeout=30) as http, http.stream("POST", url, json=body) as r:
        assert r.status_code == 200
        async for line in r.aiter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
                if len(events) == count:
                    break
                params = events[-1]["params"]
                ending = params["data"].get("event") in ("completed", "failed", "interrupted")
                if events[-1]["method"] == "lifecycle" and not params["namespace"] and ending:
                    break
    return events


async def test_subgraph_events_carry_their_namespaces_and_filter_by_depth(
    live: LiveServer,
) -> None:
    client = get_client(url=live.url, api_key=None)
    async with client.threads.stream(assistant_id="nested") as session:
        await session.run.start(input={"x": 1})
        assert await asyncio.wait_for(session.output, 30) == {"x": 5}
        tid = session.thread_id
    url = f"{live.url}/threads/{tid}/stream/events"
    channels = ["values", "updates", "lifecycle"]
    everything = await _read_all(url, {"channels": channels, "since": 0})
    seen = [(e["method"], e["params"]["namespace"], e["params"]["data"]) for e in everything]
    [child] = {tuple(ns) for _, ns, _ in seen if ns}
    assert len(child) == 1 and child[0].startswith("child:")
    ns = list(child)
    task_id = child[0].split(":", 1)[1]
    root = [(m, d) for m, n, d in seen if not n]
    # the run's lifecycle at the root, with the graph's name
    assert root[0] == ("lifecycle", {"event": "running", "graph_name": "nested"})
    assert root[-1] == ("lifecycle", {"event": "completed", "graph_name": "nested"})
    # the subgraph's: started before its first event, completed when its node's update came
    mine = [(m, d) for m, n, d in seen if n == ns]
    assert mine[0] == (
        "lifecycle",
        {"event": "started", "namespace": ns, "graph_name": "child", "trigger_call_id": task_id},
    )
    assert ("values", {"x": 2}) in mine and ("updates", {"b": {"x": 4}}) in mine
    assert mine[-1] == ("lifecycle", {"event": "completed", "graph_name": "child"})
    done = seen.index(("lifecycle", ns, {"event": "completed", "graph_name": "child"}))
    assert seen[done - 1] == ("updates", [], {"child": {"x": 4}})

    # the root only (depth 0 below []), the subgraph only (its node's name as the prefix)
    top = await _read_all(url, {"channels": channels, "since": 0, "namespaces": [[]], "depth": 0})
    assert [_key(e) for e in everything if not e["params"]["namespace"]] == [_key(e) for e in top]
    nested = [e for e in everything if e["params"]["namespace"]]
    scoped = {"channels": channels, "since": 0, "namespaces": [["child"]]}
    below = await _read_all(url, scoped, len(nested))
    assert [_key(e) for e in below] == [_key(e) for e in nested]
    # everything below the root, at any depth
    anywhere = await _read_all(url, {"channels": channels, "since": 0, "namespaces": [[]]})
    assert [e["seq"] for e in anywhere] == [e["seq"] for e in everything]

    async with httpx.AsyncClient(timeout=30) as http:
        bad = await http.post(url, json={"channels": channels, "depth": -1})
        worse = await http.post(url, json={"channels": channels, "namespaces": ["child"]})
    assert bad.status_code == 422 and bad.json()["detail"].startswith("depth:")
    assert worse.status_code == 422 and worse.json()["detail"].startswith("namespaces:")


async def test_a_session_discovers_its_subgraphs(client: Any) -> None:
    async with client.threads.stream(assistant_id="nested") as session:
        await session.run.start(input={"x": 1})
        handles = []
        async for handle in session.subgraphs:
            handles.append(handle)
        assert await asyncio.wait_for(session.output, 30) == {"x": 5}
    [handle] = handles
    assert handle.graph_name == "child" and handle.path[0].startswith("child:")
    assert handle.status == "completed"
