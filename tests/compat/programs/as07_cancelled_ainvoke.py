"""An ainvoke cancelled while a node runs: the thread keeps its last checkpoint and continues
from it (AsyncSqliteSaver, InMemorySaver)."""

import asyncio

from _async_saver_cases import S, T, err
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import START, StateGraph


async def scenario(saver, tid):
    gate = asyncio.Event()
    seen = []

    async def a(s):
        seen.append("a")
        return {"n": s["n"] + 1, "log": ["a"]}

    async def slow(s):
        seen.append("slow")
        if not gate.is_set():
            await asyncio.sleep(3600)
        return {"n": s["n"] * 10, "log": ["slow"]}

    g = StateGraph(S)
    g.add_node("a", a)
    g.add_node("slow", slow)
    g.add_edge(START, "a")
    g.add_edge("a", "slow")
    app = g.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": tid}}
    t = asyncio.create_task(app.ainvoke({"n": 1, "log": []}, cfg))
    for _ in range(200):
        await asyncio.sleep(0.01)
        if "slow" in seen:
            break
    t.cancel()
    try:
        await asyncio.wait_for(t, T)
        cancelled = "finished"
    except asyncio.CancelledError:
        cancelled = "cancelled"
    except BaseException as e:
        cancelled = err(e)
    st = await asyncio.wait_for(app.aget_state(cfg), T)
    gate.set()
    r = await asyncio.wait_for(app.ainvoke(None, cfg), T)
    return [cancelled, st.values, list(st.next), r, seen]


async def run():
    out = {}
    async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
        try:
            out["sqlite"] = await scenario(saver, "c")
        except BaseException as e:
            out["sqlite"] = err(e)
    try:
        out["memory"] = await scenario(InMemorySaver(), "c")
    except BaseException as e:
        out["memory"] = err(e)
    return out
