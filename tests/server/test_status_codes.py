"""Status codes as the reference server answers them, through the official ``langgraph-sdk``
client: a malformed ``command`` (on a run, in a seeding superstep) is a 422 whose ``detail``
names the field, never a 500 or a failed worker; a fork from a checkpoint the thread does not
have is a 404 (the reference starts such a run from nothing: README, "API differences");
an interrupted run ends ``success`` with its thread ``interrupted`` (the reference's
worker: no exception, so success; the thread waits on its next tasks)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from langgraph_sdk.errors import NotFoundError, UnprocessableEntityError

from server.conftest import LiveServer

MALFORMED_COMMANDS = [
    ({"goto": 5}, "command.goto"),
    ({"goto": [{"input": {}}]}, "command.goto"),
    ({"update": "x"}, "command.update"),
    ({"update": [["x", 1, 2]]}, "command.update"),
    ({"bogus": 1}, "command"),
]


@pytest.mark.parametrize(("command", "field"), MALFORMED_COMMANDS)
async def test_a_malformed_command_is_a_422_naming_the_field(
    client: Any, command: dict[str, Any], field: str
) -> None:
    tid = (await client.threads.create())["thread_id"]
    for start in (client.runs.wait, client.runs.create):
        # the client maps some statuses to its own errors, others are httpx's
        with pytest.raises((UnprocessableEntityError, httpx.HTTPStatusError)) as refused:
            await start(tid, "review", command=command)
        assert refused.value.response.status_code == 422
        detail = refused.value.response.json()["detail"]
        assert detail.startswith(field), detail
    assert await client.runs.list(tid) == []
    # the workers are still there: a good run on the thread ends
    out = await client.runs.wait(tid, "two", input={"x": 1})
    assert out == {"x": 4}


SEEDS = [
    ({"as_node": "draft", "command": "go"}, "supersteps[0].updates[0].command"),
    ({"as_node": "draft", "command": {"go": 1}}, "supersteps[0].updates[0].command"),
    ({"as_node": "draft", "command": {"goto": 5}}, "supersteps[0].updates[0].command.goto"),
    ({"as_node": "draft", "command": {"update": 3}}, "supersteps[0].updates[0].command.update"),
    ({"values": {"log": ["x"]}}, "supersteps[0].updates[0]"),
]


@pytest.mark.parametrize(("update", "field"), SEEDS)
async def test_a_malformed_seeding_superstep_is_a_422_naming_it(
    client: Any, update: dict[str, Any], field: str
) -> None:
    # the client's threads.create reshapes supersteps itself: the body goes as it is
    with pytest.raises((UnprocessableEntityError, httpx.HTTPStatusError)) as refused:
        body = {"metadata": {"graph_id": "review"}, "supersteps": [{"updates": [update]}]}
        await client.http.post("/threads", json=body)
    assert refused.value.response.status_code == 422
    detail = refused.value.response.json()["detail"]
    assert detail.startswith(field), detail


async def test_a_fork_from_a_missing_checkpoint_named_in_the_config_is_a_404(
    client: Any,
) -> None:
    tid = (await client.threads.create())["thread_id"]
    await client.runs.wait(tid, "two", input={"x": 1})
    missing = "1f000000-0000-6000-8000-000000000000"
    config = {"configurable": {"checkpoint_id": missing}}
    with pytest.raises((NotFoundError, httpx.HTTPStatusError), match=missing):
        await client.runs.wait(tid, "two", input=None, config=config)
    with pytest.raises((NotFoundError, httpx.HTTPStatusError), match=missing):
        await client.runs.create(tid, "two", input=None, config=config)
    with pytest.raises(httpx.HTTPStatusError) as streamed:
        async for _ in client.runs.stream(tid, "two", input=None, config=config):
            pass
    assert streamed.value.response.status_code == 404
    assert len(await client.runs.list(tid)) == 1
    # an existing one forks
    history = await client.threads.get_history(tid)
    first = history[-1]["checkpoint"]["checkpoint_id"]
    config = {"configurable": {"checkpoint_id": first}}
    assert await client.runs.wait(tid, "two", input=None, config=config) == {"x": 4}


async def test_an_interrupted_run_ends_success_and_its_thread_interrupted(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    run = await client.runs.create(tid, "review", input={"text": "t", "log": []})
    await client.runs.join(tid, run["run_id"])
    assert (await client.runs.get(tid, run["run_id"]))["status"] == "success"
    thread = await client.threads.get(tid)
    assert thread["status"] == "interrupted"
    [(task_id, [asked])] = thread["interrupts"].items()
    assert asked["id"] and "value" in asked
    state = await client.threads.get_state(tid)
    assert state["next"] and state["tasks"][0]["id"] == task_id
    resumed = await client.runs.create(tid, "review", command={"resume": "ok"})
    await client.runs.join(tid, resumed["run_id"])
    assert (await client.runs.get(tid, resumed["run_id"]))["status"] == "success"
    assert (await client.threads.get(tid))["status"] == "idle"


@pytest.mark.parametrize("path", ["/runs", "/runs/wait", "/runs/stream", "/runs/batch"])
def test_a_resume_on_a_stateless_run_is_a_400_and_starts_nothing(
    live: LiveServer, path: str
) -> None:
    # the reference's status and words: a stateless run's thread is new, nothing to answer
    run = {"assistant_id": "review", "command": {"resume": "ok"}}
    before = httpx.post(f"{live.url}/threads/count", json={}).json()
    answer = httpx.post(live.url + path, json=[run] if path == "/runs/batch" else run)
    assert answer.status_code == 400
    assert answer.json() == {"detail": "You must provide a thread_id when resuming."}
    assert httpx.post(f"{live.url}/threads/count", json={}).json() == before


def test_a_batch_with_a_bad_item_queues_none_of_its_items(live: LiveServer) -> None:
    # the reference validates the whole list before it creates any run: the good item
    # before the bad one is not queued either
    good = {"assistant_id": "two", "input": {"x": 1}, "on_completion": "keep"}
    bad = {"assistant_id": "two", "input": {"x": 1}, "durability": "never"}
    before = httpx.post(f"{live.url}/threads/count", json={}).json()
    answer = httpx.post(f"{live.url}/runs/batch", json=[good, bad])
    assert answer.status_code == 422
    assert "durability" in answer.json()["detail"]
    # a queued good item (kept on completion) would have made its thread with its run
    assert httpx.post(f"{live.url}/threads/count", json={}).json() == before
