"""Errors in parallel async work as a fan-out app meets them: three async Send workers where
one raises while the others are still awaiting (astream in updates + tasks modes: what came
out before the error), the same with a RetryPolicy list that retries only the transient
error, a subgraph node whose inner node fails beside a sibling, the paused thread's tasks
(with their errors) and its pending writes seen through get_state, the thread continued
after the cause is fixed, and abatch with return_exceptions."""

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy, Send


class Transient(Exception):
    pass


class Fatal(Exception):
    pass


class S(TypedDict):
    items: list[str]
    done: Annotated[list[str], operator.add]


BROKEN: set[str] = set()
ATTEMPTS: dict[str, int] = {}


async def work(arg: dict[str, Any]) -> dict[str, Any]:
    item = arg["item"]
    ATTEMPTS[item] = ATTEMPTS.get(item, 0) + 1
    if item in BROKEN:
        await asyncio.sleep(0.05)  # "ok" has ended by then
        raise Fatal(f"cannot do {item}")
    if item.startswith("flaky") and ATTEMPTS[item] < 3:
        raise Transient(item)
    await asyncio.sleep(2 if item == "slow" else 0)  # cancelled long before
    return {"done": [item]}


def fan(s: S) -> list[Send]:
    return [Send("work", {"item": i}) for i in s["items"]]


async def collect(s: S) -> dict[str, Any]:
    return {"done": [f"total {len(s['done'])}"]}


def build(policy: Any = None) -> Any:
    g = StateGraph(S)
    g.add_node("work", work, retry_policy=policy)
    g.add_node("collect", collect)
    g.add_conditional_edges(START, fan, ["work"])
    g.add_edge("work", "collect")
    return g.compile(checkpointer=InMemorySaver())


def task_view(t: Any) -> list[Any]:
    err = getattr(t, "error", None)
    return [t.name, None if err is None else [type(err).__name__, str(err)]]


def shape(chunk: Any) -> Any:
    mode, data = chunk
    if mode == "tasks":
        keys = "error" if data.get("error") else ("result" if "result" in data else "start")
        return [mode, data["name"], keys, data.get("error")]
    return [mode, data]


async def run() -> dict[str, Any]:
    out: dict[str, Any] = {}
    app = build()
    cfg = {"configurable": {"thread_id": "a"}}
    BROKEN.add("bad")
    seen = []
    try:
        async for chunk in app.astream(
            {"items": ["ok", "bad", "slow"], "done": []}, cfg, stream_mode=["updates", "tasks"]
        ):
            seen.append(shape(chunk))
    except Fatal as exc:
        out["error"] = str(exc)
    out["seen_before_error"] = sorted(map(str, seen))
    snap = await app.aget_state(cfg)
    out["paused"] = [
        snap.values,
        list(snap.next),
        sorted((task_view(t) for t in snap.tasks), key=str),
    ]
    BROKEN.clear()
    out["continued"] = await app.ainvoke(None, cfg)

    ATTEMPTS.clear()
    retrying = build([RetryPolicy(retry_on=Transient, max_attempts=3, initial_interval=0.01)])
    result = await retrying.ainvoke(
        {"items": ["flaky1", "ok", "flaky2"], "done": []}, {"configurable": {"thread_id": "r"}}
    )
    out["retried"] = [result, dict(sorted(ATTEMPTS.items()))]

    ATTEMPTS.clear()
    BROKEN.add("bad")
    try:
        await retrying.ainvoke(
            {"items": ["bad", "flaky3"], "done": []}, {"configurable": {"thread_id": "r2"}}
        )
    except Fatal as exc:
        out["not_retried"] = [str(exc), ATTEMPTS.get("bad")]
    BROKEN.clear()

    async def inner_fail(s: S) -> dict[str, Any]:
        raise ValueError("inner broke")

    async def sibling(s: S) -> dict[str, Any]:
        await asyncio.sleep(2)  # cancelled when the subgraph fails
        return {"done": ["sibling"]}

    sub = StateGraph(S)
    sub.add_node("inner", inner_fail)
    sub.add_edge(START, "inner")
    g = StateGraph(S)
    g.add_node("sub", sub.compile())
    g.add_node("sibling", sibling)
    g.add_edge(START, "sub")
    g.add_edge(START, "sibling")
    nested = g.compile(checkpointer=InMemorySaver())
    ncfg = {"configurable": {"thread_id": "n"}}
    try:
        await nested.ainvoke({"items": [], "done": []}, ncfg)
    except ValueError as exc:
        out["nested_error"] = str(exc)
    snap = await nested.aget_state(ncfg)
    out["nested_paused"] = [
        snap.values,
        list(snap.next),
        sorted((task_view(t) for t in snap.tasks), key=str),
    ]

    plain = build()
    BROKEN.add("bad")
    got = await plain.abatch(
        [{"items": ["ok"], "done": []}, {"items": ["bad"], "done": []}],
        [{"configurable": {"thread_id": "b1"}}, {"configurable": {"thread_id": "b2"}}],
        return_exceptions=True,
    )
    BROKEN.clear()
    out["batch"] = [g if isinstance(g, dict) else [type(g).__name__, str(g)] for g in got]
    return out
