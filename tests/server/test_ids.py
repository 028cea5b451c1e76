"""Ids checked as the reference server checks them (langgraph-api 0.16.7, probed side by side):
thread, run and cron ids in paths and bodies that are not UUIDs are answered 422 with its
``detail`` before anything is read or stored; an assistant id is a UUID or a served graph's
id; a run's ``checkpoint_id`` is a UUID; a searched thread id that is not one is the
reference's 400."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from langgraph_sdk.errors import UnprocessableEntityError

from server.conftest import LiveServer

T = "00000000-0000-4000-8000-000000000001"  # a UUID no thread has
BAD_THREAD = "Invalid thread ID: must be a UUID"
BAD_RUN = "Invalid run ID: must be a UUID"
BAD_CRON = "Invalid cron ID: must be a UUID"

PATHS = [
    ("GET", "/threads/not-a-uuid", None, BAD_THREAD),
    ("PATCH", "/threads/not-a-uuid", {"metadata": {}}, BAD_THREAD),
    ("DELETE", "/threads/not-a-uuid", None, BAD_THREAD),
    ("POST", "/threads/not-a-uuid/copy", None, BAD_THREAD),
    ("GET", "/threads/not-a-uuid/state", None, BAD_THREAD),
    ("POST", "/threads/not-a-uuid/state", {"values": {}}, BAD_THREAD),
    ("GET", "/threads/not-a-uuid/history", None, BAD_THREAD),
    ("POST", "/threads/not-a-uuid/history", {}, BAD_THREAD),
    ("GET", "/threads/not-a-uuid/stream", None, BAD_THREAD),
    ("GET", "/threads/not-a-uuid/runs", None, BAD_THREAD),
    ("POST", "/threads/not-a-uuid/runs", {"assistant_id": "two"}, BAD_THREAD),
    ("POST", "/threads/not-a-uuid/runs/wait", {"assistant_id": "two"}, BAD_THREAD),
    ("POST", "/threads/not-a-uuid/runs/stream", {"assistant_id": "two"}, BAD_THREAD),
    ("GET", f"/threads/{T}/runs/xyz", None, BAD_RUN),
    ("DELETE", f"/threads/{T}/runs/xyz", None, BAD_RUN),
    ("GET", f"/threads/{T}/runs/xyz/join", None, BAD_RUN),
    ("GET", f"/threads/{T}/runs/xyz/stream", None, BAD_RUN),
    ("POST", f"/threads/{T}/runs/xyz/cancel", None, BAD_RUN),
    ("GET", "/runs/crons/not-a-uuid", None, BAD_CRON),
    ("PATCH", "/runs/crons/not-a-uuid", {}, BAD_CRON),
    ("DELETE", "/runs/crons/not-a-uuid", None, BAD_CRON),
    (
        "POST",
        "/threads/not-a-uuid/runs/crons",
        {"assistant_id": "two", "schedule": "* * * * *"},
        BAD_THREAD,
    ),
]


@pytest.mark.parametrize(("method", "path", "body", "detail"), PATHS)
def test_an_id_in_a_path_that_is_not_a_uuid_is_a_422(
    live: LiveServer, method: str, path: str, body: Any, detail: str
) -> None:
    answer = httpx.request(method, live.url + path, json=body)
    assert (answer.status_code, answer.json()) == (422, {"detail": detail})


BODIES = [
    ("POST", "/threads", {"thread_id": "abc"}, BAD_THREAD),
    ("POST", "/threads/prune", {"thread_ids": [T, "abc"]}, BAD_THREAD),
    ("POST", "/assistants", {"graph_id": "two", "assistant_id": "abc"}, None),
    ("POST", "/runs/cancel", {"thread_id": "abc", "run_ids": [T]}, BAD_THREAD),
    ("POST", "/runs/cancel", {"thread_id": T, "run_ids": ["x"]}, BAD_RUN),
    ("POST", "/runs/crons/search", {"thread_id": "xx"}, BAD_THREAD),
    ("POST", "/runs/crons/count", {"thread_id": "xx"}, BAD_THREAD),
    ("POST", "/runs/wait", {"assistant_id": "two", "checkpoint_id": "zz"}, None),
    ("POST", f"/threads/{T}/runs", {"assistant_id": "two", "checkpoint_id": "zz"}, None),
]


@pytest.mark.parametrize(("method", "path", "body", "detail"), BODIES)
def test_an_id_in_a_body_that_is_not_a_uuid_is_a_422(
    live: LiveServer, method: str, path: str, body: Any, detail: str | None
) -> None:
    before = httpx.post(f"{live.url}/threads/count", json={}).json()
    answer = httpx.request(method, live.url + path, json=body)
    assert answer.status_code == 422
    expected = {
        "/assistants": "Invalid assistant ID: must be a UUID",
        "/runs/wait": "Invalid checkpoint ID",
        f"/threads/{T}/runs": "Invalid checkpoint ID",
    }.get(path, detail)
    assert answer.json() == {"detail": expected}
    assert httpx.post(f"{live.url}/threads/count", json={}).json() == before


def test_a_searched_thread_id_that_is_not_a_uuid_is_the_references_400(
    live: LiveServer,
) -> None:
    answer = httpx.post(f"{live.url}/threads/search", json={"ids": ["abc"]})
    assert (answer.status_code, answer.json()) == (400, {"detail": "Invalid thread ID abc"})


async def test_an_assistant_id_is_a_uuid_or_a_graph_id(client: Any, live: LiveServer) -> None:
    by_graph = await client.assistants.get("two")
    assert (await client.assistants.get(by_graph["assistant_id"])) == by_graph
    with pytest.raises(UnprocessableEntityError) as refused:
        await client.assistants.get("no-such-assistant")
    detail = refused.value.response.json()["detail"]
    assert detail.startswith("Invalid assistant: 'no-such-assistant'. Must be either:")
    assert "- One of the registered graphs: " in detail and "two" in detail
    ran = httpx.post(f"{live.url}/runs/wait", json={"assistant_id": "nope", "input": {}})
    assert ran.status_code == 422 and ran.json()["detail"].startswith("Invalid assistant: 'nope'")
    searched = httpx.post(f"{live.url}/runs/crons/search", json={"assistant_id": "nope"})
    assert searched.status_code == 422
    # a cron search by graph id finds its system assistant's crons
    assert httpx.post(f"{live.url}/runs/crons/search", json={"assistant_id": "two"}).is_success
