"""The store endpoints, driven by the official ``langgraph-sdk`` client."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langgraph_sdk.errors import NotFoundError, UnprocessableEntityError


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
    with pytest.raises(NotFoundError):
        await client.store.get_item(["users", user, "prefs"], "theme")


async def test_store_bad_requests(client: Any) -> None:
    with pytest.raises(UnprocessableEntityError) as not_object:
        await client.store.put_item(["a"], "k", ["not", "an", "object"])  # type: ignore[arg-type]
    assert "value" in str(not_object.value)
    with pytest.raises(UnprocessableEntityError) as semantic:
        await client.store.search_items(["a"], query="something similar")
    assert "semantic search" in str(semantic.value)


async def test_graphs_share_the_api_store(client: Any) -> None:
    user = uuid.uuid4().hex
    await client.store.put_item(["visits", user], "count", {"n": 41})
    out = await client.runs.wait(None, "remember", input={"user": user, "visits": 0})
    assert out["visits"] == 42
    item = await client.store.get_item(["visits", user], "count")
    assert item["value"] == {"n": 42}
