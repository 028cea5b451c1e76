"""What a failed run shows while it streams and after it, as an app with a progress view
sees it: a subgraph whose inner node fails beside a parent sibling that finishes, streamed
with subgraphs=True in tasks + checkpoints + updates modes (sync and async: the chunks
before the error), get_state(subgraphs=True) of the failed thread, the subgraph's own
history, each durability; then an @entrypoint whose two parallel @tasks are one ok, one
failing, continued after the fix (the finished task is not run again)."""

import asyncio
import operator
import threading
import time
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph


class S(TypedDict):
    log: Annotated[list[str], operator.add]


BROKEN = {"on": True}
CALLS: list[str] = []
PREPPED = threading.Event()


def prep(s: S) -> dict[str, Any]:
    PREPPED.set()
    return {"log": ["prep"]}


def inner(s: S) -> dict[str, Any]:
    time.sleep(0.6)  # the parent's sibling ends while this runs
    if BROKEN["on"]:
        raise RuntimeError("inner failed")
    return {"log": ["inner"]}


def sibling(s: S) -> dict[str, Any]:
    # ends after the subgraph's first step (a fixed order of the chunks of both)
    PREPPED.wait(5)
    time.sleep(0.25)
    return {"log": ["sibling"]}


def build() -> Any:
    sub = StateGraph(S)
    sub.add_node("prep", prep)
    sub.add_node("inner", inner)
    sub.add_edge(START, "prep")
    sub.add_edge("prep", "inner")
    g = StateGraph(S)
    g.add_node("sub", sub.compile())
    g.add_node("sibling", sibling)
    g.add_edge(START, "sub")
    g.add_edge(START, "sibling")
    return g.compile(checkpointer=InMemorySaver())


def chunk(part: Any) -> list[Any]:
    ns, mode, data = part
    names = [p.split(":")[0] for p in ns]
    if mode == "tasks":
        kind = "error" if data.get("error") else "result" if "result" in data else "start"
        return [names, mode, data["name"], kind, data.get("error") and repr(data["error"])]
    if mode == "checkpoints":
        return [
            names,
            mode,
            data["metadata"]["step"],
            data["next"],
            [[t["name"], t.get("error")] for t in data["tasks"]],
        ]
    return [names, mode, data]


def view(snap: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"values": snap.values, "next": list(snap.next), "tasks": []}
    for t in snap.tasks:
        entry: dict[str, Any] = {"name": t.name, "error": t.error and repr(t.error)}
        if t.state is not None and hasattr(t.state, "values"):
            entry["state"] = view(t.state)
        out["tasks"].append(entry)
    return out


def sync_part(durability: str) -> dict[str, Any]:
    app = build()
    cfg = {"configurable": {"thread_id": durability}}
    BROKEN["on"] = True
    PREPPED.clear()
    seen = []
    try:
        for part in app.stream(
            {"log": []},
            cfg,
            stream_mode=["tasks", "checkpoints", "updates"],
            subgraphs=True,
            durability=durability,
        ):
            seen.append(chunk(part))
    except RuntimeError as exc:
        seen.append(["raised", str(exc)])
    out: dict[str, Any] = {"seen": seen, "state": view(app.get_state(cfg, subgraphs=True))}
    out["history"] = [
        [h.metadata["step"], list(h.next), [t.error and repr(t.error) for t in h.tasks]]
        for h in app.get_state_history(cfg)
    ]
    BROKEN["on"] = False
    PREPPED.set()
    out["continued"] = app.invoke(None, cfg, durability=durability)
    return out


async def async_part() -> list[Any]:
    app = build()
    cfg = {"configurable": {"thread_id": "a"}}
    BROKEN["on"] = True
    PREPPED.clear()
    seen = []
    try:
        async for part in app.astream(
            {"log": []}, cfg, stream_mode=["tasks", "checkpoints", "updates"], subgraphs=True
        ):
            seen.append(chunk(part))
    except RuntimeError as exc:
        seen.append(["raised", str(exc)])
    return [seen, view(await app.aget_state(cfg, subgraphs=True))]


@task
def fetch(name: str) -> str:
    CALLS.append(name)
    if name == "bad" and BROKEN["on"]:
        raise KeyError(name)
    return f"got {name}"


@entrypoint(checkpointer=InMemorySaver())
def workflow(names: list[str]) -> list[str]:
    futures = [fetch(n) for n in names]
    return [f.result() for f in futures]


def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for durability in ("sync", "async", "exit"):
        out[durability] = sync_part(durability)
    out["astream"] = asyncio.run(async_part())
    cfg = {"configurable": {"thread_id": "f"}}
    BROKEN["on"] = True
    CALLS.clear()
    try:
        workflow.invoke(["good", "bad"], cfg)
    except KeyError as exc:
        out["functional_error"] = repr(exc)
    snap = workflow.get_state(cfg)
    out["functional_state"] = [
        list(snap.next),
        [[t.name, t.error and repr(t.error)] for t in snap.tasks],
    ]
    BROKEN["on"] = False
    out["functional_continued"] = workflow.invoke(None, cfg)
    out["calls"] = sorted(CALLS)
    return out
