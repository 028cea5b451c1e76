"""A subgraph three calls deep (each level a node awaiting the next graph's ``ainvoke``)
streams its chunks to a v3 ``astream_events`` consumer while it runs, and aborting the run
cancels it: it does not go on looping after the abort."""

import asyncio
import warnings
from typing import Any, TypedDict

from langgraph.graph import END, StateGraph


class Count(TypedDict):
    count: int


async def run() -> dict:
    runs: list[int] = []

    async def deep(state: Count) -> dict:
        runs.append(state["count"] + 1)
        await asyncio.sleep(0.05)
        return {"count": state["count"] + 1}

    graph: Any = (
        StateGraph(Count)
        .add_node("deep", deep)
        .set_entry_point("deep")
        .add_conditional_edges("deep", lambda s: END if s["count"] >= 10 else "deep")
        .compile()
    )
    for _ in range(3):

        async def caller(state: Count, _child: Any = graph) -> dict:
            return await _child.ainvoke({"count": 0})

        graph = StateGraph(Count).add_node("caller", caller).set_entry_point("caller").compile()

    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stream = await graph.astream_events({"count": 0}, version="v3")
    async for event in stream:
        params = event["params"]
        if event["method"] == "values" and params["namespace"]:
            seen.append((len(params["namespace"]), params["data"]["count"]))
            if params["data"]["count"] >= 2:
                break
    await stream.abort()
    at_abort = len(runs)
    await asyncio.sleep(0.3)
    return {
        "seen": seen,
        "stopped": len(runs) == at_abort,
        "before_the_end": len(runs) < 10,
    }
