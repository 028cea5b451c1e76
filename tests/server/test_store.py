"""The store endpoints, driven by the official ``langgraph-sdk`` client."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langgraph_sdk.errors import BadRequestError, UnprocessableEntityError


async def test_put_get_search_delete_namespaces(client: Any) -> None:
    user = uuid.uuid4().hex
    await client.store.put_item(["users", user, "prefs"], "theme", {"colour": "teal"})
    await client.store.put_item(["users", user, "prefs"], "lang", {"code": "nb"})
    await client.store.put_item(["users", user, "notes"], "n1", {"text": "hi", "tag": "a"})
    item = await client.store.get_item(["users", user, "prefs"], "theme")
    assert item["namespace"] == ["users", user, "prefs"]
    assert item["key"] == "theme" and item["value"] == {"colour": "teal"}
    await client.store.put_item(["users", user, "prefs"], "theme", {"colour": "red"})
    again = await client.store.get_item(["users", user, "prefs"], "theme")
    assert again["value"] == {"colour": "red"} and again["created_at"] == item["created_at"]
    found = await client.store.search_items(["users", user])
    assert {i["key"] for i in found["items"]} == {"theme", "lang", "n1"}
    assert all(i["score"] is None for i in found["items"])
    only = await client.store.search_items(["users", user], filter={"tag": "a"})
    assert [i["key"] for i in only["items"]] == ["n1"]
    paged = await client.store.search_items(["users", user], limit=1, offset=1)
    assert len(paged["items"]) == 1
    spaces = await client.store.list_namespaces(prefix=["users", user])
    assert spaces["namespaces"] == [["users", user, "notes"], ["users", user, "prefs"]]
    shallow = await client.store.list_namespaces(prefix=["users", user], max_depth=2)
    assert shallow["namespaces"] == [["users", user]]
    by_suffix = await client.store.list_namespaces(prefix=["users", "*"], suffix=["notes"])
    assert ["users", user, "notes"] in by_suffix["namespaces"]
    await client.store.delete_item(["users", user, "prefs"], "theme")
    # no such item: None, as the reference answers (200 null), not an error
    assert await client.store.get_item(["users", user, "prefs"], "theme") is None
    assert await client.store.get_item(["users", user, "never"], "put") is None


async def test_store_bad_requests(client: Any) -> None:
    with pytest.raises(UnprocessableEntityError) as not_object:
        await client.store.put_item(["a"], "k", ["not", "an", "object"])  # type: ignore[arg-type]
    assert "value" in str(not_object.value)
    with pytest.raises(BadRequestError, match="Namespace cannot be empty"):
        await client.store.put_item([], "k", {"v": 1})


async def test_graphs_share_the_api_store(client: Any) -> None:
    user = uuid.uuid4().hex
    await client.store.put_item(["visits", user], "count", {"n": 41})
    out = await client.runs.wait(None, "remember", input={"user": user, "visits": 0})
    assert out["visits"] == 42
    item = await client.store.get_item(["visits", user], "count")
    assert item["value"] == {"n": 42}


async def test_items_expire_after_their_ttl_and_reads_refresh_it(client: Any) -> None:
    import asyncio

    ns = ["ttl", uuid.uuid4().hex]
    await client.store.put_item(ns, "short", {"v": 1}, ttl=0.05)  # 3 s
    await client.store.put_item(ns, "kept", {"v": 2})
    await client.store.put_item(ns, "read", {"v": 3}, ttl=0.05)
    await asyncio.sleep(2.0)
    assert (await client.store.get_item(ns, "short", refresh_ttl=False))["value"] == {"v": 1}
    found = await client.store.search_items(ns, refresh_ttl=False)
    assert {i["key"] for i in found["items"]} == {"short", "kept", "read"}
    await client.store.get_item(ns, "read")  # refreshed: 3 s from now
    await asyncio.sleep(1.5)
    assert await client.store.get_item(ns, "short") is None  # expired
    assert (await client.store.get_item(ns, "read", refresh_ttl=False))["value"] == {"v": 3}
    found = await client.store.search_items(ns)  # refreshes "read" again
    assert {i["key"] for i in found["items"]} == {"kept", "read"}
    await asyncio.sleep(2.0)  # past the get's 3 s, within the search's
    assert (await client.store.get_item(ns, "read", refresh_ttl=False))["value"] == {"v": 3}
    await asyncio.sleep(2.5)
    assert [i["key"] for i in (await client.store.search_items(ns))["items"]] == ["kept"]
    assert (await client.store.list_namespaces(prefix=ns))["namespaces"] == [ns]
    # a put after expiry is a new item
    await client.store.put_item(ns, "short", {"v": 9})
    assert (await client.store.get_item(ns, "short"))["value"] == {"v": 9}
    with pytest.raises(UnprocessableEntityError, match="ttl"):
        await client.store.put_item(ns, "bad", {"v": 0}, ttl=-1)


def test_default_ttl_and_the_graphs_store_view(tmp_path: Any) -> None:
    import time

    from superstep_server.db import open_database
    from superstep_server.graph_store import DatabaseStore
    from superstep_server.store import Store

    db = open_database(str(tmp_path / "store.db"))
    try:
        store = Store(db, None, {"default_ttl": 0.01, "refresh_on_read": False})  # 0.6 s
        store.put({"namespace": ["a"], "key": "default", "value": {"x": 1}})
        store.put({"namespace": ["a"], "key": "long", "value": {"x": 2}, "ttl": 10})
        view = DatabaseStore(store)
        view.put(("a",), "forever", {"x": 3}, ttl=None)  # BaseStore: None is no expiry
        view.put(("a",), "from_graph", {"x": 4})  # not given: the store's default
        time.sleep(0.8)
        assert store.find(["a"], "default") is None
        assert view.get(("a",), "from_graph") is None
        assert {i.key for i in view.search(("a",))} == {"long", "forever"}
    finally:
        db.close()
