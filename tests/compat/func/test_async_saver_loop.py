"""An async run whose saver is an async one made on the run's own event loop never blocks that
loop on a write the saver may need the loop for: the `@task` journal's writes and the run's
step writes go to background writes (awaited, not waited for in place). Blocking the loop
there deadlocked: an ``aput_writes`` waiting for a result only the loop delivers.

Each scenario runs on a thread of its own, joined with a timeout, so a deadlock fails the test
instead of hanging the session."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from superstep_compat.checkpoint.sqlite.aio import AsyncSqliteSaver
from superstep_compat.func import entrypoint, task

TIMEOUT = 30.0


def run_within(make: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """``asyncio.run(make())`` on a daemon thread; fails (not hangs) past `TIMEOUT`."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = asyncio.run(make())
        except BaseException as error:  # reported to the test's thread
            out["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(TIMEOUT)
    assert not thread.is_alive(), "the run deadlocked on its own event loop"
    if "error" in out:
        raise out["error"]
    return out["value"]


class LoopNeedingSaver(AsyncSqliteSaver):
    """An async saver whose pending writes need the event loop it was made on (as aiosqlite
    hands its results back to a loop): called with that loop blocked, they never finish."""

    async def _on_own_loop(self) -> None:
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(asyncio.sleep(0), self.loop))

    async def aput_writes(self, *args: Any, **kwargs: Any) -> None:
        await self._on_own_loop()
        await super().aput_writes(*args, **kwargs)


@task
async def double(i: int) -> int:
    await asyncio.sleep(0.001 * (i % 5))
    return i * 2


def test_parallel_async_tasks_with_a_saver_that_needs_the_runs_loop() -> None:
    async def main() -> tuple[list[int], list[list[Any]]]:
        async with LoopNeedingSaver.from_conn_string(":memory:") as saver:

            @entrypoint(checkpointer=saver)
            async def graph(xs: list[int]) -> list[int]:
                return [await f for f in [double(x) for x in xs]]

            config: Any = {"configurable": {"thread_id": "1"}}
            out = await graph.ainvoke(list(range(10)), config)
            writes = [list(c.pending_writes or []) async for c in saver.alist(config)]
            return out, writes

    out, writes = run_within(main)
    assert out == [x * 2 for x in range(10)]
    # each call's result was saved on the checkpoint its step started from
    returns = sorted(v for step in writes for _, ch, v in step if ch == "__return__")
    assert returns == out
