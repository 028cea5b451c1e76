"""Synchronous invoke/stream/get_state/update_state/get_state_history of a graph whose saver
is an AsyncSqliteSaver: on the thread of the saver's own loop they fail with the saver's
InvalidStateError (blocking that loop on the saver would hang), from another thread they work."""

import asyncio

from _async_saver_cases import T, err, simple
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver


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
