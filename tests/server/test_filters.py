"""Search filters decided in SQL (and the rest in Python) on SQLite and on PostgreSQL: the
store's ``filter`` with LangGraph's operators, threads' ``metadata``/``values``
containment, ``status``, sorting and paging; through the official ``langgraph-sdk``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph_sdk.errors import UnprocessableEntityError

from server.conftest import LiveServer, postgres_schema
from server.graphs import all_graphs
from superstep_server.app import create_app


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def live(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    if request.param == "sqlite":
        db = str(tmp_path_factory.mktemp("filters") / "server.db")
        with LiveServer(create_app(database=db, graphs=all_graphs(), workers=1)) as server:
            yield server
        return
    with (
        postgres_schema() as url,
        LiveServer(create_app(database=url, graphs=all_graphs(), workers=1)) as server,
    ):
        yield server


async def test_store_filters_and_operators(client: Any) -> None:
    ns = ["f", uuid.uuid4().hex]
    docs = {
        "a": {"n": 1, "kind": "x", "ok": True, "tags": ["p", "q"], "info": {"lang": "nb"}},
        "b": {"n": 5, "kind": "y", "ok": False, "tags": ["p"], "info": {"lang": "en"}},
        "c": {"n": 9, "kind": "x", "ok": None, "info": {"lang": "nb", "v": 2}},
        "d": {"n": "9", "kind": "z"},
    }
    for key, value in docs.items():
        await client.store.put_item(ns, key, value)

    async def keys(**filter_: Any) -> set[str]:
        found = await client.store.search_items(ns, filter=filter_, limit=50)
        return {i["key"] for i in found["items"]}

    assert await keys(kind="x") == {"a", "c"}
    assert await keys(n=9) == {"c"}  # the string "9" is not the number 9
    assert await keys(ok=True) == {"a"}
    assert await keys(ok=False) == {"b"}
    assert await keys(ok=None) == {"c"}
    assert await keys(n={"$gt": 1}) == {"b", "c"}
    assert await keys(n={"$gte": 1, "$lt": 9}) == {"a", "b"}
    assert await keys(n={"$lte": 5}) == {"a", "b"}
    assert await keys(kind={"$ne": "x"}) == {"b", "d"}
    assert await keys(n={"$eq": "9"}) == {"d"}
    assert await keys(tags=["p"]) == {"b"}  # a list is equal item by item
    assert await keys(info={"lang": "nb"}) == {"a", "c"}  # an object key by key
    assert await keys(kind="x", info={"v": 2}) == {"c"}
    first = await client.store.search_items(ns, filter={"kind": "x"}, limit=1)
    second = await client.store.search_items(ns, filter={"kind": "x"}, limit=1, offset=1)
    assert {first["items"][0]["key"], second["items"][0]["key"]} == {"a", "c"}
    with pytest.raises(UnprocessableEntityError) as bad:
        await client.store.search_items(ns, filter={"n": {"$near": 1}})
    assert "$near" in str(bad.value)


async def test_thread_search_filters_sort_and_count(client: Any) -> None:
    tag = uuid.uuid4().hex
    made = []
    for i, meta in enumerate(
        [{"n": 1, "deep": {"k": [1, 2]}}, {"n": 2, "flag": True}, {"n": 2, "flag": False}]
    ):
        thread = await client.threads.create(metadata={"tag": tag, **meta})
        await client.runs.wait(thread["thread_id"], "two", input={"x": i})
        made.append(thread["thread_id"])
    ids = lambda found: [t["thread_id"] for t in found]  # noqa: E731
    assert ids(await client.threads.search(metadata={"tag": tag, "n": 2})) == made[:0:-1]
    assert ids(await client.threads.search(metadata={"tag": tag, "flag": True})) == [made[1]]
    assert ids(await client.threads.search(metadata={"tag": tag, "deep": {"k": [2]}})) == [made[0]]
    assert ids(await client.threads.search(metadata={"tag": tag}, values={"x": 4})) == [made[1]]
    asc = await client.threads.search(metadata={"tag": tag}, sort_order="asc", limit=2)
    assert ids(asc) == made[:2]
    page2 = await client.threads.search(
        metadata={"tag": tag, "deep": {"k": [1]}}, limit=1, offset=1
    )
    assert page2 == []
    assert await client.threads.count(metadata={"tag": tag}) == 3
    assert await client.threads.count(metadata={"tag": tag, "deep": {"k": [1]}}) == 1
    assert await client.threads.count(metadata={"tag": tag}, status="idle") == 3
    assert await client.threads.count(metadata={"tag": tag}, status="busy") == 0
    chosen = await client.threads.search(metadata={"tag": tag}, select=["thread_id"], limit=1)
    assert chosen == [{"thread_id": made[2]}]
