"""An async run talks to its saver on the caller's loop: a run cancelled with durability
"exit" still awaits the saver's ``aput`` of what it has (after the cancelled node's own
cleanup) before the cancellation reaches the caller; and `aupdate_state` right after an
``alist`` the caller broke out of (its generator, still holding the async SQLite saver's
lock, is closed by the loop) finishes instead of blocking the loop."""

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import START, StateGraph


class State(TypedDict):
    items: Annotated[list[str], operator.add]


async def _cancelled_exit_run() -> list[str]:
    log: list[str] = []

    class SlowPut(InMemorySaver):
        async def aput(self, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
            log.append("aput start")
            try:
                await asyncio.sleep(0.2)
                return await super().aput(config, checkpoint, metadata, versions)
            finally:
                log.append("aput end")

    async def slow(state: State) -> dict:
        log.append("node start")
        try:
            await asyncio.sleep(5)
        finally:
            log.append("node end")
        return {"items": ["slow"]}

    builder = StateGraph(State)
    builder.add_node("slow", slow)
    builder.add_edge(START, "slow")
    graph = builder.compile(checkpointer=SlowPut())
    cfg = {"configurable": {"thread_id": "1"}}
    run = asyncio.ensure_future(graph.ainvoke({"items": ["x"]}, cfg, durability="exit"))
    await asyncio.sleep(0.3)
    run.cancel()
    try:
        await run
    except asyncio.CancelledError:
        log.append("caller cancelled")
    return log


async def _update_after_broken_alist() -> dict:
    def node(name: str) -> Any:
        async def _node(state: State) -> dict:
            return {"items": [name]}

        return _node

    builder = StateGraph(State)
    builder.add_node("one", node("one"))
    builder.add_node("two", node("two"))
    builder.add_edge(START, "one")
    builder.add_edge("one", "two")
    async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
        graph = builder.compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": "1"}}
        await graph.ainvoke({"items": []}, cfg)
        target = None
        async for found in saver.alist(cfg):
            if found.metadata["step"] == 1:
                target = found.parent_config
                break
        forked = await asyncio.wait_for(graph.aupdate_state(target, values=None), 20)
        chunks = [c async for c in graph.astream(None, forked, stream_mode="updates")]
        state = await graph.aget_state(cfg)
        return {"chunks": chunks, "values": state.values, "step": state.metadata["step"]}


def run() -> dict:
    return {
        "cancelled_exit_run": asyncio.run(_cancelled_exit_run()),
        "update_after_broken_alist": asyncio.run(_update_after_broken_alist()),
    }
