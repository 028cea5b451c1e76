"""An async run awaits an async-only saver's coroutines on the caller's event loop, as
LangGraph's does: a saver whose client binds to the loop it first connects on (the plain-Redis
community saver's ``AsyncRedisSaver``, on ``redis.asyncio``) is then still usable by the
caller on that loop, between and after runs (a graph's, an ``@entrypoint``'s): its own
``aget_tuple``/``alist``, a cleanup with its client. Before, the façade ran those coroutines
on a private loop thread, and the caller's next use of the client failed ("attached to a
different loop"). Without ``SUPERSTEP_REDIS_URL`` both sides say so."""

import asyncio
import operator
import os
import uuid
from typing import Annotated, TypedDict

from langgraph.func import entrypoint, task
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

T = 20.0


class S(TypedDict):
    log: Annotated[list[str], operator.add]


async def ask(state):
    return {"log": [f"ask={interrupt('go?')}"]}


def build(saver):
    g = StateGraph(S)
    g.add_node("first", lambda state: {"log": ["first"]})
    g.add_node("ask", ask)
    g.add_edge(START, "first")
    g.add_edge("first", "ask")
    g.add_edge("ask", END)
    return g.compile(checkpointer=saver)


def err(e):
    return ["raised", type(e).__name__]


async def direct(saver, cfg):
    """The saver used by the caller itself, on the caller's loop."""
    try:
        latest = await saver.aget_tuple(cfg)
        steps = [c.metadata["step"] async for c in saver.alist(cfg)]
        return {"step": latest.metadata["step"], "steps": steps}
    except Exception as e:
        return err(e)


async def scenario(saver, durability):
    app = build(saver)
    cfg = {"configurable": {"thread_id": f"t-{durability}"}}
    out = {}
    first = await asyncio.wait_for(app.ainvoke({"log": ["in"]}, cfg, durability=durability), T)
    out["paused"] = [i.value for i in first["__interrupt__"]]
    out["direct-paused"] = await direct(saver, cfg)
    state = await app.aget_state(cfg)
    out["next"] = list(state.next)
    chunks = [c async for c in app.astream(Command(resume="yes"), cfg, durability=durability)]
    out["chunks"] = chunks
    out["direct-done"] = await direct(saver, cfg)
    history = [s.metadata["step"] async for s in app.aget_state_history(cfg)]
    out["history"] = history
    return out


async def functional(saver):
    @task
    async def double(x):
        return x * 2

    @entrypoint(checkpointer=saver)
    async def flow(x):
        doubled = await double(x)
        return [doubled, interrupt("ok?")]

    cfg = {"configurable": {"thread_id": "t-functional"}}
    first = await asyncio.wait_for(flow.ainvoke(3, cfg), T)
    out = {"paused": [i.value for i in first["__interrupt__"]]}
    out["direct-paused"] = await direct(saver, cfg)
    out["done"] = await asyncio.wait_for(flow.ainvoke(Command(resume="yes"), cfg), T)
    out["direct-done"] = await direct(saver, cfg)
    return out


async def run():
    url = os.environ.get("SUPERSTEP_REDIS_URL")
    if not url:
        return "SUPERSTEP_REDIS_URL unset"
    from langgraph_checkpoint_plainredis import AsyncRedisSaver

    out = {}
    prefix = f"superstep-pt11-{uuid.uuid4().hex[:10]}"
    for durability in (None, "sync", "exit", "functional"):
        saver = AsyncRedisSaver(url=url, prefix=prefix)
        try:
            if durability == "functional":
                out[durability] = await functional(saver)
            else:
                out[str(durability)] = await scenario(saver, durability)
        except Exception as e:
            out[str(durability)] = err(e)
        try:  # the cleanup a test fixture does, with the saver's own client
            keys = [k async for k in saver.client.scan_iter(match=f"{prefix}:*", count=500)]
            if keys:
                await saver.client.delete(*keys)
            out[f"{durability}-cleanup"] = "ok"
        except Exception as e:
            out[f"{durability}-cleanup"] = err(e)
        await saver.aclose()
    return out
