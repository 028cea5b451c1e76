"""LangGraph's checkpointer conformance suite against the community savers the project runs
(``checkpoint/community.py``). Both implement the base capabilities (put, put_writes,
get_tuple, list, delete_thread) and none of the extended ones.

The suite drives the async API only; plainredis splits its sync and async APIs into two
classes, so its sync ``RedisSaver`` (the one ``invoke`` and the engine use) is run through
a thin async face that calls the sync methods in a thread."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.conformance import checkpointer_test, validate

from .community import object_storage_saver, redis_prefix, redis_saver
from .test_conformance import _assert_passed

BASE = {"put", "put_writes", "get_tuple", "list", "delete_thread"}


class _SyncThroughAsync:
    """The async methods the suite calls, each one the wrapped saver's sync method."""

    def __init__(self, saver: Any) -> None:
        self.saver = saver

    def __getattr__(self, name: str) -> Any:
        return getattr(self.saver, name)

    async def aput(self, *args: Any) -> Any:
        return await asyncio.to_thread(self.saver.put, *args)

    async def aput_writes(
        self, config: Any, writes: Sequence[Any], task_id: str, task_path: str = ""
    ) -> None:
        await asyncio.to_thread(self.saver.put_writes, config, writes, task_id, task_path)

    async def aget_tuple(self, config: Any) -> Any:
        return await asyncio.to_thread(self.saver.get_tuple, config)

    async def alist(self, config: Any, **kwargs: Any) -> AsyncIterator[Any]:
        for item in await asyncio.to_thread(lambda: list(self.saver.list(config, **kwargs))):
            yield item

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.saver.delete_thread, thread_id)


@pytest.fixture
def prefixes() -> Iterator[Any]:
    """Makes ``(url, prefix)`` pairs, every one's keys deleted after the test."""
    with ExitStack() as stack:
        yield lambda: stack.enter_context(redis_prefix())


@pytest.mark.parametrize("asynchronous", [False, True], ids=["RedisSaver", "AsyncRedisSaver"])
async def test_plainredis_passes_the_conformance_suite(asynchronous: bool, prefixes: Any) -> None:
    @checkpointer_test(name="plainredis")
    async def plainredis() -> AsyncIterator[Any]:
        saver = redis_saver(*prefixes(), asynchronous=asynchronous)
        yield saver if asynchronous else _SyncThroughAsync(saver)
        if asynchronous:
            await saver.aclose()
        else:
            saver.client.close()

    _assert_passed(await validate(plainredis), BASE)


async def test_objectstorage_passes_the_conformance_suite(tmp_path: Path) -> None:
    count = iter(range(1000))

    @checkpointer_test(name="objectstorage")
    async def objectstorage() -> AsyncIterator[Any]:
        yield object_storage_saver(tmp_path / f"s{next(count)}")

    _assert_passed(await validate(objectstorage), BASE)
