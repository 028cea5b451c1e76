"""Semantic store search with an index (``store.index``), through the official
``langgraph-sdk``; the embeddings are a small deterministic function (letter counts), given
as ``langgraph.json`` gives one."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client

from server.conftest import LiveServer, postgres_schema
from server.graphs import all_graphs
from superstep_server.app import create_app
from superstep_server.config import load_config


def letters(texts: Sequence[str]) -> list[list[float]]:
    """One dimension per letter a-z: how often it occurs."""
    return [[float(t.lower().count(chr(ord("a") + i))) for i in range(26)] for t in texts]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def indexed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    index = {"embed": letters, "dims": 26, "fields": ["text"]}
    with ExitStack() as stack:
        if request.param == "sqlite":
            db = str(tmp_path_factory.mktemp("index") / "server.db")
        else:
            db = stack.enter_context(postgres_schema())
        app = create_app(database=db, graphs=all_graphs(), workers=1, store_index=index)
        yield stack.enter_context(LiveServer(app))


async def test_query_ranks_by_similarity(indexed: LiveServer) -> None:
    client = get_client(url=indexed.url, api_key=None)
    ns = ["docs", uuid.uuid4().hex]
    await client.store.put_item(ns, "cats", {"text": "cats cats cats", "kind": "pet"})
    await client.store.put_item(ns, "dogs", {"text": "dogs bark", "kind": "pet"})
    await client.store.put_item(ns, "zoo", {"text": "zzz", "kind": "other"})
    await client.store.put_item(ns, "hidden", {"text": "cats"}, index=False)
    await client.store.put_item(ns, "by-title", {"title": "cats", "text": "zzz"}, index=["title"])
    found = (await client.store.search_items(ns, query="cat", limit=10))["items"]
    keys = [i["key"] for i in found]
    assert keys[:2] in (["cats", "by-title"], ["by-title", "cats"])
    assert keys[-1] == "hidden" and found[-1]["score"] is None
    scores = [i["score"] for i in found[:-1]]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0.8
    pets = (await client.store.search_items(ns, query="dog", filter={"kind": "pet"}))["items"]
    assert [i["key"] for i in pets] == ["dogs", "cats"]
    top = (await client.store.search_items(ns, query="zzz", limit=1, offset=0))["items"]
    assert [i["key"] for i in top] == ["zoo"]  # "by-title" indexed its title only
    # a re-put replaces the vectors
    await client.store.put_item(ns, "zoo", {"text": "dogs dogs", "kind": "other"})
    again = (await client.store.search_items(ns, query="dog", limit=1))["items"]
    assert again[0]["key"] in ("dogs", "zoo")
    await client.store.delete_item(ns, "dogs")
    after = (await client.store.search_items(ns, query="dog", limit=1))["items"]
    assert after[0]["key"] == "zoo"


async def test_without_an_index_a_query_is_a_plain_search(client: Any) -> None:
    # as the reference: the query ranks nothing, the items are found as without it
    ns = ["plain", uuid.uuid4().hex]
    await client.store.put_item(ns, "k", {"text": "cats"})
    found = (await client.store.search_items(ns, query="cats"))["items"]
    assert [(i["key"], i["score"]) for i in found] == [("k", None)]


def test_langgraph_json_store_index(tmp_path: Path) -> None:
    (tmp_path / "g.py").write_text("graph = None\n")
    config = {
        "graphs": {"g": "./g.py:graph"},
        "store": {"index": {"embed": "./embed.py:letters", "dims": 26, "fields": ["$"]}},
    }
    (tmp_path / "langgraph.json").write_text(json.dumps(config))
    loaded = load_config(tmp_path / "langgraph.json")
    assert loaded.store_index == {
        "embed": f"{tmp_path / 'embed.py'}:letters",
        "dims": 26,
        "fields": ["$"],
    }
    with pytest.raises(ValueError, match="dims"):
        create_app(database=":memory:", store_index={"embed": letters, "dims": 0})
