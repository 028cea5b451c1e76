"""A functional workflow that catches a failing task's exception and goes on (LangGraph's
test_imp_exception): the astream_events sequence. The caught task starts but never streams
or ends, and the entrypoint's own return still streams as `my_workflow` before the root."""

import asyncio
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task

CAUGHT: list[str] = []


@task()
async def my_task(number: int) -> int:
    await asyncio.sleep(0)
    return number * 2


@task()
async def task_with_exception(number: int) -> int:
    await asyncio.sleep(0)
    raise Exception("This is a test exception")


@entrypoint(checkpointer=InMemorySaver())
async def my_workflow(number: int) -> str:
    await my_task(number)
    try:
        await task_with_exception(number)
    except Exception as e:
        CAUGHT.append(str(e))
    await my_task(number)
    return "done"


async def run() -> dict[str, Any]:
    cfg = {"configurable": {"thread_id": "1"}}
    out: dict[str, Any] = {"invoke": await my_workflow.ainvoke(1, cfg)}
    out["stream"] = [c async for c in my_workflow.astream(1, cfg)]
    events = [e async for e in my_workflow.astream_events(1, cfg, version="v2")]
    out["events"] = [(e["event"], e["name"]) for e in events]
    out["failed_start"] = [
        (e["data"], e["tags"], e["metadata"]["langgraph_step"])
        for e in events
        if e["name"] == "task_with_exception"
    ]
    out["caught"] = CAUGHT
    out["workflow_tags"] = [e["tags"] for e in events if e["name"] == "my_workflow"]
    return out
