"""Nested subgraphs with interrupts under Send fan-out, resumed one interrupt at a time, and
streamed with subgraphs=True: AsyncSqliteSaver and AsyncPostgresSaver (SUPERSTEP_POSTGRES_URL;
without it both sides record the same connection error)."""

import asyncio
import operator
from typing import Annotated, TypedDict

from _async_saver_cases import T, err, pg_url
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt


class W(TypedDict):
    items: list[int]
    done: Annotated[list[str], operator.add]


def build():
    leaf = StateGraph(W)

    async def ask(s):
        a = interrupt({"q": s["items"]})
        return {"done": [f"ask{s['items']}={a}"]}

    leaf.add_node("ask", ask)
    leaf.add_edge(START, "ask")
    mid = StateGraph(W)
    mid.add_node("leaf", leaf.compile())
    mid.add_node("after", lambda s: {"done": ["after"]})
    mid.add_edge(START, "leaf")
    mid.add_edge("leaf", "after")
    midc = mid.compile()
    top = StateGraph(W)
    top.add_node("fan", lambda s: {"done": ["fan"]})
    top.add_node("mid", midc)
    top.add_edge(START, "fan")
    top.add_conditional_edges(
        "fan", lambda s: [Send("mid", {"items": [i], "done": []}) for i in s["items"]]
    )
    top.add_edge("mid", END)
    return top


async def scenario(saver, tid):
    app = build().compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": tid}}
    res = []
    r = await asyncio.wait_for(app.ainvoke({"items": [1, 2, 3], "done": []}, cfg), T)
    res.append(sorted(str(i.value) for i in r.get("__interrupt__", [])))
    st = await app.aget_state(cfg, subgraphs=True)
    res.append([t.name for t in st.tasks])
    for k in range(3):
        st = await app.aget_state(cfg)
        if not st.interrupts:
            break
        first = st.interrupts[0]
        r = await asyncio.wait_for(app.ainvoke(Command(resume={first.id: f"A{k}"}), cfg), T)
        res.append(
            sorted(r["done"]) if "__interrupt__" not in r else ("int", len(r["__interrupt__"]))
        )
    chunks = []
    async for c in app.astream(
        {"items": [7, 8], "done": []},
        {"configurable": {"thread_id": tid + "s"}},
        subgraphs=True,
        stream_mode="updates",
    ):
        chunks.append(len(c[0]))
    res.append(sorted(chunks))
    res.append(len([c async for c in saver.alist({"configurable": {"thread_id": tid}})]))
    return res


async def run():
    out = {}
    async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
        try:
            out["sqlite"] = await scenario(saver, "x")
        except BaseException as e:
            out["sqlite"] = err(e)
    if pg_url() is None:
        out["postgres"] = "no SUPERSTEP_POSTGRES_URL"
        return out
    try:
        async with AsyncPostgresSaver.from_conn_string(pg_url()) as saver:
            await saver.setup()
            import uuid

            out["postgres"] = await scenario(saver, "x" + uuid.uuid4().hex[:6])
    except BaseException as e:
        out["postgres"] = err(e)
    return out
