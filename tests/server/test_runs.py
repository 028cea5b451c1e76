"""Runs, driven by the official ``langgraph-sdk`` client: streams (modes, the first
``metadata`` event, subgraph events, SSE framing and headers), wait, background runs and
join, stateless runs, commands, forks, breakpoints, cancel and multitask strategies."""

from __future__ import annotations

import asyncio
import itertools
from datetime import datetime
from typing import Any

import httpx
import pytest
from langgraph_sdk.errors import ConflictError, NotFoundError, UnprocessableEntityError

from server.conftest import LiveServer


async def _events(stream: Any) -> list[tuple[str, Any]]:
    return [(part.event, part.data) async for part in stream]


async def test_stream_values_starts_with_metadata(client: Any) -> None:
    thread = await client.threads.create()
    events = await _events(client.runs.stream(thread["thread_id"], "two", input={"x": 1}))
    name, first = events[0]
    assert name == "metadata" and first["attempt"] == 1
    run = await client.runs.get(thread["thread_id"], first["run_id"])
    assert (
        run["status"] == "success"
        and run["assistant_id"] == (await client.assistants.get("two"))["assistant_id"]
    )
    assert events[1:] == [("values", {"x": 1}), ("values", {"x": 2}), ("values", {"x": 4})]


async def test_stream_several_modes(client: Any) -> None:
    thread = await client.threads.create()
    events = await _events(
        client.runs.stream(
            thread["thread_id"],
            "review",
            input={"text": "t", "log": []},
            stream_mode=["updates", "custom"],
        )
    )
    names = [e for e, _ in events]
    assert names == ["metadata", "updates", "updates"]
    assert events[1][1] == {"draft": {"text": "t (drafted)", "log": ["draft"]}}
    assert events[2][1]["__interrupt__"][0]["value"]["question"] == "approve?"
    resumed = await _events(
        client.runs.stream(
            thread["thread_id"],
            "review",
            command={"resume": "ok"},
            stream_mode=["custom", "updates"],
        )
    )
    assert ("custom", {"published": "t (drafted) -> ok"}) in resumed
    assert [e for e, _ in resumed] == ["metadata", "updates", "custom", "updates"]


async def test_debug_and_tasks_modes(client: Any) -> None:
    events = await _events(client.runs.stream(None, "two", input={"x": 1}, stream_mode="debug"))
    kinds = [d["type"] for e, d in events if e == "debug"]
    assert kinds.count("checkpoint") == 4 and kinds.count("task_result") == 2
    checkpoint = next(d for e, d in events if e == "debug" and d["type"] == "checkpoint")
    assert checkpoint["payload"]["checkpoint"]["checkpoint_id"]
    tasks = await _events(client.runs.stream(None, "two", input={"x": 1}, stream_mode="tasks"))
    assert [d["name"] for e, d in tasks if e == "tasks" and "result" in d] == ["a", "b"]


async def test_messages_tuple_mode(client: Any) -> None:
    events = await _events(
        client.runs.stream(
            None,
            "chat",
            input={"messages": [{"role": "user", "content": "hi"}]},
            stream_mode="messages-tuple",
        )
    )
    chunks = [d for e, d in events if e == "messages"]
    assert chunks, events
    text = "".join(message["content"] for message, _meta in chunks)
    assert text == "hello there"
    assert all(meta["langgraph_node"] == "respond" for _m, meta in chunks)


async def test_subgraph_events_are_named_mode_and_namespace(client: Any) -> None:
    events = await _events(
        client.runs.stream(
            None, "nested", input={"x": 1}, stream_mode="updates", stream_subgraphs=True
        )
    )
    names = [e for e, _ in events]
    inner = [e for e in names if e.startswith("updates|")]
    assert len(inner) == 2 and all(e.startswith("updates|child:") for e in inner)
    assert names[-2:] == ["updates", "updates"]  # the child as a node, then `a`
    flat = await _events(client.runs.stream(None, "nested", input={"x": 1}, stream_mode="updates"))
    assert [e for e, _ in flat] == ["metadata", "updates", "updates"]


