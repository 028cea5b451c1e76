"""A saver whose aput raises from its third call on: the run fails with that error under
each durability, nothing hangs (an AsyncSqliteSaver subclass, an InMemorySaver subclass)."""

import asyncio

from _async_saver_cases import T, err, simple
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver


class Boom(Exception):
    pass


class BadSqlite(AsyncSqliteSaver):
    n = 0

    async def aput(self, *a, **k):
        BadSqlite.n += 1
        if BadSqlite.n >= 3:
            raise Boom("aput failed")
        return await super().aput(*a, **k)


class BadMem(InMemorySaver):
    n = 0

    async def aput(self, *a, **k):
        BadMem.n += 1
        if BadMem.n >= 3:
            raise Boom("aput failed")
        return await super().aput(*a, **k)


async def scenario(saver, durability):
    app = simple().compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "r" + str(durability)}}
    type(saver).n = 0
    try:
        r = await asyncio.wait_for(app.ainvoke({"n": 1, "log": []}, cfg, durability=durability), T)
        return ["ok", r]
    except BaseException as e:
        return err(e)


async def run():
    out = {}
    import aiosqlite

    for d in (None, "sync", "async", "exit"):
        async with aiosqlite.connect(":memory:") as conn:
            saver = BadSqlite(conn)
            out[f"sqlite_{d}"] = await scenario(saver, d)
        out[f"memory_{d}"] = await scenario(BadMem(), d)
    return out
