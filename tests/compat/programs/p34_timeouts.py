"""TimeoutPolicy: refused on sync nodes (at compile) and under a sync invoke; a run timeout
raises NodeTimeoutError (its fields, the task's error event) and is retried by the default
retry policy; an idle timeout fires without progress, heartbeats or custom stream chunks keep
it alive; timeouts must be positive. Hanging nodes wait forever, so only the limits (well
apart from the work's own time) decide."""

import asyncio
from datetime import timedelta
from typing import TypedDict

from langchain_core.runnables import RunnableLambda
from langgraph.config import get_stream_writer
from langgraph.errors import NodeTimeoutError
from langgraph.func import entrypoint, task
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy, TimeoutPolicy


class State(TypedDict):
    out: str


def build(node, **options):
    b = StateGraph(State)
    b.add_node("n", node, **options)
    b.add_edge(START, "n")
    return b


async def hang(state: State) -> dict:
    await asyncio.Event().wait()
    return {"out": "never"}


def described(exc: BaseException) -> dict:
    out = {"type": type(exc).__name__, "message": str(exc)}
    if isinstance(exc, NodeTimeoutError):
        out.update(
            message=str(exc).split(" (elapsed")[0],  # the elapsed time is the clock's
            node=exc.node,
            kind=exc.kind,
            timeout=exc.timeout,
            run_timeout=exc.run_timeout,
            idle_timeout=exc.idle_timeout,
            is_timeout_error=isinstance(exc, TimeoutError),
        )
    return out


def attempt(fn) -> dict:
    try:
        return {"result": fn()}
    except Exception as exc:
        return described(exc)


async def aattempt(coro) -> dict:
    try:
        return {"result": await coro}
    except Exception as exc:
        return described(exc)


def sync_node(state: State) -> dict:
    return {"out": "sync"}


async def scenarios() -> dict:
    out: dict = {}
    out["sync_node_refused"] = attempt(lambda: build(sync_node, timeout=1.0).compile() and 1)
    out["zero_refused"] = attempt(lambda: build(hang, timeout=0) and 1)
    out["negative_idle_refused"] = attempt(
        lambda: build(hang, timeout=TimeoutPolicy(idle_timeout=-1)) and 1
    )
    out["sync_invoke_refused"] = attempt(
        lambda: build(hang, timeout=5.0).compile().invoke({"out": ""})
    )

    app = build(hang, timeout=TimeoutPolicy(run_timeout=0.3)).compile()
    out["run_timeout"] = await aattempt(app.ainvoke({"out": ""}))
    out["timedelta_timeout"] = await aattempt(
        build(hang, timeout=timedelta(milliseconds=300)).compile().ainvoke({"out": ""})
    )

    tries: list[int] = []

    async def slow_first(state: State) -> dict:
        tries.append(1)
        if len(tries) == 1:
            await asyncio.Event().wait()
        return {"out": f"ok on attempt {len(tries)}"}

    policy = RetryPolicy(initial_interval=0.0, jitter=False)
    app = build(slow_first, timeout=0.3, retry_policy=policy).compile()
    out["retried_after_timeout"] = await aattempt(app.ainvoke({"out": ""}))

    not_retried = RetryPolicy(retry_on=ValueError, initial_interval=0.0, jitter=False)
    app = build(hang, timeout=0.3, retry_policy=not_retried).compile()
    out["timeout_not_matching_retry_on"] = await aattempt(app.ainvoke({"out": ""}))

    app = build(hang, timeout=TimeoutPolicy(idle_timeout=0.3)).compile()
    out["idle_timeout"] = await aattempt(app.ainvoke({"out": ""}))

    async def beats(state: State, runtime: Runtime) -> dict:
        for _ in range(5):
            await asyncio.sleep(0.02)
            runtime.heartbeat()
        return {"out": "heartbeats kept it alive"}

    idle = TimeoutPolicy(idle_timeout=1.0, refresh_on="heartbeat")
    out["heartbeats"] = await aattempt(build(beats, timeout=idle).compile().ainvoke({"out": ""}))

    async def writes(state: State) -> dict:
        writer = get_stream_writer()
        for i in range(5):
            await asyncio.sleep(0.02)
            writer({"tick": i})
        return {"out": "custom chunks kept it alive"}

    app = build(writes, timeout=TimeoutPolicy(idle_timeout=1.0)).compile()
    chunks = []

    async def stream() -> str:
        async for mode, chunk in app.astream({"out": ""}, stream_mode=["custom", "values"]):
            chunks.append([mode, chunk])
        return "done"

    out["custom_chunks"] = await aattempt(stream())
    out["custom_chunks_seen"] = chunks

    async def double(x: int) -> int:
        return 2 * x

    step = RunnableLambda(double)

    async def calls_runnables(state: State) -> dict:
        total = 0
        for i in range(12):  # 0.6 s in all, past the idle limit, but never 0.5 s silent
            await asyncio.sleep(0.05)
            total += await step.ainvoke(i)  # its callback events count as progress
        return {"out": f"total {total}"}

    app = build(calls_runnables, timeout=TimeoutPolicy(idle_timeout=0.5)).compile()
    out["callback_events_are_progress"] = await aattempt(app.ainvoke({"out": ""}))
    only_beats = TimeoutPolicy(idle_timeout=0.5, refresh_on="heartbeat")
    app = build(calls_runnables, timeout=only_beats).compile()
    out["callback_events_are_not_heartbeats"] = await aattempt(app.ainvoke({"out": ""}))

    events = []

    async def task_events() -> str:
        app = build(hang, timeout=0.2).compile()
        async for chunk in app.astream({"out": ""}, stream_mode="tasks"):
            events.append(
                {
                    "name": chunk["name"],
                    "error": type(chunk.get("error")).__name__ if "error" in chunk else None,
                    "keys": sorted(chunk),
                }
            )
        return "done"

    out["stream_on_timeout"] = await aattempt(task_events())
    out["task_events"] = events

    def sync_task() -> str:
        @task(timeout=1.0)
        def plain(x: int) -> int:
            return x

        return "decorated"

    out["task_sync_refused"] = attempt(sync_task)

    @task(timeout=0.3)
    async def hanging(x: int) -> int:
        await asyncio.Event().wait()
        return x

    @entrypoint()
    async def calls_hanging(x: int) -> int:
        return await hanging(x)

    out["task_timeout"] = await aattempt(calls_hanging.ainvoke(1))

    task_tries: list[int] = []

    @task(timeout=0.3, retry_policy=RetryPolicy(initial_interval=0.0, jitter=False))
    async def slow_first_task(x: int) -> int:
        task_tries.append(x)
        if len(task_tries) == 1:
            await asyncio.Event().wait()
        return x * 10

    @entrypoint()
    async def calls_slow_first(x: int) -> int:
        return await slow_first_task(x)

    out["task_timeout_retried"] = await aattempt(calls_slow_first.ainvoke(4))
    out["task_tries"] = len(task_tries)
    return out


def run() -> dict:
    return asyncio.run(scenarios())
