"""An async-only community saver: ``langgraph-checkpoint-plainredis``'s ``AsyncRedisSaver``
(plain Redis) implements only the async methods; its synchronous ones raise
`NotImplementedError`. Async runs (parallel interrupts answered together, a `Send` fan-out,
each durability, a fork from history) work on it; a synchronous ``invoke`` or ``get_state``
raises that error, as under LangGraph. Without ``SUPERSTEP_REDIS_URL`` both sides say so."""

import asyncio
import operator
import os
import uuid
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt

T = 20.0


class S(TypedDict):
    log: Annotated[list[str], operator.add]


def _asking(name):
    async def run(state):
        answer = interrupt(f"{name}?")
        return {"log": [f"{name}={answer}"]}

    return run


async def _item(state):
    return {"log": [f"item-{state['i']}"]}


def build(saver):
    g = StateGraph(S)
    g.add_node("a", _asking("a"))
    g.add_node("b", _asking("b"))
    g.add_node("item", _item)
    g.add_node("c", lambda state: {"log": ["c"]})
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_conditional_edges("c", lambda state: [Send("item", {"i": i}) for i in range(3)])
    g.add_edge(["a", "b"], "c")
    g.add_edge("item", END)
    return g.compile(checkpointer=saver)


def err(e):
    return ["raised", type(e).__name__]


async def scenario(saver, durability):
    app = build(saver)
    cfg = {"configurable": {"thread_id": f"t-{durability}"}}
    out = {}
    first = await asyncio.wait_for(app.ainvoke({"log": ["in"]}, cfg, durability=durability), T)
    out["paused"] = sorted(i.value for i in first["__interrupt__"])
    state = await app.aget_state(cfg)
    answers = {i.id: f"ans-{i.value}" for i in state.interrupts}
    done = await asyncio.wait_for(app.ainvoke(Command(resume=answers), cfg), T)
    out["done"] = sorted(done["log"])
    history = [s async for s in app.aget_state_history(cfg)]
    out["history"] = [(s.metadata["step"], s.metadata["source"], list(s.next)) for s in history]
    loop_steps = [s for s in history if s.metadata["source"] == "loop"]
    forked = await asyncio.wait_for(app.ainvoke(None, loop_steps[-1].config), T)
    # an interrupt's id hangs on the (uuid6) checkpoint id: its value only
    out["fork"] = sorted(i.value for i in forked["__interrupt__"])
    for name in ("invoke", "get_state"):
        try:
            if name == "invoke":
                app.invoke(None, cfg)
            else:
                app.get_state(cfg)
            out[name] = "ok"
        except Exception as e:
            out[name] = err(e)
    return out


async def run():
    url = os.environ.get("SUPERSTEP_REDIS_URL")
    if not url:
        return "SUPERSTEP_REDIS_URL unset"
    import redis
    from langgraph_checkpoint_plainredis import AsyncRedisSaver

    out = {}
    prefix = f"superstep-as10-{uuid.uuid4().hex[:10]}"
    try:
        for durability in (None, "sync", "async", "exit"):
            saver = AsyncRedisSaver(url=url, prefix=prefix)
            try:
                out[str(durability)] = await scenario(saver, durability)
            except Exception as e:
                out[str(durability)] = err(e)
            await saver.aclose()
    finally:
        client = redis.from_url(url)
        keys = list(client.scan_iter(match=f"{prefix}:*", count=500))
        if keys:
            client.delete(*keys)
        client.close()
    return out
