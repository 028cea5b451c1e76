"""AsyncSqliteSaver with an async graph: ainvoke, aget_state_history, aupdate_state, replay
from a checkpoint_id, and stream_mode debug with subgraphs=True."""

import operator
from typing import Annotated, TypedDict

from _plain import namespace
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.config import get_stream_writer
from langgraph.func import task
from langgraph.graph import START, StateGraph


class S(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


@task
async def square(x: int) -> int:
    get_stream_writer()({"square": x})
    return x * x


async def compute(s):
    return {"n": await square(s["n"]), "log": ["compute"]}


async def run():
    inner = StateGraph(S)
    inner.add_node("compute", compute)
    inner.add_edge(START, "compute")
    g = StateGraph(S)
    g.add_node("inner", inner.compile())
    g.add_node("plus", lambda s: {"n": s["n"] + 1, "log": ["plus"]})
    g.add_edge(START, "inner")
    g.add_edge("inner", "plus")
    out = {}
    async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
        app = g.compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": "a"}}
        out["run"] = await app.ainvoke({"n": 3, "log": []}, cfg)
        hist = [h async for h in app.aget_state_history(cfg)]
        out["hist"] = [(h.next, h.values, h.metadata["step"]) for h in hist]
        mid = next(h for h in hist if h.next == ("plus",))
        newcfg = await app.aupdate_state(mid.config, {"n": 100})
        out["forked"] = await app.ainvoke(None, newcfg)
        out["replayed"] = [c async for c in app.astream(None, mid.config, stream_mode="updates")]
        dbg = []
        async for ns, mode, chunk in app.astream(
            {"n": 2, "log": []},
            {"configurable": {"thread_id": "b"}},
            stream_mode=["debug"],
            subgraphs=True,
        ):
            if mode == "debug":
                dbg.append(
                    (namespace(ns), chunk["type"], chunk["step"], chunk["payload"].get("name"))
                )
            else:
                dbg.append((namespace(ns), mode, chunk))
        out["debug"] = dbg
        out["count"] = len([c async for c in saver.alist(None)])
    return out
