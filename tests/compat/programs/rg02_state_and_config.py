"""RemoteGraph's thread-state calls: get_state/get_state_history/update_state (sync and
async) send the thread id and the checkpoint the config names, and turn the server's
thread state into a StateSnapshot (tasks, nested task state, interrupts, parent config);
the config sent with a run is sanitised (no objects, no caller checkpoint keys, str tags);
with_config merges; get_graph draws the server's graph; a missing client is a ValueError;
an ``error`` chunk raises RemoteException."""

import uuid

from _fake_server import FakeClient, plain
from langgraph.pregel.remote import RemoteGraph


def _checkpoint(cid: str) -> dict:
    return {"thread_id": "t1", "checkpoint_ns": "", "checkpoint_id": cid}


STATE = {
    "values": {"n": 3},
    "next": ["b"],
    "checkpoint": {**_checkpoint("c2"), "checkpoint_map": {"": "c2"}},
    "metadata": {"step": 2, "source": "loop"},
    "created_at": "2026-01-01T00:00:00+00:00",
    "parent_checkpoint": _checkpoint("c1"),
    "tasks": [
        {
            "id": "task1",
            "name": "b",
            "error": None,
            "interrupts": [{"value": "why?", "id": "int1"}],
            "checkpoint": None,
            "state": None,
            "result": None,
        },
        {
            "id": "task2",
            "name": "sub",
            "error": "ValueError('bad')",
            "interrupts": [],
            "checkpoint": {"thread_id": "t1", "checkpoint_ns": "sub:task2"},
            "state": None,
            "result": {"x": 1},
        },
    ],
}
FIRST = {
    **STATE,
    "next": [],
    "parent_checkpoint": None,
    "tasks": [],
    "checkpoint": _checkpoint("c1"),
}
GRAPH = {
    "nodes": [
        {"id": "__start__", "type": "schema", "data": "__start__"},
        {"id": "a", "type": "runnable", "data": {"id": ["x", "Y"], "name": "a_node"}},
        {"id": "b", "type": "runnable", "data": "plain", "name": "named_b"},
        {"id": "__end__", "type": "schema", "data": "__end__"},
    ],
    "edges": [
        {"source": "__start__", "target": "a"},
        {"source": "a", "target": "b", "conditional": True},
        {"source": "b", "target": "__end__"},
    ],
}
ANSWERS = {
    "get_state": STATE,
    "get_history": [STATE, FIRST],
    "update_state": {"checkpoint": _checkpoint("c3")},
    "get_graph": GRAPH,
    "stream": [("error", {"error": "ValueError", "message": "boom"})],
}


def _snap(s) -> dict:
    return {
        "values": s.values,
        "next": list(s.next),
        "config": s.config,
        "metadata": s.metadata,
        "created_at": s.created_at,
        "parent_config": s.parent_config,
        "tasks": [
            [t.id, t.name, t.path, repr(t.error), plain(t.interrupts), t.state, t.result]
            for t in s.tasks
        ],
        "interrupts": plain(s.interrupts),
    }


async def run() -> dict:
    out: dict = {}
    client = FakeClient(ANSWERS)
    aclient = FakeClient(ANSWERS, sync=False)
    rg = RemoteGraph("agent", sync_client=client, client=aclient, name="remote")
    cfg = {"configurable": {"thread_id": "t1", "checkpoint_id": "c2"}}
    out["name"] = [rg.name, RemoteGraph("agent").name]
    out["get_state"] = _snap(rg.get_state(cfg))
    out["aget_state"] = _snap(await rg.aget_state({"configurable": {"thread_id": "t1"}}))
    out["history"] = [_snap(s) for s in rg.get_state_history(cfg, limit=2, filter={"step": 2})]
    out["ahistory"] = [
        _snap(s)
        async for s in rg.aget_state_history(cfg, before={"configurable": {"checkpoint_id": "c2"}})
    ]
    out["update"] = rg.update_state(cfg, {"n": 5}, as_node="a")
    out["aupdate"] = await rg.aupdate_state(cfg, {"n": 6})
    drawn = rg.get_graph(xray=1)
    out["graph"] = [
        sorted([n.id, n.name, plain(n.data)] for n in drawn.nodes.values()),
        [[e.source, e.target, e.conditional] for e in drawn.edges],
    ]
    adrawn = await rg.aget_graph()
    out["agraph"] = sorted(n.name for n in adrawn.nodes.values())
    tagged = rg.with_config({"tags": ["t"], "configurable": {"user": "u"}})
    out["with_config"] = [tagged.config, rg.config, tagged.name, tagged is rg]
    try:
        rg.invoke(
            {"n": 1},
            {
                "configurable": {
                    "thread_id": "t9",
                    "checkpoint_id": "old",
                    "checkpoint_ns": "outer:1",
                    "checkpoint_map": {"": "x"},
                    "__pregel_task_id": "tid",
                    "obj": object(),
                    "nested": {"ok": [1, "two", object(), uuid.UUID(int=5)], 3: "int key"},
                    "flag": True,
                },
                "metadata": {"m": {"deep": object()}, "keep": 1.5},
                "tags": ["a", 7],
                "recursion_limit": 12,
                "run_name": "not sent",
            },
        )
    except Exception as exc:
        out["error"] = [type(exc).__name__, plain(exc.args)]
    out["calls"] = client.calls
    out["acalls"] = aclient.calls
    bare = RemoteGraph("agent")
    for method in ("get_graph", "invoke"):
        try:
            getattr(bare, method)({"n": 1}) if method == "invoke" else bare.get_graph()
        except ValueError as exc:
            out[f"no_client_{method}"] = str(exc)
    try:
        await bare.ainvoke({"n": 1})
    except ValueError as exc:
        out["no_client_ainvoke"] = str(exc)
    return out
