"""Workflow documents, plans and engine graphs served from ``langgraph.json`` entries, driven
through the official ``langgraph-sdk``: runs (wait, stream values/updates), thread state
and history, a document's human node answered with ``Command(resume=...)``, a plan that
ends blocked shown ``interrupted``, never ``idle``."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.conftest import LiveServer
from superstep_core import EffectContext
from superstep_server.app import create_app
from superstep_server.engine_kinds import load_served

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
APPROVAL = EXAMPLES / "workflows" / "approval.json"

THREAD = "00000000-0000-4000-8000-0000000000a1"  # thread ids are UUIDs in the API

PERFORMED: list[str] = []


def _ok(request: Mapping[str, Any], ctx: EffectContext) -> Any:
    PERFORMED.append(str(request.get("step", request)))
    return {"done": True}


def _boom(request: Mapping[str, Any], ctx: EffectContext) -> Any:
    raise RuntimeError("the card was declined")


ENTERED = threading.Event()
RELEASE = threading.Event()


def _slow(request: Mapping[str, Any], ctx: EffectContext) -> Any:
    ENTERED.set()
    RELEASE.wait(30)
    PERFORMED.append(str(request["step"]))
    return {"done": True}


handlers = {"ok": _ok, "boom": _boom, "slow": _slow}


def _lookup(order: str) -> Any:
    if order == "missing":
        raise LookupError(f"no order {order!r}")
    return {"order": order}


tools = {"lookup": _lookup}

LOOKUP = {
    "name": "lookup",
    "state": [{"name": "order", "type": "string"}, {"name": "found", "type": "object"}],
    "nodes": [
        {
            "id": "find",
            "type": "tool",
            "data": {
                "function": "lookup",
                "args": {"order": "{{state.order}}"},
                "output_field": "found",
            },
        }
    ],
    "edges": [{"id": "e1", "source": "start", "target": "find"}],
}

PLAN = {
    "steps": [
        {"id": "fetch", "kind": "ok"},
        {"id": "charge", "kind": "boom", "dependsOn": ["fetch"]},
        {"id": "ship", "kind": "ok", "dependsOn": ["charge"]},
    ]
}
SLOW_PLAN = {
    "steps": [
        {"id": "first", "kind": "slow"},
        {"id": "second", "kind": "ok", "dependsOn": ["first"]},
    ]
}
GOOD_PLAN = {"steps": [{"id": "a", "kind": "ok"}, {"id": "b", "kind": "ok", "dependsOn": ["a"]}]}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    where = tmp_path_factory.mktemp("engine_targets")
    (where / "blocked.json").write_text(json.dumps(PLAN))
    (where / "good.json").write_text(json.dumps(GOOD_PLAN))
    (where / "slow.json").write_text(json.dumps(SLOW_PLAN))
    (where / "lookup.json").write_text(json.dumps(LOOKUP))
    own = f"{__name__}:handlers"  # this module, not a second copy loaded from its path
    graphs = {
        "approval": load_served(str(APPROVAL)),
        "editable": load_served(str(APPROVAL), {"edits": {"actor": "ops", "channels": ["amount"]}}),
        "blocked": load_served(str(where / "blocked.json"), {"handlers": own}),
        "good": load_served(str(where / "good.json"), {"handlers": own}),
        "slow": load_served(str(where / "slow.json"), {"handlers": own}),
        "lookup": load_served(str(where / "lookup.json"), {"tools": f"{__name__}:tools"}),
        "pipeline": load_served(f"{EXAMPLES / 'pipeline.py'}:graph"),
    }
    app = create_app(database=str(where / "server.db"), graphs=graphs, workers=2)
    with LiveServer(app) as server:
        yield server


async def test_a_document_waits_at_its_human_node_and_a_command_resumes_it(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    out = await client.runs.wait(tid, "approval", input={"request": "laptop", "amount": 1500})
    assert out["request"] == "laptop" and "decision" not in out
    [asked] = out["__interrupt__"]
    assert asked["value"]["node"] == "approve" and "laptop" in asked["value"]["prompt"]
    thread = await client.threads.get(tid)
    assert thread["status"] == "interrupted"
    assert [i["id"] for i in thread["interrupts"][asked["id"]]] == [asked["id"]]
    state = await client.threads.get_state(tid)
    assert state["next"] == ["approve"]
    assert state["interrupts"][0]["value"]["fields"][0]["name"] == "approved"

    resume = {"approved": True, "note": "fine"}
    out = await client.runs.wait(tid, "approval", command={"resume": resume})
    assert out["decision"] == resume and "Confirm the expense 'laptop'" in out["outcome"]
    assert "__interrupt__" not in out
    thread = await client.threads.get(tid)
    assert thread["status"] == "idle" and thread["values"]["decision"] == resume
    state = await client.threads.get_state(tid)
    assert state["next"] == [] and state["interrupts"] == []


async def test_a_document_is_drawn_with_its_nodes_and_branches(client: Any) -> None:
    drawing = await client.assistants.get_graph("approval")
    ids = {n["id"] for n in drawing["nodes"]}
    assert ids >= {"__start__", "check", "approve", "accept", "decline"}
    edges = {(e["source"], e["target"]) for e in drawing["edges"]}
    assert ("check", "approve") in edges and ("approve", "decided") in edges


async def test_an_answer_that_does_not_fit_fails_the_run_and_the_thread_still_waits(
    client: Any,
) -> None:
    tid = (await client.threads.create())["thread_id"]
    await client.runs.wait(tid, "approval", input={"request": "desk", "amount": 700})
    out = await client.runs.wait(
        tid, "approval", command={"resume": {"approved": "yes"}}, raise_error=False
    )
    assert out["__error__"]["error"] == "InputError"
    assert "'approved'" in out["__error__"]["message"]
    state = await client.threads.get_state(tid)
    assert state["next"] == ["approve"]  # the bad answer changed nothing
    out = await client.runs.wait(tid, "approval", command={"resume": {"approved": False}})
    assert out["decision"] == {"approved": False} and "Decline" in out["outcome"]


async def test_streams_give_values_and_updates_per_superstep(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    parts = [
        (p.event, p.data)
        async for p in client.runs.stream(
            tid,
            "approval",
            input={"request": "pens", "amount": 12},
            stream_mode=["values", "updates"],
        )
    ]
    events = [e for e, _ in parts]
    assert events[0] == "metadata"
    values = [d for e, d in parts if e == "values"]
    assert values[0] == {"request": "pens", "amount": 12}
    assert "outcome" in values[-1] and "mock reply" in values[-1]["outcome"]
    updates = [d for e, d in parts if e == "updates"]
    nodes = [n for u in updates for n in u]
    assert nodes[0] == "check" and "accept" in nodes and "approve" not in nodes
    assert any((u.get("accept") or {}).get("outcome") for u in updates)


async def test_the_events_mode_is_refused_naming_the_modes_that_work(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    parts = [
        (p.event, p.data)
        async for p in client.runs.stream(
            tid, "approval", input={"request": "a", "amount": 1}, stream_mode="events"
        )
    ]
    [error] = [d for e, d in parts if e == "error"]
    assert "not events" in error["message"] and "values or updates" in error["message"]


async def test_breakpoints_are_refused_not_ignored(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    out = await client.runs.wait(
        tid,
        "approval",
        input={"request": "a", "amount": 1},
        interrupt_before=["check"],
        raise_error=False,
    )
    assert "interrupt_before cannot be used" in out["__error__"]["message"]


async def test_a_documents_python_tool_runs_and_a_failing_one_errs_the_run_and_thread(
    client: Any,
) -> None:
    out = await client.runs.wait(None, "lookup", input={"order": "A-1"})
    assert out["found"] == {"order": "A-1"}
    tid = (await client.threads.create())["thread_id"]
    out = await client.runs.wait(tid, "lookup", input={"order": "missing"}, raise_error=False)
    assert out["__error__"]["error"] == "EngineRunError"
    assert "'find'" in out["__error__"]["message"] and "no order" in out["__error__"]["message"]
    thread = await client.threads.get(tid)
    assert thread["status"] == "error" and thread["values"] == {"order": "missing"}


async def test_history_lists_the_supersteps_newest_first(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    await client.runs.wait(tid, "approval", input={"request": "mug", "amount": 3})
    history = await client.threads.get_history(tid, limit=50)
    steps = [h["metadata"]["step"] for h in history]
    assert steps == sorted(steps, reverse=True) and steps[-1] == 0
    assert history[-1]["values"] == {"request": "mug", "amount": 3}
    assert "outcome" in history[0]["values"]
    assert (
        history[0]["parent_checkpoint"]["checkpoint_id"]
        == (history[1]["checkpoint"]["checkpoint_id"])
    )
    older = await client.threads.get_history(
        tid, limit=2, before={"checkpoint_id": history[0]["checkpoint"]["checkpoint_id"]}
    )
    assert [h["metadata"]["step"] for h in older] == steps[1:3]
    at = await client.threads.get_state(
        tid, checkpoint_id=history[-1]["checkpoint"]["checkpoint_id"]
    )
    assert at["values"] == {"request": "mug", "amount": 3}


async def test_a_blocked_plan_leaves_its_thread_interrupted_not_idle(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    out = await client.runs.wait(tid, "blocked", input=None)
    assert out["status"] == "blocked" and out["failed"] == ["charge"]
    assert [u["id"] for u in out["unreachable"]] == ["ship"]
    assert out["outcomes"]["charge"]["error"]["message"] == "the card was declined"
    [run] = await client.runs.list(tid)
    assert run["status"] == "success"  # no error ended it: it ended short of its end
    thread = await client.threads.get(tid)
    assert thread["status"] == "interrupted" and thread["interrupts"] == {}
    state = await client.threads.get_state(tid)
    assert state["next"] == ["ship"]


async def test_the_viewers_workflow_panel_reads_a_served_plans_and_documents_run(
    client: Any, live: LiveServer, tmp_path: Path
) -> None:
    plan_thread = (await client.threads.create())["thread_id"]
    await client.runs.wait(plan_thread, "blocked", input=None)
    run = httpx.get(f"{live.url}/threads/{plan_thread}/workflow").json()
    assert run["kind"] == "plan" and run["problem"] is None
    assert Path(run["path"]).name == "blocked.json"
    assert run["report"]["status"] == "blocked"
    assert [(u["id"], u["because"]) for u in run["report"]["unreachable"]] == [("ship", "charge")]
    assert [(s["id"], s["dependsOn"]) for s in run["steps"]] == [
        ("fetch", []),
        ("charge", ["fetch"]),
        ("ship", ["charge"]),
    ]
    assert run["outcomes"]["charge"]["error"]["message"] == "the card was declined"

    doc_thread = (await client.threads.create())["thread_id"]
    await client.runs.wait(doc_thread, "approval", input={"request": "desk", "amount": 900})
    run = httpx.get(f"{live.url}/threads/{doc_thread}/workflow").json()
    assert run["kind"] == "document" and run["name"] == "Expense approval"
    assert run["content_hash"].startswith("sha256:") and run["versions"] == []
    assert run["visits"].get("approve") == 1  # waiting there for a person
    assert run["events"] and all(isinstance(e["step"], int) for e in run["events"])
    assert run["failures"] == []

    # a plain engine graph has no workflow panel
    plain = (await client.threads.create())["thread_id"]
    (tmp_path / "a.py").write_text("x = 1\n")  # a directory of one file, not the stdlib
    job = {"directory": str(tmp_path), "index": str(tmp_path / "index.db")}
    await client.runs.wait(plain, "pipeline", input=job)
    assert httpx.get(f"{live.url}/threads/{plain}/workflow").json() is None


async def test_a_plan_that_succeeds_leaves_its_thread_idle(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    out = await client.runs.wait(tid, "good", input=None)
    assert out["status"] == "succeeded" and out["succeeded"] == ["a", "b"]
    thread = await client.threads.get(tid)
    assert thread["status"] == "idle"
    stateless = await client.runs.wait(None, "good", input=None)  # a thread of its own
    assert stateless["status"] == "succeeded"


async def test_new_input_on_a_thread_that_ran_is_refused_with_a_message(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    await client.runs.wait(tid, "good", input=None)
    out = await client.runs.wait(
        tid, "approval", input={"request": "x", "amount": 1}, raise_error=False
    )
    assert "takes its input once" in out["__error__"]["message"]
    out = await client.runs.wait(
        tid, "approval", command={"update": {"amount": 2}}, raise_error=False
    )
    assert "not write its state (update)" in out["__error__"]["message"]
    with pytest.raises(httpx.HTTPStatusError, match="state edits are audited") as refused:
        await client.threads.update_state(tid, {"amount": 5})
    assert refused.value.response.status_code == 422


async def test_an_engine_graph_of_a_module_runs_with_its_handlers(
    client: Any, tmp_path: Path
) -> None:
    (tmp_path / "a.py").write_text("def thread():\n    return 1\n")
    (tmp_path / "b.py").write_text("x = 1\n")
    job = {"directory": str(tmp_path), "index": str(tmp_path / "index.db"), "query": "thread"}
    tid = (await client.threads.create())["thread_id"]
    updates = [
        p.data
        async for p in client.runs.stream(tid, "pipeline", input=job, stream_mode="updates")
        if p.event == "updates"
    ]
    # one chunk per store activation, with what it wrote (before the channels' reducers)
    assert updates.count({"store": {"finished": 1, "indexed": 1}}) == 2
    state = await client.threads.get_state(tid)
    assert state["values"]["top"] == [[str(tmp_path / "a.py"), 1]]
    assert (await client.threads.get(tid))["status"] == "idle"


@pytest.fixture(scope="module")
def pg_live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    from server.conftest import postgres_schema

    where = tmp_path_factory.mktemp("engine_targets_pg")
    (where / "blocked.json").write_text(json.dumps(PLAN))
    own = f"{__name__}:handlers"  # this module, not a second copy loaded from its path
    graphs = {
        "approval": load_served(str(APPROVAL)),
        "editable": load_served(str(APPROVAL), {"edits": {"actor": "ops", "channels": ["amount"]}}),
        "blocked": load_served(str(where / "blocked.json"), {"handlers": own}),
    }
    with postgres_schema() as url, LiveServer(create_app(database=url, graphs=graphs)) as server:
        yield server


async def test_documents_and_plans_on_postgres(pg_live: LiveServer) -> None:
    from langgraph_sdk import get_client

    client = get_client(url=pg_live.url, api_key=None)
    tid = (await client.threads.create())["thread_id"]
    out = await client.runs.wait(tid, "approval", input={"request": "chair", "amount": 400})
    assert out["__interrupt__"][0]["value"]["node"] == "approve"
    out = await client.runs.wait(tid, "approval", command={"resume": {"approved": True}})
    assert out["decision"] == {"approved": True}
    assert (await client.threads.get(tid))["status"] == "idle"
    history = await client.threads.get_history(tid, limit=50)
    assert history[-1]["metadata"]["step"] == 0 and "outcome" in history[0]["values"]
    tid = (await client.threads.create())["thread_id"]
    out = await client.runs.wait(tid, "blocked", input=None)
    assert out["status"] == "blocked"
    assert (await client.threads.get(tid))["status"] == "interrupted"


async def test_a_cancelled_run_stops_between_supersteps_and_a_later_run_continues_it(
    client: Any,
) -> None:
    ENTERED.clear()
    RELEASE.clear()
    tid = (await client.threads.create())["thread_id"]
    run = await client.runs.create(tid, "slow", input=None)
    assert await asyncio.to_thread(ENTERED.wait, 30)
    await client.runs.cancel(tid, run["run_id"], action="interrupt")
    RELEASE.set()  # the running step ends; the run stops before the next superstep
    await client.runs.join(tid, run["run_id"])
    assert (await client.runs.get(tid, run["run_id"]))["status"] == "interrupted"
    assert "second" not in PERFORMED
    # stopped while step "first" awaited its effect: not done, so not idle (it said idle,
    # with no next node, as if the plan had ended)
    assert (await client.threads.get(tid))["status"] == "interrupted"
    assert (await client.threads.get_state(tid))["next"] == ["first"]
    out = await client.runs.wait(tid, "slow", input=None)
    assert out["status"] == "succeeded" and out["succeeded"] == ["first", "second"]
    assert PERFORMED.count("first") == 1  # its result was checkpointed, never performed again


def test_langgraph_json_entries_name_documents_and_plans(tmp_path: Path) -> None:
    from superstep_core.cli_support import UsageError
    from superstep_server.cli import _load_all  # the config check `superstep serve` makes
    from superstep_server.engine_graphs import EngineGraph

    (tmp_path / "plan.json").write_text(json.dumps(GOOD_PLAN))
    (tmp_path / "handlers.py").write_text(
        "def ok(request, ctx):\n    return 1\nhandlers = {'ok': ok}\n"
    )
    config = tmp_path / "langgraph.json"
    entries = {
        "approval": str(APPROVAL),
        "plan": {"path": "./plan.json", "handlers": "./handlers.py:handlers"},
    }
    config.write_text(json.dumps({"graphs": entries}))
    graphs = _load_all(_Args(str(config)))[0]
    assert isinstance(graphs["approval"], EngineGraph)
    assert graphs["plan"].kind.name == "plan"
    config.write_text(json.dumps({"graphs": {"plan": "./plan.json"}}))
    with pytest.raises(UsageError, match="is a plan: give its graph entry the handlers"):
        _load_all(_Args(str(config)))


class _Args:
    def __init__(self, config: str) -> None:
        self.config = config


async def test_a_dead_workers_plan_run_continues_and_no_step_is_performed_twice(
    tmp_path: Path,
) -> None:
    from langgraph_sdk import get_client

    from superstep_server.db import open_database
    from superstep_server.graphs import system_assistant_id
    from superstep_server.runs import Runs
    from superstep_server.saver import open_saver
    from superstep_server.threads import Threads

    (tmp_path / "good.json").write_text(json.dumps(GOOD_PLAN))
    plan = str(tmp_path / "good.json")
    own = {"handlers": f"{__name__}:handlers"}
    where = str(tmp_path / "recover.db")
    db = open_database(where)
    with db.transaction() as tx:
        Threads(db, saver=None).insert(tx, THREAD, {})
    assistant = {"assistant_id": system_assistant_id("good"), "graph_id": "good"}
    run, _ = Runs(db).create(
        thread_id=THREAD,
        assistant=assistant,
        kwargs={"input": None, "stream_mode": ["values"]},
        metadata={},
        multitask_strategy="reject",
        if_not_exists="reject",
        temporary=False,
        insert_thread=Threads(db, saver=None).insert,
    )
    # The first attempt: a worker that got through step `a`, then died.
    assert Runs(db, lease_seconds=-1.0).claim("dead-worker") is not None
    PERFORMED.clear()
    with open_saver(where) as saver:
        first = load_served(plan, own)
        first.checkpointer = saver
        config = {"configurable": {"thread_id": THREAD}, "metadata": {"run_id": run["run_id"]}}
        chunks = first.stream(None, config, stream_mode="values")
        for values in chunks:
            if "a" in values["outcomes"]:
                break
        chunks.close()
    db.close()
    assert PERFORMED == ["a"]

    app = create_app(database=where, graphs={"good": load_served(plan, own)}, workers=1)
    with LiveServer(app) as live:  # its worker sweeps the expired lease and runs it again
        client = get_client(url=live.url, api_key=None)
        out = await client.runs.join(THREAD, run["run_id"])
        again = await client.runs.get(THREAD, run["run_id"])
    assert out["status"] == "succeeded" and again["status"] == "success"
    assert PERFORMED == ["a", "b"]


async def test_a_stopping_server_drains_a_plan_run_and_the_next_server_finishes_it(
    tmp_path: Path,
) -> None:
    """Graceful shutdown on the engine: the step in progress is committed, the run queued
    again, and the next server continues it; no step is performed twice."""
    from langgraph_sdk import get_client

    (tmp_path / "slow.json").write_text(json.dumps(SLOW_PLAN))
    own = {"handlers": f"{__name__}:handlers"}
    where = str(tmp_path / "drain.db")
    ENTERED.clear()
    RELEASE.clear()
    PERFORMED.clear()
    app = create_app(database=where, graphs={"slow": load_served(str(tmp_path / "slow.json"), own)})
    with LiveServer(app) as server:
        client = get_client(url=server.url, api_key=None)
        tid = (await client.threads.create())["thread_id"]
        run = await client.runs.create(tid, "slow", input=None)
        assert await asyncio.to_thread(ENTERED.wait, 30)
        ctx = app.state.server.ctx

        def release_when_draining() -> None:
            while not ctx.draining:
                threading.Event().wait(0.01)
            RELEASE.set()

        releaser = threading.Thread(target=release_when_draining)
        releaser.start()
    releaser.join(30)
    assert PERFORMED == ["first"]
    again = create_app(
        database=where, graphs={"slow": load_served(str(tmp_path / "slow.json"), own)}
    )
    with LiveServer(again) as server:
        client = get_client(url=server.url, api_key=None)
        out = await client.runs.join(tid, run["run_id"])
        assert (await client.runs.get(tid, run["run_id"]))["status"] == "success"
    assert out["status"] == "succeeded" and out["succeeded"] == ["first", "second"]
    assert PERFORMED == ["first", "second"]


async def test_tasks_checkpoints_and_debug_modes_and_one_update_per_node(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    parts = [
        (p.event, p.data)
        async for p in client.runs.stream(
            tid, "good", input=None, stream_mode=["tasks", "checkpoints", "debug", "updates"]
        )
    ]
    updates = [d for e, d in parts if e == "updates"]
    assert all(len(u) == 1 for u in updates)  # one chunk per node, as LangGraph's tasks
    assert {"a": {"outcomes": {"a": {"status": "succeeded", "result": {"done": True}}}}} in (
        updates
    )
    tasks = [d for e, d in parts if e == "tasks"]
    starts = [t for t in tasks if "input" in t]
    results = [t for t in tasks if "result" in t]
    assert {t["name"] for t in starts} >= {"a", "b"}
    assert all(set(t) == {"id", "name", "input", "triggers"} for t in starts)
    assert all(set(t) == {"id", "name", "error", "result", "interrupts"} for t in results)
    written = next(u["a"] for u in updates if u.get("a"))
    assert next(r["result"] for r in results if r["result"]) == written
    checkpoints = [d for e, d in parts if e == "checkpoints"]
    assert set(checkpoints[0]) == {"config", "parent_config", "values", "metadata", "next", "tasks"}
    assert checkpoints[0]["parent_config"] is None and checkpoints[0]["metadata"]["step"] == 0
    ids = [c["config"]["configurable"]["checkpoint_id"] for c in checkpoints]
    parents = [c["parent_config"]["configurable"]["checkpoint_id"] for c in checkpoints[1:]]
    assert parents == ids[:-1]
    assert checkpoints[-1]["values"]["status"] == "succeeded"
    state = await client.threads.get_state(tid)
    assert state["checkpoint"]["checkpoint_id"] == ids[-1]
    debug = [d for e, d in parts if e == "debug"]
    assert {d["type"] for d in debug} == {"checkpoint", "task", "task_result"}
    assert [d["payload"]["config"] for d in debug if d["type"] == "checkpoint"] == [
        c["config"] for c in checkpoints
    ]
    assert all("checkpoint" in d["payload"] for d in debug if d["type"] == "checkpoint")


async def test_schemas_describe_a_documents_fields_and_a_plans_report(client: Any) -> None:
    doc = await client.assistants.get_schemas("approval")
    fields = doc["state_schema"]["properties"]
    assert fields["request"] == {"type": "string"} and fields["amount"] == {"type": "number"}
    assert doc["output_schema"] == doc["state_schema"]
    assert doc["input_schema"]["additionalProperties"] is False
    assert set(doc["input_schema"]["properties"]) == set(fields)
    plan = await client.assistants.get_schemas("good")
    assert plan["input_schema"]["type"] == "null"  # a plan takes no input
    report = plan["state_schema"]["properties"]
    assert report["status"] == {"type": "string"} and report["outcomes"]["type"] == "object"
    out = await client.runs.wait(None, "good", input=None)
    assert set(out) == set(report)  # every value a run gives is described
    graph = await client.assistants.get_schemas("pipeline")
    assert set(graph["state_schema"]["properties"]) >= {"job", "found", "top"}


async def test_state_updates_are_audited_edits_by_the_entrys_actor(client: Any) -> None:
    tid = (await client.threads.create())["thread_id"]
    await client.runs.wait(tid, "editable", input={"request": "pens", "amount": 12})
    before = await client.threads.get_state(tid)
    done = await client.threads.update_state(tid, {"amount": 99})
    after = await client.threads.get_state(tid)
    assert after["values"]["amount"] == 99 and after["values"]["request"] == "pens"
    assert done["checkpoint"]["checkpoint_id"] == after["checkpoint"]["checkpoint_id"]
    assert after["parent_checkpoint"]["checkpoint_id"] == before["checkpoint"]["checkpoint_id"]
    audit = after["metadata"]
    assert (audit["source"], audit["actor"], audit["permission"]) == ("edit", "ops", ["amount"])
    assert audit["timestamp"]
    with pytest.raises(httpx.HTTPStatusError) as refused:
        await client.threads.update_state(tid, {"request": "ink"})
    assert refused.value.response.status_code == 422
    assert "'ops' may not edit channel 'request'" in refused.value.response.json()["detail"]
    at_old = before["parent_checkpoint"]["checkpoint_id"]
    with pytest.raises(httpx.HTTPStatusError) as old:
        await client.threads.update_state(tid, {"amount": 1}, checkpoint_id=at_old)
    assert "latest checkpoint only" in old.value.response.json()["detail"]
    assert (await client.threads.get_state(tid))["values"]["amount"] == 99


async def test_state_updates_without_edits_are_refused_saying_how_to_allow_them(
    client: Any,
) -> None:
    tid = (await client.threads.create())["thread_id"]
    await client.runs.wait(tid, "approval", input={"request": "pens", "amount": 12})
    with pytest.raises(httpx.HTTPStatusError) as refused:
        await client.threads.update_state(tid, {"amount": 99})
    assert refused.value.response.status_code == 422
    assert '"edits": {"actor"' in refused.value.response.json()["detail"]
