"""Whole-thread operations through the official ``langgraph-sdk``: copy, prune with
``keep_latest``, cancel with ``action="rollback"`` and ``multitask_strategy="rollback"``;
on SQLite and on PostgreSQL (where the official saver's own ``prune`` is used)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph_sdk.errors import ConflictError, NotFoundError, UnprocessableEntityError

from server.conftest import LiveServer, postgres_schema
from server.graphs import all_graphs
from superstep_server.app import create_app


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def live(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    if request.param == "sqlite":
        db = str(tmp_path_factory.mktemp("ops") / "server.db")
        with LiveServer(create_app(database=db, graphs=all_graphs(), workers=2)) as server:
            yield server
        return
    with (
        postgres_schema() as url,
        LiveServer(create_app(database=url, graphs=all_graphs(), workers=2)) as server,
    ):
        yield server


async def _gone(client: Any, tid: str, run_id: str) -> None:
    """Wait until the run is deleted (a rolled-back run is, by its worker)."""
    for _ in range(3000):
        try:
            await client.runs.get(tid, run_id)
        except NotFoundError:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"run {run_id} was never deleted")


async def test_copy_a_thread_with_its_history(client: Any) -> None:
    thread = await client.threads.create(metadata={"owner": "ann"})
    tid = thread["thread_id"]
    assert await client.runs.wait(tid, "two", input={"x": 1}) == {"x": 4}
    copied = await client.threads.copy(tid)
    new = copied["thread_id"]
    assert new != tid
    assert copied["metadata"]["owner"] == "ann"
    # as the reference's copy: idle, no values of its own until a run; the state is there
    assert copied["status"] == "idle" and copied["values"] is None
    assert copied["interrupts"] == {} and copied["config"] == {}
    assert await client.threads.get(new) == copied
    assert (await client.threads.get_state(new))["values"] == {"x": 4}
    history = await client.threads.get_history(new)
    original = await client.threads.get_history(tid)
    assert [h["values"] for h in history] == [h["values"] for h in original]
    assert [h["checkpoint"]["checkpoint_id"] for h in history] == [
        h["checkpoint"]["checkpoint_id"] for h in original
    ]
    assert all(h["checkpoint"]["thread_id"] == new for h in history)
    # the copy goes its own way: a run on it leaves the source as it was
    assert await client.runs.wait(new, "two", input={"x": 10}) == {"x": 22}
    assert (await client.threads.get_state(tid))["values"] == {"x": 4}
    assert len(await client.threads.get_history(new)) == len(original) + 4
    with pytest.raises(ConflictError, match="not found"):  # the reference's code for it
        await client.threads.copy("00000000-0000-0000-0000-000000000000")


async def test_copy_keeps_a_pending_interrupt(client: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    await client.runs.wait(tid, "review", input={"text": "hi", "log": []})
    copied = await client.threads.copy(tid)
    # the thread row starts idle (the reference's copy), its checkpoints keep the interrupt
    assert copied["status"] == "idle" and copied["interrupts"] == {}
    state = await client.threads.get_state(copied["thread_id"])
    assert state["next"] == ["review"]
    assert state["tasks"][0]["interrupts"][0]["value"]["question"] == "approve?"
    out = await client.runs.wait(copied["thread_id"], "review", command={"resume": "yes"})
    assert out["text"] == "hi (drafted) -> yes"
    after = await client.threads.get(copied["thread_id"])
    assert after["status"] == "idle" and after["values"]["text"] == "hi (drafted) -> yes"
    # the source is still waiting on its own interrupt
    assert (await client.threads.get(tid))["status"] == "interrupted"


async def test_prune_keep_latest_keeps_the_state(client: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    await client.runs.wait(tid, "two", input={"x": 1})
    await client.runs.wait(tid, "two", input={"x": 2})
    assert len(await client.threads.get_history(tid, limit=50)) == 8
    missing = "00000000-0000-0000-0000-000000000000"
    out = await client.threads.prune([tid, missing], strategy="keep_latest")
    assert out == {"pruned_count": 1}
    history = await client.threads.get_history(tid, limit=50)
    assert [h["values"] for h in history] == [{"x": 6}]
    assert (await client.threads.get(tid))["values"] == {"x": 6}
    assert await client.runs.wait(tid, "two", input={"x": 3}) == {"x": 8}
    with pytest.raises(UnprocessableEntityError):
        await client.threads.prune([tid], strategy="some")  # type: ignore[arg-type]


async def test_cancel_with_rollback_deletes_the_run_and_its_checkpoints(
    client: Any, gate: Any
) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    assert await client.runs.wait(tid, "two", input={"x": 1}) == {"x": 4}
    before = await client.threads.get_history(tid, limit=50)
    run = await client.runs.create(tid, "gated", input={"x": 5})
    await asyncio.to_thread(gate.entered.wait, 30)
    # the gated run has written its input and `a` checkpoints by now
    assert len(await client.threads.get_history(tid, limit=50)) > len(before)
    await client.runs.cancel(tid, run["run_id"], action="rollback")
    gate.opened.set()
    await _gone(client, tid, run["run_id"])
    after = await client.threads.get_history(tid, limit=50)
    assert [h["checkpoint"]["checkpoint_id"] for h in after] == [
        h["checkpoint"]["checkpoint_id"] for h in before
    ]
    got = await client.threads.get(tid)
    assert got["status"] == "idle" and got["values"] == {"x": 4}
    with pytest.raises(UnprocessableEntityError):
        await client.runs.cancel(tid, run["run_id"], action="undo")  # type: ignore[arg-type]
    # the reference's error body: {"detail": a string naming what is wrong}
    for path in (f"/threads/{tid}/runs/{run['run_id']}/cancel", "/runs/cancel"):
        body = {} if "threads" in path else {"thread_id": tid, "run_ids": [run["run_id"]]}
        answer = await client.http.client.post(path, params={"action": "undo"}, json=body)
        assert answer.status_code == 422
        assert answer.json() == {"detail": "action: 'undo' is not one of interrupt, rollback"}


async def test_rollback_of_a_first_run_leaves_an_empty_thread(
    client: Any, gate: Any, live: LiveServer
) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    run = await client.runs.create(tid, "gated", input={"x": 5})
    await asyncio.to_thread(gate.entered.wait, 30)
    # with wait: the answer comes once the run stopped; its values were rolled back
    cancelling = asyncio.create_task(
        client.runs.cancel(tid, run["run_id"], action="rollback", wait=True)
    )
    runs = live.app.state.server.runs
    for _ in range(3000):
        if await asyncio.to_thread(runs.cancel_requested, run["run_id"]) == "rollback":
            break
        await asyncio.sleep(0.01)
    assert not cancelling.done()
    gate.opened.set()
    assert await cancelling is None
    await _gone(client, tid, run["run_id"])
    assert await client.threads.get_history(tid) == []
    got = await client.threads.get(tid)
    assert got["status"] == "idle" and got["values"] is None


async def test_multitask_rollback(client: Any, gate: Any) -> None:
    thread = await client.threads.create()
    tid = thread["thread_id"]
    first = await client.runs.create(tid, "gated", input={"x": 1})
    await asyncio.to_thread(gate.entered.wait, 30)
    queued = await client.runs.create(tid, "two", input={"x": 7}, multitask_strategy="enqueue")
    last = await client.runs.create(tid, "two", input={"x": 2}, multitask_strategy="rollback")
    assert last["multitask_strategy"] == "rollback"
    gate.opened.set()
    assert await client.runs.join(tid, last["run_id"]) == {"x": 6}
    for gone in (first, queued):
        await _gone(client, tid, gone["run_id"])
    history = await client.threads.get_history(tid, limit=50)
    assert [h["values"] for h in history] == [{"x": 6}, {"x": 3}, {"x": 2}, {}]
    assert {h["metadata"]["run_id"] for h in history} == {last["run_id"]}
