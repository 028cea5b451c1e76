"""Cached `@task` calls of an `@entrypoint` streamed as LangGraph streams them: a call that
hits the cache shows its ``updates`` chunk (marked cached) right after its own start, before
the caller's next call starts, so several calls made before any is awaited show start,
chunk, start, chunk... (not all starts first); a call without a cache policy beside them
runs as usual. Sync and async entrypoints, ``updates`` alone and beside ``tasks``. The
first run of each thread fills the cache (its chunks race: only its result is compared)."""

import asyncio
from typing import Any

from langgraph.cache.memory import InMemoryCache
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.types import CachePolicy

CALLS: list[Any] = []


@task(cache_policy=CachePolicy())
def tenfold(i: int) -> int:
    CALLS.append(i)
    return i * 10


@task
def same(i: int) -> int:
    return i


@entrypoint(cache=InMemoryCache(), checkpointer=InMemorySaver())
def sync_main(n: int) -> list[int]:
    calls = [tenfold(i) for i in range(n)]
    other = same(5)
    return [c.result() for c in calls] + [other.result()]


@task(cache_policy=CachePolicy())
async def atenfold(i: int) -> int:
    CALLS.append(i)
    await asyncio.sleep(0.01 * (3 - i))
    return i * 10


@entrypoint(cache=InMemoryCache(), checkpointer=InMemorySaver())
async def async_main(n: int) -> list[int]:
    calls = [atenfold(i) for i in range(n)]
    return [await c for c in calls]


def shape(chunk: Any) -> Any:
    mode, data = chunk
    if mode == "tasks":
        return [mode, data["name"], "result" in data]
    return [mode, data]


def config(thread: str) -> Any:
    return {"configurable": {"thread_id": thread}}


def sync_case() -> dict[str, Any]:
    CALLS.clear()
    out: dict[str, Any] = {"first": sync_main.invoke(3, config("s0"))}
    out["hits"] = [
        shape(c) for c in sync_main.stream(3, config("s1"), stream_mode=["updates", "tasks"])
    ]
    out["hits_updates"] = list(sync_main.stream(3, config("s2"), stream_mode="updates"))
    out["calls"] = sorted(CALLS)
    return out


async def async_case() -> dict[str, Any]:
    CALLS.clear()
    out: dict[str, Any] = {"first": await async_main.ainvoke(3, config("a0"))}
    out["hits"] = [
        shape(c)
        async for c in async_main.astream(3, config("a1"), stream_mode=["updates", "tasks"])
    ]
    out["hits_updates"] = [c async for c in async_main.astream(3, config("a2"))]
    out["calls"] = sorted(CALLS)
    return out


def run() -> dict[str, Any]:
    return {"sync": sync_case(), "async": asyncio.run(async_case())}
