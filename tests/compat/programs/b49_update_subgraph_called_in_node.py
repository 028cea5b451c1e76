"""``update_state`` on the checkpoint of a subgraph that a node's function invokes (not a
subgraph node): LangGraph finds that subgraph (the graph the function reaches) as it does
for ``get_state(subgraphs=True)``; edits as one of its nodes or as no node, each on the
subgraph's paused checkpoint, then the resumed run uses the last edit. Beside the same
graph added as a node; sync, and async with ``aupdate_state``."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]


def ask(state: State) -> dict:
    return {"log": [f"answer={interrupt('q?')}"]}


inner = StateGraph(State)
inner.add_node("prep", lambda s: {"log": ["prep"]})
inner.add_node("ask", ask)
inner.add_node("post", lambda s: {"log": ["post"]})
inner.add_edge(START, "prep")
inner.add_edge("prep", "ask")
inner.add_edge("ask", "post")
inner_graph = inner.compile()


def call_inner(s: State) -> dict:
    return inner_graph.invoke(s)


def build(variant: str):
    b = StateGraph(State)
    b.add_node("mid", inner_graph if variant == "node" else call_inner)
    b.add_node("after", lambda s: {"log": ["after"]})
    b.add_edge(START, "mid")
    b.add_edge("mid", "after")
    return b.compile(checkpointer=InMemorySaver())


def _sub(g, cfg):
    return g.get_state(cfg, subgraphs=True).tasks[0].state


def _case(variant: str) -> dict:
    g = build(variant)
    cfg = {"configurable": {"thread_id": "t"}}
    g.invoke({"log": []}, cfg)
    sub = _sub(g, cfg)
    out: dict = {"paused": (sub.values, list(sub.next))}
    edits = []
    for as_node in ("ask", "prep", None):
        g.update_state(sub.config, {"log": [f"edit-{as_node}"]}, as_node=as_node)
        now = _sub(g, cfg)
        edits.append((as_node, now.values, list(now.next), now.metadata["source"]))
    out["edits"] = edits
    out["resumed"] = [
        (tuple(p.split(":")[0] for p in ns), chunk)
        for ns, chunk in g.stream(Command(resume="yes"), cfg, subgraphs=True)
        if "__interrupt__" not in chunk
    ]
    out["history"] = [(h.metadata["step"], list(h.next)) for h in g.get_state_history(cfg)]
    return out


async def _async_case() -> dict:
    g = build("function")
    cfg = {"configurable": {"thread_id": "t"}}
    await g.ainvoke({"log": []}, cfg)
    sub = (await g.aget_state(cfg, subgraphs=True)).tasks[0].state
    await g.aupdate_state(sub.config, {"log": ["async-edit"]}, as_node="ask")
    now = (await g.aget_state(cfg, subgraphs=True)).tasks[0].state
    final = await g.ainvoke(Command(resume="ignored"), cfg)
    return {"edited": (now.values, list(now.next)), "final": final}


def run() -> dict:
    return {
        "node": _case("node"),
        "function": _case("function"),
        "async": asyncio.run(_async_case()),
    }
