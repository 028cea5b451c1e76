"""``/ok``, ``/info`` and assistants, driven by the official ``langgraph-sdk`` client."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from langgraph_sdk.errors import ConflictError, NotFoundError, UnprocessableEntityError

from server.conftest import LiveServer
from superstep_server.graphs import system_assistant_id


def test_ok_and_info(live: LiveServer) -> None:
    assert httpx.get(f"{live.url}/ok").json() == {"ok": True}
    info = httpx.get(f"{live.url}/info").json()
    assert info["flags"]["assistants"] is True
    assert "two" in info["graphs"]


def test_system_assistant_id_is_the_reference_uuid5() -> None:
    # langgraph_api.graph.NAMESPACE_GRAPH (not uuid.NAMESPACE_URL, which ends ...b811...)
    namespace = uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")
    assert system_assistant_id("agent") == str(uuid.uuid5(namespace, "agent"))
    assert system_assistant_id("agent") != str(uuid.uuid5(uuid.NAMESPACE_URL, "agent"))


async def test_system_assistants_by_id_and_by_graph_name(client: Any) -> None:
    by_name = await client.assistants.get("two")
    by_id = await client.assistants.get(system_assistant_id("two"))
    assert by_name == by_id
    assert by_name["graph_id"] == "two"
    assert by_name["metadata"] == {"created_by": "system"}
    assert by_name["version"] == 1
    found = await client.assistants.search(graph_id="two")
    assert [a["assistant_id"] for a in found] == [system_assistant_id("two")]
    everything = await client.assistants.search(limit=100)
    assert {a["graph_id"] for a in everything} >= {"two", "review", "gated"}


async def test_graph_and_schemas(client: Any) -> None:
    drawing = await client.assistants.get_graph("two")
    # as the reference draws it: a node's data is its name, no class path of its runnable
    assert {"id": "a", "type": "runnable", "data": {"name": "a"}} in drawing["nodes"]
    assert all("id" not in n.get("data", {}) for n in drawing["nodes"])
    ids = {n["id"] for n in drawing["nodes"]}
    assert {"__start__", "a", "b", "__end__"} <= ids
    assert {"source": "a", "target": "b"}.items() <= drawing["edges"][1].items() or any(
        e["source"] == "a" and e["target"] == "b" for e in drawing["edges"]
    )
    schemas = await client.assistants.get_schemas("two")
    assert schemas["graph_id"] == "two"
    assert "x" in schemas["input_schema"]["properties"]
    assert "x" in schemas["output_schema"]["properties"]
    assert "x" in schemas["state_schema"]["properties"]
    # the reference's config_schema: configurable typed by the context schema, else {}
    assert schemas["config_schema"] == {}
    contextual = await client.assistants.get_schemas("contextual")
    assert (
        contextual["config_schema"]
        == contextual["context_schema"]
        == {
            "properties": {"user": {"default": "nobody", "title": "User", "type": "string"}},
            "title": "Caller",
            "type": "object",
        }
    )


async def test_create_update_versions_delete(client: Any) -> None:
    made = await client.assistants.create(
        "two", config={"configurable": {"k": 1}}, metadata={"team": "red"}, name="mine"
    )
    assert made["graph_id"] == "two" and made["name"] == "mine" and made["version"] == 1
    with pytest.raises(ConflictError):
        await client.assistants.create("two", assistant_id=made["assistant_id"])
    same = await client.assistants.create(
        "two", assistant_id=made["assistant_id"], if_exists="do_nothing"
    )
    assert same["assistant_id"] == made["assistant_id"]
    updated = await client.assistants.update(made["assistant_id"], metadata={"size": 2})
    assert updated["version"] == 2
    assert updated["metadata"] == {"team": "red", "size": 2}
    versions = await client.assistants.get_versions(made["assistant_id"])
    assert [v["version"] for v in versions] == [2, 1]
    assert all("updated_at" not in v for v in versions)  # an AssistantVersion has none
    back = await client.assistants.set_latest(made["assistant_id"], 1)
    assert back["version"] == 1 and back["metadata"] == {"team": "red"}
    assert await client.assistants.count(metadata={"team": "red"}) == 1
    found = await client.assistants.search(metadata={"team": "red"})
    assert [a["assistant_id"] for a in found] == [made["assistant_id"]]
    await client.assistants.delete(made["assistant_id"])
    with pytest.raises(NotFoundError):
        await client.assistants.get(made["assistant_id"])


async def test_bad_requests_name_the_problem(client: Any, live: LiveServer) -> None:
    missing_id = "00000000-0000-4000-8000-00000000abcd"  # a UUID no assistant has
    with pytest.raises(NotFoundError) as missing:
        await client.assistants.get(missing_id)
    assert missing_id in str(missing.value)
    with pytest.raises(NotFoundError) as no_graph:
        await client.assistants.create("no-such-graph")
    assert "no-such-graph" in str(no_graph.value)
    with pytest.raises(UnprocessableEntityError):
        await client.assistants.search(sort_by="colour")
    broken = httpx.post(f"{live.url}/assistants/search", content=b"{not json")
    assert broken.status_code == 422
    assert "not valid JSON" in broken.json()["detail"]
    listed = httpx.post(f"{live.url}/assistants/search", content=b"[1, 2]")
    assert listed.status_code == 422 and "JSON object" in listed.json()["detail"]
    unknown = httpx.get(f"{live.url}/nowhere")
    assert unknown.status_code == 404 and "detail" in unknown.json()


async def test_api_key_auth(tmp_path: Any) -> None:
    from langgraph_sdk import get_client
    from langgraph_sdk.errors import AuthenticationError

    from server.graphs import two_nodes
    from superstep_server.app import create_app

    app = create_app(
        database=str(tmp_path / "auth.db"), graphs={"two": two_nodes()}, api_key="s3cret"
    )
    with LiveServer(app) as live:
        assert httpx.get(f"{live.url}/ok").status_code == 200  # health checks stay open
        refused = httpx.post(f"{live.url}/threads", json={})
        assert refused.status_code == 401 and "x-api-key" in refused.json()["detail"]
        wrong = get_client(url=live.url, api_key="guess")
        with pytest.raises(AuthenticationError):
            await wrong.threads.create()
        right = get_client(url=live.url, api_key="s3cret")
        thread = await right.threads.create()
        assert await right.runs.wait(thread["thread_id"], "two", input={"x": 1}) == {"x": 4}


def test_openapi_document_and_docs(live: LiveServer) -> None:
    doc = httpx.get(f"{live.url}/openapi.json").json()
    assert doc["openapi"].startswith("3.")
    paths = doc["paths"]
    for path, method in [
        ("/threads/{thread_id}/runs/wait", "post"),
        ("/assistants/{assistant_id}", "get"),
        ("/store/items", "put"),
        ("/runs/crons", "post"),
        ("/threads/{thread_id}/history", "post"),
    ]:
        assert method in paths[path], (path, method)
    run = doc["components"]["schemas"]["RunCreate"]
    assert run["required"] == ["assistant_id"]
    body = paths["/threads/{thread_id}/runs/wait"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"]["$ref"].endswith("/RunCreate")
    refs = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "$ref" in node:
                refs.add(node["$ref"].rsplit("/", 1)[1])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(doc)
    assert refs <= set(doc["components"]["schemas"])  # every reference resolves
    page = httpx.get(f"{live.url}/docs")
    assert page.status_code == 200 and "openapi.json" in page.text


async def test_graph_xray_draws_subgraphs_in_place_and_subgraphs_lists_them(client: Any) -> None:
    flat = await client.assistants.get_graph("nested")
    assert {n["id"] for n in flat["nodes"]} == {"__start__", "child", "a", "__end__"}
    drawn = await client.assistants.get_graph("nested", xray=True)
    assert {n["id"] for n in drawn["nodes"]} == {"__start__", "child:a", "child:b", "a", "__end__"}
    edges = {(e["source"], e["target"]) for e in drawn["edges"]}
    assert {("__start__", "child:a"), ("child:a", "child:b"), ("child:b", "a")} <= edges
    assert await client.assistants.get_graph("nested", xray=1) == drawn
    subgraphs = await client.assistants.get_subgraphs("nested")
    assert list(subgraphs) == ["child"]
    # as the reference's: a subgraph is named by its key, its schemas carry no graph_id
    assert "graph_id" not in subgraphs["child"] and subgraphs["child"]["config_schema"] == {}
    assert await client.assistants.get_subgraphs("nested", namespace="child") == subgraphs
    assert await client.assistants.get_subgraphs("nested", namespace="nope") == {}


async def test_subgraphs_give_each_subgraph_its_state_schema(client: Any) -> None:
    """``state_schema`` is the subgraph's whole state, not its (narrower) output."""
    inner = (await client.assistants.get_subgraphs("narrowed"))["inner"]
    assert set(inner["state_schema"]["properties"]) == {"x", "scratch"}
    assert set(inner["output_schema"]["properties"]) == {"x"}
    assert set(inner["input_schema"]["properties"]) == {"x", "scratch"}


