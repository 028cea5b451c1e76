"""@entrypoint/@task (async tasks gathered, a sync task, an interrupt and its resume) with
AsyncSqliteSaver, AsyncPostgresSaver and InMemorySaver."""

import asyncio
import uuid

from _async_saver_cases import T, err, pg_url
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.func import entrypoint, task
from langgraph.types import Command, interrupt

calls = []


@task
async def double(x):
    calls.append(x)
    return 2 * x


@task
def inc(x):
    return x + 1


async def scenario(saver, tid):
    calls.clear()

    @entrypoint(checkpointer=saver)
    async def wf(xs):
        ys = await asyncio.gather(*[double(x) for x in xs])
        z = await inc(sum(ys))
        ans = interrupt({"z": z})
        return {"z": z, "ans": ans}

    cfg = {"configurable": {"thread_id": tid}}
    r1 = await asyncio.wait_for(wf.ainvoke([1, 2, 3], cfg), T)
    r2 = await asyncio.wait_for(wf.ainvoke(Command(resume="yes"), cfg), T)
    st = await wf.aget_state(cfg)
    return [[i.value for i in r1["__interrupt__"]], r2, sorted(calls), st.values]


async def run():
    out = {}
    async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
        try:
            out["sqlite"] = await scenario(saver, "f")
        except BaseException as e:
            out["sqlite"] = err(e)
    try:
        out["memory"] = await scenario(InMemorySaver(), "m")
    except BaseException as e:
        out["memory"] = err(e)
    if pg_url() is None:
        out["postgres"] = "no SUPERSTEP_POSTGRES_URL"
        return out
    try:
        async with AsyncPostgresSaver.from_conn_string(pg_url()) as saver:
            await saver.setup()
            out["postgres"] = await scenario(saver, "f" + uuid.uuid4().hex[:6])
    except BaseException as e:
        out["postgres"] = err(e)
    return out
