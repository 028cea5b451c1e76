"""A state of one value (a schema without fields, ``StateGraph(Annotated[list, add])``):
its snapshots (`get_state`, `aget_state`, the history) show the bare value, before and
after an update, as ``invoke`` and the ``values`` stream do."""

import asyncio
import operator
from typing import Annotated

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send


def run() -> dict:
    builder = StateGraph(Annotated[list, operator.add])
    builder.add_node("one", lambda state: ["1"])
    builder.add_node("two", lambda item: [item])
    builder.add_edge(START, "one")
    builder.add_conditional_edges("one", lambda state: [Send("two", i) for i in range(3)])
    graph = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["two"])
    cfg = {"configurable": {"thread_id": "1"}}
    out: dict = {"paused": graph.invoke(["0"], cfg)}
    out["state"] = graph.get_state(cfg).values
    out["astate"] = asyncio.run(graph.aget_state(cfg)).values
    graph.update_state(cfg, ["u"])
    out["updated"] = graph.get_state(cfg).values
    out["finished"] = graph.invoke(None, cfg)
    out["history"] = [s.values for s in graph.get_state_history(cfg)]
    return out
