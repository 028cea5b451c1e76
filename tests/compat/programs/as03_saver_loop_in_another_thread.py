"""ainvoke/aget_state/aget_state_history on one loop of an AsyncSqliteSaver whose loop runs in
another thread. (Not a sync invoke afterwards: LangGraph's then fails or not as its saver's
asyncio.Lock happened to be contended from the wrong loop during the ainvoke.)"""

import asyncio
import threading

from _async_saver_cases import T, err, simple
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver


def run():
    out = {}
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    cm = AsyncSqliteSaver.from_conn_string(":memory:")
    saver = asyncio.run_coroutine_threadsafe(cm.__aenter__(), loop).result(T)
    app = simple().compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}

    async def main():
        r = await asyncio.wait_for(app.ainvoke({"n": 1, "log": []}, cfg), T)
        s = await asyncio.wait_for(app.aget_state(cfg), T)
        h = await asyncio.wait_for(asyncio.shield(_hist(app, cfg)), T)
        return r, s.values, h

    try:
        out["other_loop"] = asyncio.run(main())
    except BaseException as e:
        out["other_loop"] = err(e)
    asyncio.run_coroutine_threadsafe(cm.__aexit__(None, None, None), loop).result(T)
    loop.call_soon_threadsafe(loop.stop)
    return out


async def _hist(app, cfg):
    return [h.values["n"] async for h in app.aget_state_history(cfg)]