def test_sse_frames_and_headers(live: LiveServer) -> None:
    thread = httpx.post(f"{live.url}/threads", json={}).json()
    tid = thread["thread_id"]
    with httpx.stream(
        "POST",
        f"{live.url}/threads/{tid}/runs/stream",
        json={"assistant_id": "two", "input": {"x": 1}},
    ) as response:
        body = response.read().decode()
        headers = response.headers
    assert headers["content-type"].startswith("text/event-stream")
    run_path = headers["content-location"]
    assert run_path.startswith(f"/threads/{tid}/runs/")
    assert headers["location"] == run_path + "/stream"
    frames = body.split("\r\n\r\n")
    assert frames[0].startswith("event: metadata\r\ndata: {")
    assert frames[1] == 'event: values\r\ndata: {"x":1}'


async def test_wait_background_join_list(client: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    run = await client.runs.create(tid, "two", input={"x": 3}, metadata={"why": "test"})
    assert run["status"] in ("pending", "running") and run["metadata"]["why"] == "test"
    assert await client.runs.join(tid, run["run_id"]) == {"x": 8}
    done = await client.runs.get(tid, run["run_id"])
    assert done["status"] == "success"
    second = await client.runs.wait(tid, "two", input={"x": 0})
    assert second == {"x": 2}
    listed = await client.runs.list(tid)
    assert [r["run_id"] for r in listed][-1] == run["run_id"] and len(listed) == 2
    await client.runs.delete(tid, run["run_id"])
    with pytest.raises(NotFoundError):
        await client.runs.get(tid, run["run_id"])


async def test_stateless_runs_leave_no_thread(client: Any) -> None:
    before = await client.threads.count()
    assert await client.runs.wait(None, "two", input={"x": 5}) == {"x": 12}
    events = await _events(client.runs.stream(None, "two", input={"x": 5}))
    assert events[-1] == ("values", {"x": 12})
    assert await client.threads.count() == before
    kept = await client.runs.create(None, "two", input={"x": 1}, on_completion="keep")
    assert await client.runs.join(kept["thread_id"], kept["run_id"]) == {"x": 4}
    assert (await client.threads.get(kept["thread_id"]))["values"] == {"x": 4}


async def test_command_goto_and_update(client: Any) -> None:
    thread = await client.threads.create()
    out = await client.runs.wait(
        thread["thread_id"],
        "review",
        command={"goto": "jump", "update": {"text": "direct", "log": []}},
    )
    # a Command as a new thread's first input also runs START with it (LangGraph): START's
    # edge to `draft` is followed beside the goto, and `draft` then stops at `review`
    assert out["text"] == "direct (drafted)"
    assert out["log"] == ["draft", "jump", "publish"]


async def test_fork_from_an_older_checkpoint(client: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    await client.runs.wait(tid, "two", input={"x": 1})
    history = await client.threads.get_history(tid)
    middle = next(h for h in history if h["values"] == {"x": 2})
    forked = await client.runs.wait(
        tid, "two", input=None, checkpoint_id=middle["checkpoint"]["checkpoint_id"]
    )
    assert forked == {"x": 4}
    newest, fork = (await client.threads.get_history(tid))[:2]
    # LangGraph 1.2 branches with a `fork` checkpoint whose parent is the one forked from
    assert fork["metadata"]["source"] == "fork" and fork["values"] == {"x": 2}
    assert fork["parent_checkpoint"]["checkpoint_id"] == middle["checkpoint"]["checkpoint_id"]
    assert newest["parent_checkpoint"] == fork["checkpoint"]
    assert len(await client.threads.get_history(tid, limit=100)) == len(history) + 2
    edited = await client.threads.update_state(
        tid, {"x": 50}, as_node="a", checkpoint_id=middle["checkpoint"]["checkpoint_id"]
    )
    # the reference's answer: the new checkpoint's config, twice, and its id
    new_id = edited["checkpoint_id"]
    at = {"thread_id": tid, "checkpoint_ns": "", "checkpoint_id": new_id}
    assert edited == {"checkpoint": at, "configurable": at, "checkpoint_id": new_id}
    again = await client.runs.wait(
        tid, "two", input=None, checkpoint_id=edited["checkpoint"]["checkpoint_id"]
    )
    assert again == {"x": 100}


async def test_a_fork_from_a_missing_checkpoint_is_a_404(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    await client.runs.wait(tid, "two", input={"x": 1})
    runs = client.runs
    nope = "1f000000-0000-6000-8000-00000000beef"  # a UUID, as checkpoint ids are
    for forked in (
        lambda: runs.wait(tid, "two", input=None, checkpoint_id=nope),
        lambda: runs.create(tid, "two", input=None, checkpoint_id=nope),
        lambda: _events(runs.stream(tid, "two", input=None, checkpoint_id=nope)),
        lambda: runs.wait(tid, "two", input=None, checkpoint={"checkpoint_id": nope}),
    ):
        # the client's stream does not map statuses to its own errors: httpx's it is
        with pytest.raises((NotFoundError, httpx.HTTPStatusError), match=nope) as missing:
            await forked()
        assert missing.value.response.status_code == 404
    with pytest.raises(NotFoundError, match=nope):
        await client.threads.update_state(tid, {"x": 5}, checkpoint_id=nope)
    with pytest.raises(NotFoundError, match=nope):
        await client.threads.update_state(tid, {"x": 5}, checkpoint={"checkpoint_id": nope})
    assert len(await client.runs.list(tid)) == 1
    assert (await client.threads.get_state(tid))["values"] == {"x": 4}
    fresh = (await client.threads.create())["thread_id"]
    with pytest.raises((NotFoundError, httpx.HTTPStatusError), match=nope):
        await client.runs.wait(fresh, "two", input={"x": 1}, checkpoint_id=nope)


async def test_interrupt_before_and_after(client: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    stopped = await client.runs.wait(tid, "two", input={"x": 1}, interrupt_before=["b"])
    assert stopped == {"x": 2}
    state = await client.threads.get_state(tid)
    assert state["next"] == ["b"]
    assert (await client.threads.get(tid))["status"] == "interrupted"
    assert await client.runs.wait(tid, "two", input=None) == {"x": 4}
    other = (await client.threads.create())["thread_id"]
    after = await client.runs.wait(other, "two", input={"x": 1}, interrupt_after=["a"])
    assert after == {"x": 2}
    assert (await client.threads.get_state(other))["next"] == ["b"]


async def _until(predicate: Any) -> None:
    for _ in range(2000):
        if await predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition never held")


async def test_cancel_a_running_run(client: Any, gate: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    run = await client.runs.create(tid, "gated", input={"x": 1})
    await asyncio.to_thread(gate.entered.wait, 30)
    assert (await client.threads.get(tid))["status"] == "busy"
    await client.runs.cancel(tid, run["run_id"])
    gate.opened.set()
    await client.runs.join(tid, run["run_id"])
    assert (await client.runs.get(tid, run["run_id"]))["status"] == "interrupted"
    state = await client.threads.get_state(tid)
    assert state["next"] and "b" not in state["values"]  # `b` never ran
    assert state["values"] != {"x": 204}
    assert (await client.threads.get(tid))["status"] == "interrupted"
    # as the reference: cancelling a run that already ended changes nothing and is no error
    assert await client.runs.cancel(tid, run["run_id"]) is None
    assert (await client.runs.get(tid, run["run_id"]))["status"] == "interrupted"
    assert await client.runs.cancel(tid, run["run_id"], wait=True) == state["values"]


async def test_cancel_with_wait_answers_the_run_result_once_it_stopped(
    client: Any, gate: Any, live: Any
) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    run = await client.runs.create(tid, "gated", input={"x": 1})
    await asyncio.to_thread(gate.entered.wait, 30)
    cancelling = asyncio.create_task(client.runs.cancel(tid, run["run_id"], wait=True))
    runs = live.app.state.server.runs

    async def asked() -> bool:
        return await asyncio.to_thread(runs.cancel_requested, run["run_id"]) == "interrupt"

    await _until(asked)
    assert not cancelling.done()  # it waits for the run to stop
    gate.opened.set()
    result = await cancelling
    assert (await client.runs.get(tid, run["run_id"]))["status"] == "interrupted"
    assert result == (await client.threads.get_state(tid))["values"] != {"x": 204}


async def test_a_task_that_ends_after_its_run_was_cancelled_is_not_kept(
    client: Any, gate: Any
) -> None:
    # The worker stops a cancelled run's stream at the next chunk it sees, here `wait`'s
    # result, which ended after the cancel: as the reference's asyncio cancel, which never
    # lets it end, its writes are not kept (a closed stream keeps a finished task's), so
    # continuing the thread runs `wait` again.
    thread = await client.threads.create()
    tid = thread["thread_id"]
    run = await client.runs.create(tid, "gated", input={"x": 1})
    await asyncio.to_thread(gate.entered.wait, 30)
    await client.runs.cancel(tid, run["run_id"])
    gate.opened.set()
    await client.runs.join(tid, run["run_id"])
    state = await client.threads.get_state(tid)
    assert state["values"] == {"x": 2} and state["next"] == ["wait"]
    assert [(t["name"], t["result"]) for t in state["tasks"]] == [("wait", None)]
    assert await client.runs.wait(tid, "gated", input=None) == {"x": 204}
    assert gate.calls == 2


async def test_multitask_reject_enqueue_interrupt(client: Any, gate: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    first = await client.runs.create(tid, "gated", input={"x": 1})
    await asyncio.to_thread(gate.entered.wait, 30)
    with pytest.raises(ConflictError) as rejected:
        await client.runs.create(tid, "two", input={"x": 1}, multitask_strategy="reject")
    assert "already running" in str(rejected.value)
    # enqueue is the default, as the reference's
    queued = await client.runs.create(tid, "gated", input={"x": 10})
    assert queued["multitask_strategy"] == "enqueue"
    assert (await client.runs.get(tid, queued["run_id"]))["status"] == "pending"
    gate.opened.set()
    assert await client.runs.join(tid, first["run_id"]) == {"x": 204}
    assert await client.runs.join(tid, queued["run_id"]) == {"x": 222}
    assert gate.calls == 2


async def test_multitask_interrupt_cancels_the_running_run(client: Any, gate: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    third = await client.runs.create(tid, "gated", input={"x": 1})
    await asyncio.to_thread(gate.entered.wait, 30)
    fourth = await client.runs.create(tid, "gated", input={"x": 1}, multitask_strategy="interrupt")
    gate.opened.set()
    await client.runs.join(tid, fourth["run_id"])
    assert (await client.runs.get(tid, third["run_id"]))["status"] == "interrupted"


async def test_new_input_after_an_interrupted_run(client: Any, gate: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    first = await client.runs.create(tid, "gated", input={"x": 1})
    await asyncio.to_thread(gate.entered.wait, 30)
    second = await client.runs.create(tid, "gated", input={"x": 1}, multitask_strategy="interrupt")
    gate.opened.set()
    await client.runs.join(tid, first["run_id"])
    assert await client.runs.join(tid, second["run_id"]) == {"x": 204}


async def test_resumable_stream_rejoined_with_last_event_id(client: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    parts = [p async for p in client.runs.stream(tid, "two", input={"x": 1}, stream_resumable=True)]
    # the reference's Redis-stream form <ms>-<seq>: here the run's creation, then the number
    run_id = parts[0].data["run_id"]
    created = (await client.runs.get(tid, run_id))["created_at"]
    ms = int(datetime.fromisoformat(created).timestamp() * 1000)
    assert [p.id for p in parts] == [f"{ms}-{seq}" for seq in range(4)]
    for last in (f"{ms}-1", "1"):  # the ids sent, and the plain numbers sent before
        missed = [
            (p.event, p.data)
            async for p in client.runs.join_stream(tid, run_id, last_event_id=last)
        ]
        assert missed == [("values", {"x": 2}), ("values", {"x": 4})]
    everything = [p async for p in client.runs.join_stream(tid, run_id, last_event_id="-1")]
    assert [p.id for p in everything] == [p.id for p in parts]


async def test_joining_a_finished_run_that_was_not_resumable_sends_nothing(client: Any) -> None:
    # the reference keeps only a resumable run's events: rejoining a finished run that was
    # not resumable gives an empty stream, with or without Last-Event-ID
    tid = (await client.threads.create())["thread_id"]
    parts = [p async for p in client.runs.stream(tid, "two", input={"x": 1})]
    assert [p.id for p in parts] == [None, None, None, None]
    run_id = parts[0].data["run_id"]
    assert [p async for p in client.runs.join_stream(tid, run_id)] == []
    assert [p async for p in client.runs.join_stream(tid, run_id, last_event_id="-1")] == []


async def test_a_resumable_stream_outlives_the_servers_memory(
    client: Any, live: LiveServer
) -> None:
    tid = (await client.threads.create())["thread_id"]
    parts = [p async for p in client.runs.stream(tid, "two", input={"x": 1}, stream_resumable=True)]
    run_id = parts[0].data["run_id"]
    live.app.state.server.streams.streams.pop(run_id)  # as after keep_seconds, or a restart
    missed = [
        (p.id, p.event, p.data)
        async for p in client.runs.join_stream(tid, run_id, last_event_id="1")
    ]
    base = parts[0].id.split("-")[0]
    assert missed == [(f"{base}-2", "values", {"x": 2}), (f"{base}-3", "values", {"x": 4})]


async def test_bad_run_requests(client: Any, live: LiveServer) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    with pytest.raises(httpx.HTTPStatusError) as no_graph:  # runs.wait raises httpx's error
        await client.runs.wait(tid, "no-such-graph", input={})
    assert no_graph.value.response.status_code == 422  # neither a UUID nor a graph id
    with pytest.raises(httpx.HTTPStatusError) as no_assistant:
        await client.runs.wait(tid, "00000000-0000-4000-8000-00000000abcd", input={})
    assert no_assistant.value.response.status_code == 404
    with pytest.raises(UnprocessableEntityError) as unknown_mode:
        await client.runs.create(tid, "two", input={"x": 1}, stream_mode="everything")  # type: ignore[arg-type]
    assert "'everything' is not a stream mode" in str(unknown_mode.value)
    with pytest.raises(UnprocessableEntityError) as both:
        await client.runs.create(tid, "two", input={"x": 1}, command={"resume": 1})
    assert "input and command" in str(both.value)
    with pytest.raises(UnprocessableEntityError) as node:
        await client.runs.create(tid, "two", input={"x": 1}, interrupt_before=["nope"])
    assert "'nope' is not a node" in str(node.value)
    with pytest.raises(NotFoundError):
        await client.runs.create("8d7d0bd1-0000-0000-0000-000000000000", "two", input={"x": 1})
    made = await client.runs.wait(
        "8d7d0bd1-0000-0000-0000-000000000001", "two", input={"x": 1}, if_not_exists="create"
    )
    assert made == {"x": 4}
    no_assistant = httpx.post(f"{live.url}/runs/wait", json={"input": {}})
    assert no_assistant.status_code == 422
    assert "assistant_id" in no_assistant.json()["detail"]


async def test_after_seconds_and_webhook(client: Any) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    received: list[bytes] = []
    arrived = threading.Event()

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # the webhook's receiver
            received.append(self.rfile.read(int(self.headers["content-length"])))
            self.send_response(204)
            self.end_headers()
            arrived.set()

        def log_message(self, *args: Any) -> None:
            pass

    hook = HTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    try:
        thread = await client.threads.create()
        tid = thread["thread_id"]
        run = await client.runs.create(
            tid,
            "two",
            input={"x": 1},
            after_seconds=0.3,
            webhook=f"http://127.0.0.1:{hook.server_port}/done",
        )
        assert await client.runs.join(tid, run["run_id"]) == {"x": 4}
        from datetime import datetime

        first = (await client.threads.get_history(tid, limit=10))[-1]  # the input checkpoint
        waited = datetime.fromisoformat(first["created_at"]) - datetime.fromisoformat(
            run["created_at"]
        )
        assert waited.total_seconds() >= 0.3  # no worker started it earlier
        assert await asyncio.to_thread(arrived.wait, 30)
        import json

        told = json.loads(received[0])
        assert told["run_id"] == run["run_id"] and told["status"] == "success"
        assert told["values"] == {"x": 4}
    finally:
        hook.shutdown()
    with pytest.raises(UnprocessableEntityError) as bad_hook:
        await client.runs.create(tid, "two", input={"x": 1}, webhook="file:///etc/passwd")
    assert "webhook" in str(bad_hook.value)
    with pytest.raises(UnprocessableEntityError):
        await client.runs.create(tid, "two", input={"x": 1}, after_seconds=-1)


async def test_messages_mode_partial_and_metadata(client: Any) -> None:
    events = await _events(
        client.runs.stream(
            None,
            "chat",
            input={"messages": [{"role": "user", "content": "hi"}]},
            stream_mode="messages",
        )
    )
    names = [e for e, _ in events]
    assert names[1] == "messages/metadata"
    assert names.count("messages/metadata") == 1
    [(only_id, meta)] = events[1][1].items()
    assert only_id == "ai-1" and meta["metadata"]["langgraph_node"] == "respond"
    partials = [d[0]["content"] for e, d in events if e == "messages/partial"]
    assert partials[-1] == "hello there"  # the message so far, growing
    # shown as a whole message, as the reference shows it: no chunk's type or fields
    shown = [d[0] for e, d in events if e == "messages/partial"]
    assert all(m["type"] == "ai" and "tool_call_chunks" not in m for m in shown)
    assert all(b.startswith(a) for a, b in itertools.pairwise(partials))


async def test_events_mode(client: Any) -> None:
    events = await _events(
        client.runs.stream(
            None,
            "chat",
            input={"messages": [{"role": "user", "content": "hi"}]},
            stream_mode=["events", "values"],
        )
    )
    kinds = [d["event"] for e, d in events if e == "events"]
    assert "on_chat_model_stream" in kinds and "on_chain_start" in kinds
    # the root run is named by its graph id (the graph kept LangGraph's default name)
    roots = [d for e, d in events if e == "events" and not d.get("parent_ids")]
    assert {(d["event"], d["name"]) for d in roots} == {
        ("on_chain_start", "chat"),
        ("on_chain_end", "chat"),
    }
    streamed = "".join(
        d["data"]["chunk"]["content"]
        for e, d in events
        if e == "events" and d["event"] == "on_chat_model_stream"
    )
    assert streamed == "hello there"
    values = [d for e, d in events if e == "values"]
    assert values[-1]["messages"][-1]["content"] == "hello there"
    assert not any(
        e == "events" and d["event"] == "on_chain_stream" and not d.get("parent_ids")
        for e, d in events
    )  # the root graph's chunks come as their own modes, not as events


async def test_a_cancelled_queued_run_leaves_the_thread_as_it_was(client: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    await client.runs.wait(tid, "review", input={"text": "q", "log": []})  # interrupted
    assert (await client.threads.get(tid))["status"] == "interrupted"
    later = await client.runs.create(tid, "review", command={"resume": "later"}, after_seconds=3600)
    assert (await client.threads.get(tid))["status"] == "busy"
    assert [t["thread_id"] for t in await client.threads.search(status="busy", ids=[tid])] == [tid]
    await client.runs.cancel(tid, later["run_id"])
    assert (await client.runs.get(tid, later["run_id"]))["status"] == "interrupted"
    assert (await client.threads.get(tid))["status"] == "interrupted"


async def test_on_run_created_reads_the_content_location(client: Any) -> None:
    seen: list[Any] = []
    thread = await client.threads.create()
    events = await _events(
        client.runs.stream(thread["thread_id"], "two", input={"x": 1}, on_run_created=seen.append)
    )
    assert seen == [{"run_id": events[0][1]["run_id"], "thread_id": thread["thread_id"]}]
    made = await client.runs.create(None, "two", input={"x": 1}, on_run_created=seen.append)
    assert seen[-1] == {"run_id": made["run_id"], "thread_id": None}


async def test_tools_mode(client: Any) -> None:
    """LangGraph's ``tools`` stream mode (tool-started / tool-finished by tool call id)."""
    parts = [
        (p.event, p.data)
        async for p in client.runs.stream(
            None, "tooled", input={"messages": []}, stream_mode=["tools", "lifecycle"]
        )
    ]
    assert parts[0][0] == "metadata"
    tools = [data for event, data in parts if event == "tools"]
    assert tools[0] == {
        "event": "tool-started",
        "tool_call_id": "call-1",
        "tool_name": "add",
        "input": {"a": 1, "b": 2},
    }
    assert tools[1]["event"] == "tool-finished" and tools[1]["tool_call_id"] == "call-1"
    assert tools[1]["output"]["content"] == "3" and tools[1]["output"]["type"] == "tool"
    assert len(tools) == 2


async def test_a_runs_checkpoints_carry_the_references_run_metadata(client: Any) -> None:
    # langgraph-api puts these in a run's config metadata, so every checkpoint the run
    # writes has them beside the run's own ids
    thread = await client.threads.create()
    run = await client.runs.create(thread["thread_id"], "two", input={"x": 1})
    await client.runs.join(thread["thread_id"], run["run_id"])
    metadata = (await client.threads.get_history(thread["thread_id"]))[0]["metadata"]
    assert metadata["run_id"] == run["run_id"] and metadata["run_attempt"] == 1
    assert metadata["graph_id"] == "two" and metadata["assistant_id"] == run["assistant_id"]
    assert metadata["langgraph_version"].startswith("1.2.")
    assert metadata["langgraph_host"] == "self-hosted"


async def test_a_runs_metadata_is_merged_as_the_reference_merges_it(client: Any, gate: Any) -> None:
    # the assistant's (a system assistant's created_by), the thread's, the request's, and
    # the assistant that runs it; the run's checkpoints keep it
    thread = await client.threads.create(metadata={"owner": "ann"})
    tid = thread["thread_id"]
    await client.runs.wait(tid, "two", input={"x": 1}, metadata={"tag": "t1"})
    (run,) = await client.runs.list(tid)
    system = (await client.assistants.search(graph_id="two", metadata={"created_by": "system"}))[0]
    assert run["metadata"] == {
        "created_by": "system",
        "owner": "ann",
        "graph_id": "two",
        "assistant_id": system["assistant_id"],
        "tag": "t1",
    }
    state = await client.threads.get_state(tid)
    assert state["metadata"]["tag"] == "t1" and state["metadata"]["owner"] == "ann"
    assert state["metadata"]["created_by"] == "system"
    tagged = await client.threads.get_history(tid, metadata={"tag": "t1"})
    assert len(tagged) == 4  # the input checkpoint and each step's
    gated = await client.runs.create(tid, "gated", input={"x": 1})
    assert await asyncio.to_thread(gate.entered.wait, 30)
    with pytest.raises(ConflictError, match=r"^Thread is already running a task\. Wait for it"):
        await client.runs.create(tid, "two", input={"x": 1}, multitask_strategy="reject")
    gate.opened.set()
    await client.runs.join(tid, gated["run_id"])


async def test_deleting_a_run_deletes_the_checkpoints_it_wrote(client: Any) -> None:
    # as the reference: the thread's state is back to the one before the run
    tid = (await client.threads.create())["thread_id"]
    assert await client.runs.wait(tid, "two", input={"x": 1}) == {"x": 4}
    before = await client.threads.get_history(tid)
    assert await client.runs.wait(tid, "two", input={"x": 2}) == {"x": 6}
    latest = (await client.runs.list(tid))[0]
    await client.runs.delete(tid, latest["run_id"])
    state = await client.threads.get_state(tid)
    assert state["values"] == {"x": 4}
    assert [h["checkpoint"] for h in await client.threads.get_history(tid)] == [
        h["checkpoint"] for h in before
    ]
