"""An entrypoint's timeout limits its function as a node's timeout does: past its run or
idle timeout the run fails with `NodeTimeoutError` (node, kind, both configured timeouts);
``runtime.heartbeat()`` and custom stream writes are progress that keep an idle timeout from
firing; a function that finishes in time returns normally."""

import asyncio

from langgraph.errors import NodeTimeoutError
from langgraph.func import entrypoint
from langgraph.runtime import Runtime
from langgraph.types import TimeoutPolicy


@entrypoint(timeout=TimeoutPolicy(idle_timeout=0.05))
async def idle_wf(x: int) -> int:
    await asyncio.sleep(0.5)
    return x


@entrypoint(timeout=TimeoutPolicy(run_timeout=0.05, idle_timeout=1.0))
async def run_wf(x: int) -> int:
    await asyncio.sleep(0.5)
    return x


@entrypoint(timeout=0.5)
async def fast_wf(x: int) -> int:
    await asyncio.sleep(0.01)
    return x + 1


@entrypoint(timeout=TimeoutPolicy(idle_timeout=0.3))
async def beating_wf(x: int, runtime: Runtime) -> int:
    for _ in range(4):
        await asyncio.sleep(0.12)
        runtime.heartbeat()
    return x + 2


@entrypoint(timeout=TimeoutPolicy(idle_timeout=0.3))
async def writing_wf(x: int, runtime: Runtime) -> int:
    for i in range(4):
        await asyncio.sleep(0.12)
        runtime.stream_writer(i)
    return x + 3


async def outcome(wf: object, **kwargs: object) -> object:
    try:
        return {"value": await wf.ainvoke(1, **kwargs)}  # type: ignore[attr-defined]
    except NodeTimeoutError as e:
        return {
            "error": type(e).__name__,
            "node": e.node,
            "kind": e.kind,
            "run_timeout": e.run_timeout,
            "idle_timeout": e.idle_timeout,
        }


async def run() -> dict:
    return {
        "idle": await outcome(idle_wf),
        "run": await outcome(run_wf),
        "fast": await outcome(fast_wf),
        "heartbeat": await outcome(beating_wf),
        "writer": await outcome(writing_wf, stream_mode="custom"),
    }
