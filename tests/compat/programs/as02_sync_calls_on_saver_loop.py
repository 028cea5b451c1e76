"""Synchronous invoke/stream/get_state/update_state/get_state_history of a graph whose saver
is an AsyncSqliteSaver: on the thread of the saver's own loop they fail with the saver's
InvalidStateError (blocking that loop on the saver would hang), from another thread they work."""

import asyncio
import operator
from typing import Annotated, TypedDict

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import START, StateGraph

T = 20.0


class S(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def simple():
    g = StateGraph(S)
    g.add_node("a", lambda s: {"n": s["n"] + 1, "log": ["a"]})
    g.add_node("b", lambda s: {"n": s["n"] * 2, "log": ["b"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    return g


def err(e):
    return {"raised": type(e).__name__, "msg": str(e)[:120]}


async def run():
    out = {}
    async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
        app = simple().compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": "t"}}
        for name, call in [
            ("invoke", lambda: app.invoke({"n": 1, "log": []}, cfg)),
            ("stream", lambda: list(app.stream({"n": 1, "log": []}, cfg))),
            ("get_state", lambda: app.get_state(cfg).values),
            ("update_state", lambda: app.update_state(cfg, {"n": 5}) and "ok"),
            ("history", lambda: len(list(app.get_state_history(cfg)))),
        ]:
            try:
                out["here_" + name] = call()
            except BaseException as e:
                out["here_" + name] = err(e)
            try:
                out["thread_" + name] = await asyncio.wait_for(asyncio.to_thread(call), T)
            except BaseException as e:
                out["thread_" + name] = err(e)
        out["final"] = (await app.aget_state(cfg)).values
    return out
