"""A @task called in an async StateGraph node, before and after an interrupt, resumed on
AsyncSqliteSaver: the resumed node's task calls consult the results saved on the checkpoint
it continues while the run's own writes go on in the background (read in place through
another loop, the saver's asyncio.Lock failed as bound to a different event loop)."""

import asyncio
import operator
import uuid
from typing import Annotated, TypedDict

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.func import task
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt


class S(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


@task
async def double(x):
    await asyncio.sleep(0)
    return 2 * x


async def first(s):
    return {"n": s["n"] + 1, "log": ["first"]}


async def node(s):
    a = await double(s["n"])
    b = await double(a)
    ans = interrupt({"b": b})
    c = await double(b)
    return {"n": c, "log": [f"node {ans}"]}


async def run():
    out = []
    async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
        g = StateGraph(S)
        g.add_node("first", first)
        g.add_node("node", node)
        g.add_edge(START, "first")
        g.add_edge("first", "node")
        app = g.compile(checkpointer=saver)
        for i in range(15):
            cfg = {"configurable": {"thread_id": str(uuid.uuid4())}}
            try:
                await asyncio.wait_for(app.ainvoke({"n": i, "log": []}, cfg), 10)
                r2 = await asyncio.wait_for(app.ainvoke(Command(resume="ok"), cfg), 10)
                out.append(r2["n"])
            except BaseException as e:
                out.append(type(e).__name__ + ": " + str(e)[:150])
    return out
