"""An async run its caller cancels (``asyncio.wait_for`` around ``ainvoke``) or whose stream
the consumer leaves after the first chunk: LangGraph's runner cancels the step's tasks
still running, and each keeps ``CancelledError()`` as its error beside the writes of the
tasks that had finished, under durability "sync" and "async"; under "exit" the finished
tasks' writes are saved at the close and the cancelled ones keep no error."""

import asyncio
import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class State(TypedDict):
    log: Annotated[list[str], operator.add]


async def quick(state: State) -> dict[str, Any]:
    return {"log": ["quick"]}


async def slow(state: State) -> dict[str, Any]:
    await asyncio.sleep(30)
    return {"log": ["slow"]}


def _graph() -> Any:
    g = StateGraph(State)
    for name, fn in {"quick": quick, "slow": slow}.items():
        g.add_node(name, fn)
        g.add_edge(START, name)
    return g.compile(checkpointer=InMemorySaver())


async def _view(app: Any, cfg: dict[str, Any]) -> list[Any]:
    state = await app.aget_state(cfg)
    saved = await app.checkpointer.aget_tuple(cfg)
    writes = sorted([w[1], repr(w[2])] for w in saved.pending_writes)
    tasks = sorted([t.name, repr(t.error), t.result] for t in state.tasks)
    return [state.values, sorted(state.next), tasks, writes]


async def main() -> dict[str, Any]:
    out: dict[str, Any] = {}
    for durability in ("sync", "async", "exit"):
        app = _graph()
        cfg = {"configurable": {"thread_id": f"cancelled/{durability}"}}
        try:
            await asyncio.wait_for(app.ainvoke({"log": []}, cfg, durability=durability), 1.0)
        except BaseException as e:
            out[f"cancelled/{durability}"] = type(e).__name__
        await asyncio.sleep(0.2)
        out[f"cancelled/{durability}/view"] = await _view(app, cfg)

        app = _graph()
        cfg = {"configurable": {"thread_id": f"left/{durability}"}}
        async for chunk in app.astream(
            {"log": []}, cfg, durability=durability, stream_mode="updates"
        ):
            out[f"left/{durability}"] = chunk
            break
        await asyncio.sleep(0.2)
        out[f"left/{durability}/view"] = await _view(app, cfg)
    return out


def run() -> Any:
    return asyncio.run(main())
