"""A fan-out over documents where each `Send` runs a two-node subgraph and one document's
second node fails: continuing the thread after the fix runs only that node (the finished
branches keep their writes, the failed branch's subgraph goes on from its checkpoint), sync
and async; and an @entrypoint that invokes the same subgraph, failed and continued (the
subgraph called from the entrypoint's body goes on from its checkpoint too)."""

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint
from langgraph.graph import START, StateGraph
from langgraph.types import Send


def last(a: str, b: str) -> str:
    return b


class S(TypedDict):
    log: Annotated[list[str], operator.add]
    item: Annotated[str, last]


RAN: list[str] = []
BROKEN = {"on": True}


def prep(s: S) -> dict[str, Any]:
    RAN.append(f"prep:{s['item']}")
    return {"log": [f"prep:{s['item']}"]}


def work(s: S) -> dict[str, Any]:
    RAN.append(f"work:{s['item']}")
    if BROKEN["on"] and s["item"] == "b":
        raise RuntimeError("b broke")
    return {"log": [f"work:{s['item']}"]}


def subgraph() -> Any:
    sub = StateGraph(S)
    sub.add_node("prep", prep)
    sub.add_node("work", work)
    sub.add_edge(START, "prep")
    sub.add_edge("prep", "work")
    return sub.compile()


def fan_out() -> Any:
    g = StateGraph(S)
    g.add_node("doc", subgraph())
    g.add_conditional_edges(
        START, lambda s: [Send("doc", {"log": [], "item": i}) for i in "abc"], ["doc"]
    )
    return g.compile(checkpointer=InMemorySaver())


def sync_part() -> dict[str, Any]:
    app = fan_out()
    cfg = {"configurable": {"thread_id": "s"}}
    out: dict[str, Any] = {}
    RAN.clear()
    BROKEN["on"] = True
    try:
        app.invoke({"log": [], "item": ""}, cfg)
    except RuntimeError as exc:
        out["error"] = str(exc)
    out["first"] = sorted(RAN)
    RAN.clear()
    BROKEN["on"] = False
    out["result"] = app.invoke(None, cfg)
    out["again"] = sorted(RAN)
    return out


async def async_part() -> dict[str, Any]:
    app = fan_out()
    cfg = {"configurable": {"thread_id": "a"}}
    out: dict[str, Any] = {}
    RAN.clear()
    BROKEN["on"] = True
    try:
        await app.ainvoke({"log": [], "item": ""}, cfg)
    except RuntimeError as exc:
        out["error"] = str(exc)
    first = sorted(RAN)
    RAN.clear()
    BROKEN["on"] = False
    result = await app.ainvoke(None, cfg)
    # async: the branches the failure cancelled run again too
    out["first_has_b"] = "work:b" in first
    out["result"] = sorted(result["log"])
    out["again_has_b"] = "work:b" in RAN and "prep:b" not in RAN
    return out


def entrypoint_part() -> dict[str, Any]:
    inner = subgraph()

    @entrypoint(checkpointer=InMemorySaver())
    def workflow(item: str) -> list[str]:
        return inner.invoke({"log": [], "item": item})["log"]

    cfg = {"configurable": {"thread_id": "e"}}
    out: dict[str, Any] = {}
    RAN.clear()
    BROKEN["on"] = True
    try:
        workflow.invoke("b", cfg)
    except RuntimeError as exc:
        out["error"] = str(exc)
    out["first"] = list(RAN)
    RAN.clear()
    BROKEN["on"] = False
    out["result"] = workflow.invoke(None, cfg)
    out["again"] = list(RAN)
    return out


def run() -> dict[str, Any]:
    return {
        "sync": sync_part(),
        "async": asyncio.run(async_part()),
        "entrypoint": entrypoint_part(),
    }
