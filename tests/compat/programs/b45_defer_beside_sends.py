"""A deferred node (``defer=True``) beside `Send` tasks: LangGraph runs it in the first step
that no edge triggers, so a step of Send tasks only neither waits for it nor makes it wait
(it runs beside them, and again after them when they trigger it); a Send to a deferred node
runs at once; a deferred node with no Sends about waits for the edge-triggered nodes.
Compared through the values, each checkpoint's `next`, and an async run's values."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Send


class S(TypedDict, total=False):
    items: list
    log: Annotated[list, operator.add]


def fan(s: S) -> dict:
    return {"log": ["fan"]}


def to_workers(s: S) -> list:
    return [Send("worker", i) for i in s["items"]]


def worker(x: int) -> dict:
    return {"log": [f"w{x}"]}


def agg(s: S) -> dict:
    return {"log": [f"agg{len(s['log'])}"]}


def lone(s: S) -> dict:
    return {"log": ["lone"]}


def mid(s: S) -> dict:
    return {"log": ["mid"]}


def mid2(s: S) -> dict:
    return {"log": ["mid2"]}


def _fan_out(variant: str):
    g = StateGraph(S)
    g.add_node("fan", fan)
    g.add_node("worker", worker)
    g.add_node("agg", agg, defer=True)
    g.add_node("lone", lone, defer=True)
    g.add_edge(START, "fan")
    g.add_conditional_edges("fan", to_workers, ["worker"])
    if variant in ("fan_to_agg", "both_to_agg"):
        g.add_edge("fan", "agg")
    if variant in ("workers_to_agg", "both_to_agg", "lone_and_agg"):
        g.add_edge("worker", "agg")
    if variant == "lone_and_agg":
        g.add_edge("fan", "lone")
    return g


def _send_to_deferred():
    """fan Sends to the deferred agg and goes on to mid (which triggers agg by an edge)."""
    g = StateGraph(S)
    g.add_node("fan", fan)
    g.add_node("mid", mid)
    g.add_node("mid2", mid2)
    g.add_node("agg", lambda s: {"log": [f"agg:{s}" if isinstance(s, int) else "agg"]}, defer=True)
    g.add_edge(START, "fan")
    g.add_conditional_edges("fan", lambda s: [Send("agg", 1), "mid"], ["agg", "mid"])
    g.add_edge("mid", "mid2")
    g.add_edge("mid", "agg")
    return g


def _no_sends():
    """A deferred node waits for a longer edge-triggered branch; no Sends anywhere."""
    g = StateGraph(S)
    g.add_node("fan", fan)
    g.add_node("mid", mid)
    g.add_node("mid2", mid2)
    g.add_node("agg", agg, defer=True)
    g.add_edge(START, "fan")
    g.add_edge("fan", "mid")
    g.add_edge("fan", "agg")
    g.add_edge("mid", "mid2")
    return g


def _case(g) -> dict:
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    app.invoke({"items": [1, 2]}, cfg)
    return {
        "log": app.get_state(cfg).values["log"],
        "next": [(h.metadata["step"], list(h.next)) for h in app.get_state_history(cfg)],
    }


async def _values(g) -> list:
    app = g.compile()
    return [c["log"] async for c in app.astream({"items": [1, 2]}, stream_mode="values")]


def run() -> dict:
    out: dict = {}
    for variant in ("fan_to_agg", "workers_to_agg", "both_to_agg", "lone_and_agg"):
        out[variant] = _case(_fan_out(variant))
    out["send_to_deferred"] = _case(_send_to_deferred())
    out["no_sends"] = _case(_no_sends())
    out["values"] = asyncio.run(_values(_fan_out("both_to_agg")))

    # interrupt_before the deferred node stops in the step it runs in, beside the Sends
    app = _fan_out("both_to_agg").compile(checkpointer=InMemorySaver(), interrupt_before=["agg"])
    cfg = {"configurable": {"thread_id": "1"}}
    app.invoke({"items": [1, 2]}, cfg)
    stops = [list(app.get_state(cfg).next)]
    app.invoke(None, cfg)
    stops.append(list(app.get_state(cfg).next))
    app.invoke(None, cfg)
    out["interrupt_before"] = (stops, app.get_state(cfg).values["log"])
    return out
