"""The async functional API: an async entrypoint gathering async task futures with
asyncio.gather, a task that interrupts, astream in updates/custom/values modes while
paused and resumed, a sync task called from the async entrypoint, a task that fails once
under a retry policy, and aget_state / aget_state_history."""

import asyncio
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.func import entrypoint, task
from langgraph.types import Command, RetryPolicy, interrupt

TRIES: dict[str, int] = {}


@task
async def fetch(name: str) -> str:
    await asyncio.sleep(0)
    return f"data:{name}"


@task
def shout(text: str) -> str:
    return text.upper()


@task(retry_policy=RetryPolicy(initial_interval=0, jitter=False))
async def flaky(x: int) -> int:
    TRIES[str(x)] = TRIES.get(str(x), 0) + 1
    if TRIES[str(x)] == 1:
        raise ConnectionError("once")
    return x * 10


@task
async def approve(summary: str) -> str:
    return str(interrupt({"summary": summary}))


@entrypoint(checkpointer=InMemorySaver())
async def pipeline(names: list[str]) -> dict[str, Any]:
    got = await asyncio.gather(*[fetch(n) for n in names])
    get_stream_writer()({"fetched": len(got)})
    loud = await shout(",".join(got))
    num = await flaky(len(names))
    verdict = await approve(loud)
    return {"loud": loud, "num": num, "verdict": verdict}


async def run() -> dict[str, Any]:
    cfg = {"configurable": {"thread_id": "a"}}
    out: dict[str, Any] = {}
    modes = ["updates", "custom", "values"]
    out["first"] = [c async for c in pipeline.astream(["x", "y"], cfg, stream_mode=modes)]
    st = await pipeline.aget_state(cfg)
    out["paused"] = [st.values, list(st.next), [i.value for i in st.interrupts]]
    out["resumed"] = [
        c async for c in pipeline.astream(Command(resume="ship"), cfg, stream_mode=modes)
    ]
    out["history"] = [
        (h.metadata["step"], h.metadata["source"], list(h.next))
        async for h in pipeline.aget_state_history(cfg)
    ]
    out["tries"] = TRIES
    return out
