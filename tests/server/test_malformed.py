"""Malformed requests never crash the server or a worker: random JSON bodies (hypothesis) to
every endpoint that takes one are answered with a 4xx and a ``detail``, never a 5xx, and the
server still runs graphs afterwards."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.conftest import LiveServer

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = [
    "assistant_id",
    "graph_id",
    "input",
    "command",
    "config",
    "context",
    "metadata",
    "stream_mode",
    "multitask_strategy",
    "checkpoint_id",
    "checkpoint",
    "interrupt_before",
    "interrupt_after",
    "limit",
    "offset",
    "sort_by",
    "sort_order",
    "select",
    "status",
    "ids",
    "values",
    "as_node",
    "before",
    "namespace",
    "key",
    "value",
    "namespace_prefix",
    "filter",
    "prefix",
    "suffix",
    "max_depth",
    "schedule",
    "timezone",
    "after_seconds",
    "webhook",
    "if_not_exists",
    "on_completion",
    "durability",
    "thread_id",
    "if_exists",
    "version",
]
BODIES = st.one_of(
    JSON,
    st.fixed_dictionaries({}, optional={k: JSON for k in KEYS}),
    st.fixed_dictionaries(
        {"assistant_id": st.just("two")},
        optional={k: JSON for k in KEYS if k != "assistant_id"},
    ),
)
ENDPOINTS = [
    ("POST", "/assistants"),
    ("POST", "/assistants/search"),
    ("POST", "/assistants/count"),
    ("PATCH", "/assistants/two"),
    ("POST", "/assistants/two/versions"),
    ("POST", "/assistants/two/latest"),
    ("POST", "/threads"),
    ("POST", "/threads/search"),
    ("POST", "/threads/count"),
    ("PATCH", "/threads/{tid}"),
    ("POST", "/threads/{tid}/state"),
    ("POST", "/threads/{tid}/state/checkpoint"),
    ("POST", "/threads/{tid}/history"),
    ("POST", "/threads/{tid}/runs"),
    ("POST", "/threads/{tid}/runs/wait"),
    ("POST", "/runs"),
    ("POST", "/runs/wait"),
    ("POST", "/runs/batch"),
    ("POST", "/runs/cancel"),
    ("PUT", "/store/items"),
    ("DELETE", "/store/items"),
    ("POST", "/store/items/search"),
    ("POST", "/store/namespaces"),
    ("POST", "/runs/crons"),
    ("POST", "/runs/crons/search"),
    ("POST", "/threads/{tid}/runs/crons"),
]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(endpoint=st.sampled_from(ENDPOINTS), body=BODIES)
def test_random_bodies_get_a_4xx_with_a_detail(
    live: LiveServer, endpoint: tuple[str, str], body: Any
) -> None:
    method, path = endpoint
    if "{tid}" in path:
        tid = httpx.post(f"{live.url}/threads", json={}).json()["thread_id"]
        path = path.replace("{tid}", tid)
    answer = httpx.request(method, f"{live.url}{path}", json=body, timeout=60)
    assert answer.status_code < 500, (method, path, body, answer.text)
    if answer.status_code >= 400:
        assert isinstance(answer.json().get("detail"), str)
    else:
        # a request that happened to be valid: let any run it queued end (no dangling runs)
        httpx.post(f"{live.url}/runs/cancel", json={"status": "all"}, timeout=60)


def test_the_server_still_runs_graphs(live: LiveServer) -> None:
    answer = httpx.post(
        f"{live.url}/runs/wait", json={"assistant_id": "two", "input": {"x": 1}}, timeout=60
    )
    assert answer.json() == {"x": 4}


BAD_RUN_FIELDS = [
    ({"command": "resume"}, "command"),
    ({"command": [1]}, "command"),
    ({"command": {"bogus": 1}}, "command"),
    ({"command": {"goto": 5}}, "command.goto"),
    ({"command": {"goto": [1, "b"]}}, "command.goto"),
    ({"command": {"goto": {"node": 3, "input": {}}}}, "command.goto"),
    ({"command": {"goto": {"input": {}}}}, "command.goto"),
    ({"command": {"update": "x"}}, "command.update"),
    ({"command": {"update": [1, 2]}}, "command.update"),
    ({"command": {"update": [["x", 1, 2]]}}, "command.update"),
    ({"command": {"resume": 1, "goto": 7}}, "command.goto"),
    ({"command": {"resume": {"a": 1}, "update": 3}}, "command.update"),
    ({"config": {"configurable": "x"}}, "config.configurable"),
    ({"config": {"configurable": [1]}}, "config.configurable"),
    ({"config": {"tags": "x"}}, "config.tags"),
    ({"config": {"recursion_limit": "x"}}, "config.recursion_limit"),
]
RUN_PATHS = [
    "/threads/{tid}/runs",
    "/threads/{tid}/runs/wait",
    "/threads/{tid}/runs/stream",
    "/runs",
    "/runs/wait",
    "/runs/stream",
]


@pytest.mark.parametrize("path", RUN_PATHS)
def test_a_malformed_command_or_config_is_a_422_naming_the_field(
    live: LiveServer, path: str
) -> None:
    tid = httpx.post(f"{live.url}/threads", json={}).json()["thread_id"]
    for fields, field in BAD_RUN_FIELDS:
        body = {"assistant_id": "review", **fields}
        answer = httpx.post(f"{live.url}{path.replace('{tid}', tid)}", json=body, timeout=60)
        assert answer.status_code == 422, (path, fields, answer.text)
        detail = answer.json()["detail"]
        assert detail.startswith(f"{field}:") or detail.startswith(f"{field} "), (fields, detail)
    assert httpx.get(f"{live.url}/threads/{tid}/runs").json() == []


def test_well_formed_commands_still_run(live: LiveServer) -> None:
    tid = httpx.post(f"{live.url}/threads", json={}).json()["thread_id"]
    url = f"{live.url}/threads/{tid}/runs/wait"
    first = httpx.post(url, json={"assistant_id": "review", "input": {"text": "t", "log": []}})
    assert "__interrupt__" in first.json()
    body = {"assistant_id": "review", "command": {"resume": "ok", "update": [["log", ["u"]]]}}
    assert httpx.post(url, json=body, timeout=60).json()["log"] == [
        "draft",
        "u",
        "review",
        "publish",
    ]
    body = {
        "assistant_id": "review",
        "command": {"update": {"log": ["g"]}, "goto": [{"node": "publish", "input": {}}]},
        "config": {"configurable": {"k": 1}, "tags": ["a"], "recursion_limit": 10},
    }
    assert httpx.post(url, json=body, timeout=60).status_code == 200
