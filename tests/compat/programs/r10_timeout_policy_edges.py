"""TimeoutPolicy on graph nodes, the cases LangGraph's runner pins beyond the plain limits:
a node that swallows the cancellation at its limit still fails with NodeTimeoutError (its
late custom chunk and update dropped); a sync ``time.sleep`` inside an async node blocks the
loop, so the node completes; an error handler gets the NodeTimeoutError (its fields); the
builder's default timeout applies to every node and a node's own wins; heartbeats do not
refresh a run timeout; a Send's timeout beside an idle limit; the ``updates`` and ``custom``
chunks a timed-out step streams."""

import asyncio
import operator
import time
from typing import Annotated, TypedDict

from langgraph.config import get_stream_writer
from langgraph.errors import NodeError, NodeTimeoutError
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send, TimeoutPolicy


class S(TypedDict, total=False):
    log: Annotated[list[str], operator.add]


def _described(exc: BaseException) -> list:
    if isinstance(exc, NodeTimeoutError):
        return [
            type(exc).__name__,
            exc.node,
            exc.kind,
            exc.run_timeout,
            exc.idle_timeout,
            exc.timeout,
        ]
    return [type(exc).__name__, str(exc)]


async def _attempt(coro) -> list:
    try:
        return ["ok", await coro]
    except Exception as exc:
        return _described(exc)


async def _chunks(graph, modes) -> list:
    out = []
    try:
        async for mode, data in graph.astream({"log": []}, stream_mode=modes):
            out.append([mode, data])
    except Exception as exc:
        out.append(_described(exc))
    return sorted(out, key=repr)


async def scenarios() -> dict:
    out: dict = {}

    async def stubborn(state: S) -> dict:
        writer = get_stream_writer()
        writer("before")
        try:
            await asyncio.sleep(2.0)
        except asyncio.CancelledError:
            writer("after-cancel")
            return {"log": ["late"]}
        return {"log": ["never"]}

    async def quick(state: S) -> dict:
        return {"log": ["quick"]}

    g = (
        StateGraph(S)
        .add_node("stubborn", stubborn, timeout=TimeoutPolicy(run_timeout=0.1))
        .add_node("quick", quick)
        .add_edge(START, "stubborn")
        .add_edge(START, "quick")
        .compile()
    )
    out["swallowed"] = await _attempt(g.ainvoke({"log": []}))
    out["swallowed_chunks"] = await _chunks(g, ["updates", "custom"])

    async def stubborn_runtime(state: S, runtime: Runtime) -> dict:
        runtime.stream_writer("before")
        try:
            await asyncio.sleep(2.0)
        except asyncio.CancelledError:
            runtime.stream_writer("after-cancel")
            return {"log": ["late"]}
        return {"log": ["never"]}

    g = (
        StateGraph(S)
        .add_node("stubborn", stubborn_runtime, timeout=TimeoutPolicy(idle_timeout=0.1))
        .add_edge(START, "stubborn")
        .compile()
    )
    out["swallowed_runtime_writer"] = await _chunks(g, ["updates", "custom"])

    async def blocks(state: S) -> dict:
        time.sleep(0.3)  # the loop is blocked: the limit cannot fire in time
        return {"log": ["blocked-through"]}

    g = (
        StateGraph(S)
        .add_node("blocks", blocks, timeout=TimeoutPolicy(idle_timeout=0.05))
        .add_edge(START, "blocks")
        .compile()
    )
    out["sync_sleep"] = await _attempt(g.ainvoke({"log": []}))

    async def hangs(state: S) -> dict:
        await asyncio.sleep(5.0)
        return {"log": ["never"]}

    def handler(state: S, error: NodeError) -> dict:
        return {"log": [f"handled:{error.node}:" + "|".join(map(str, _described(error.error)))]}

    g = (
        StateGraph(S)
        .add_node(
            "hangs",
            hangs,
            timeout=TimeoutPolicy(run_timeout=0.5, idle_timeout=0.1),
            error_handler=handler,
        )
        .add_edge(START, "hangs")
        .compile()
    )
    out["handled"] = await _attempt(g.ainvoke({"log": []}))

    async def slowish(state: S) -> dict:
        await asyncio.sleep(0.3)
        return {"log": ["slowish"]}

    g = (
        StateGraph(S)
        .set_node_defaults(timeout=TimeoutPolicy(run_timeout=0.05))
        .add_node("default_limit", slowish)
        .add_node("own_limit", quick, timeout=TimeoutPolicy(run_timeout=5.0))
        .add_edge(START, "default_limit")
        .compile()
    )
    out["defaults"] = await _attempt(g.ainvoke({"log": []}))
    g = (
        StateGraph(S)
        .set_node_defaults(timeout=TimeoutPolicy(run_timeout=0.05))
        .add_node("own_limit", slowish, timeout=TimeoutPolicy(run_timeout=5.0))
        .add_edge(START, "own_limit")
        .compile()
    )
    out["own_wins"] = await _attempt(g.ainvoke({"log": []}))

    async def beats(state: S, runtime: Runtime) -> dict:
        for _ in range(30):
            runtime.heartbeat()
            await asyncio.sleep(0.02)
        return {"log": ["beat-through"]}

    g = (
        StateGraph(S)
        .add_node("beats", beats, timeout=TimeoutPolicy(run_timeout=0.3, idle_timeout=1.0))
        .add_edge(START, "beats")
        .compile()
    )
    out["run_not_refreshed"] = await _attempt(g.ainvoke({"log": []}))

    async def fan(state: S):
        return [Send("worker", {"log": [f"w{i}"]}, timeout=0.1 if i else None) for i in range(2)]

    async def worker(arg: dict) -> dict:
        if arg["log"] == ["w1"]:
            await asyncio.sleep(1.0)
        return {"log": arg["log"]}

    g = (
        StateGraph(S)
        .add_node("worker", worker, timeout=TimeoutPolicy(idle_timeout=5.0))
        .add_conditional_edges(START, fan)
        .compile()
    )
    out["send_timeout"] = await _attempt(g.ainvoke({"log": []}))
    return out


def run() -> dict:
    return asyncio.run(scenarios())
