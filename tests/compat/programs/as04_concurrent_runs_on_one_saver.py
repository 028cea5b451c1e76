"""Twenty concurrent ainvokes on one saver (asyncio.gather), then twenty threads invoking
synchronously on it while its loop awaits them: AsyncSqliteSaver and InMemorySaver."""

import asyncio
import concurrent.futures

from _async_saver_cases import S, T, err, simple
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import START, StateGraph

THREADS = 20


async def node(s):
    await asyncio.sleep(0)
    return {"n": s["n"] + 1, "log": ["x"]}


def graph():
    g = StateGraph(S)
    g.add_node("a", node)
    g.add_node("b", node)
    g.add_node("c", lambda s: {"n": s["n"] * 2, "log": ["c"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    return g


async def one(saver, label):
    app = graph().compile(checkpointer=saver)
    rs = await asyncio.wait_for(
        asyncio.gather(
            *[
                app.ainvoke({"n": i, "log": []}, {"configurable": {"thread_id": f"{label}{i}"}})
                for i in range(20)
            ]
        ),
        T * 2,
    )
    states = [
        (await app.aget_state({"configurable": {"thread_id": f"{label}{i}"}})).values["n"]
        for i in range(20)
    ]
    if not THREADS:
        return [r["n"] for r in rs], states
    sapp = simple().compile(checkpointer=saver)

    def sync(i):
        return sapp.invoke({"n": i, "log": []}, {"configurable": {"thread_id": f"{label}s{i}"}})[
            "n"
        ]

    with concurrent.futures.ThreadPoolExecutor(THREADS) as ex:
        fs = [asyncio.wrap_future(ex.submit(sync, i)) for i in range(THREADS)]
        threaded = await asyncio.wait_for(asyncio.gather(*fs), T * 2)
    return [r["n"] for r in rs], states, threaded


async def run():
    out = {}
    async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
        try:
            out["sqlite"] = await one(saver, "q")
        except BaseException as e:
            out["sqlite"] = err(e)
    try:
        out["memory"] = await one(InMemorySaver(), "m")
    except BaseException as e:
        out["memory"] = err(e)
    return out