async def test_an_assistants_configurable_and_context_are_one_mapping(
    client: Any, live: LiveServer
) -> None:
    # as the reference keeps them (langgraph-api 0.16.7, probed): one sets the other
    by_config = await client.assistants.create("two", config={"configurable": {"k": 1}})
    assert by_config["context"] == {"k": 1}
    by_context = await client.assistants.create("two", context={"k": 2})
    assert by_context["config"] == {"configurable": {"k": 2}}
    patched = await client.assistants.update(
        by_config["assistant_id"], config={"configurable": {"k": 5}}
    )
    assert (patched["config"], patched["context"]) == ({"configurable": {"k": 5}}, {"k": 5})
    renamed = await client.assistants.update(by_context["assistant_id"], name="kept")
    assert (renamed["config"], renamed["context"]) == ({"configurable": {"k": 2}}, {"k": 2})
    both = {"config": {"configurable": {"k": 1}}, "context": {"k": 2}}
    for method, path, body in (
        ("POST", "/assistants", {"graph_id": "two", **both}),
        ("PATCH", f"/assistants/{by_config['assistant_id']}", both),
        ("POST", "/runs/wait", {"assistant_id": "two", "input": {"x": 1}, **both}),
    ):
        answer = httpx.request(method, live.url + path, json=body)
        assert answer.status_code == 400, (path, answer.text)
        assert answer.json()["detail"].startswith("Cannot specify both configurable and context.")


async def test_a_runs_context_is_built_as_the_references(client: Any) -> None:
    # probed on langgraph-api 0.16.7: the request's context, else its config.configurable,
    # over the assistant's; only the keys the context schema declares; {} gives its defaults
    async def said(assistant: str, **kw: Any) -> str:
        return str((await client.runs.wait(None, assistant, input={}, **kw))["said"])

    assert await said("contextual") == "Caller(user='nobody')"
    assert await said("contextual", context={"user": "ann"}) == "Caller(user='ann')"
    by_config = {"configurable": {"user": "bob", "model": "not in the schema"}}
    assert await said("contextual", config=by_config) == "Caller(user='bob')"
    mine = await client.assistants.create("contextual", context={"user": "cy"})
    assert await said(mine["assistant_id"]) == "Caller(user='cy')"
    over = {"configurable": {"user": "dee"}}
    assert await said(mine["assistant_id"], config=over) == "Caller(user='dee')"
