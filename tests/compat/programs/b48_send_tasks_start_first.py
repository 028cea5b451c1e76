"""A step with `Send` tasks and edge-triggered tasks: LangGraph starts (and so reports) the
Send tasks first, in the order they were sent, then the others, though it applies the
edge-triggered tasks' writes first. Seen through ``updates``, ``tasks`` and ``debug``, sync
and async (one task at a time, so the order the tasks end in is the order they started in),
and the task starts of an unbounded run."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.graph import START, StateGraph
from langgraph.types import Send


class S(TypedDict, total=False):
    log: Annotated[list, operator.add]


def build():
    g = StateGraph(S)
    g.add_node("fan", lambda s: {"log": ["fan"]})
    g.add_node("zeta", lambda s: {"log": ["zeta"]})
    g.add_node("alpha", lambda s: {"log": ["alpha"]})
    g.add_node("w", lambda x: {"log": [f"w{x}"]})
    g.add_edge(START, "fan")
    g.add_conditional_edges(
        "fan",
        lambda s: ["zeta", Send("w", 2), "alpha", Send("w", 1)],
        ["zeta", "alpha", "w"],
    )
    return g.compile()


def _shown(chunk, mode):
    if mode == "updates":
        return chunk
    if mode == "tasks":
        return (chunk["name"], "result" in chunk, chunk.get("input"), chunk.get("result"))
    if mode == "debug":
        return (chunk["type"], chunk["payload"]["name"])
    return chunk


ONE_AT_A_TIME = {"max_concurrency": 1}


async def _async(app) -> dict:
    out = {}
    for mode in ("updates", "tasks", "debug", "values"):
        out[mode] = [
            _shown(c, mode) async for c in app.astream({"log": []}, ONE_AT_A_TIME, stream_mode=mode)
        ]
    return out


def run() -> dict:
    app = build()
    out: dict = {"sync": {}}
    for mode in ("updates", "tasks", "debug", "values"):
        out["sync"][mode] = [
            _shown(c, mode) for c in app.stream({"log": []}, ONE_AT_A_TIME, stream_mode=mode)
        ]
    out["async"] = asyncio.run(_async(app))
    out["starts"] = [
        c["name"] for c in app.stream({"log": []}, stream_mode="tasks") if "input" in c
    ]
    return out
