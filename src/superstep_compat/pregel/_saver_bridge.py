"""Calling a `BaseCheckpointSaver` from the façade's synchronous driver core, whatever the
saver: the official async savers refuse their synchronous methods on the thread of the event
loop they were made on, so there their async twin runs on a private loop thread instead."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

__all__ = ["off_saver_loop", "saver_call", "saver_list"]

_R = TypeVar("_R")

_bridge_loop: asyncio.AbstractEventLoop | None = None
_bridge_lock = threading.Lock()


def _run_elsewhere(coro: Coroutine[Any, Any, _R]) -> _R:
    """Run ``coro`` to completion on a private event loop thread and wait for it."""
    global _bridge_loop
    with _bridge_lock:
        if _bridge_loop is None:
            _bridge_loop = asyncio.new_event_loop()
            threading.Thread(
                target=_bridge_loop.run_forever, name="superstep-saver-bridge", daemon=True
            ).start()
    return asyncio.run_coroutine_threadsafe(coro, _bridge_loop).result()


def _bound_here(saver: Any) -> bool:
    """Whether ``saver`` is an async saver made on the event loop running on this thread."""
    loop = getattr(saver, "loop", None)
    if loop is None:
        return False
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


async def off_saver_loop(saver: Any, fn: Callable[..., _R], *args: Any, **kw: Any) -> _R:
    """``fn(*args, **kw)`` (synchronous work that calls ``saver``), awaited from an async
    twin. For an async saver made on the running loop it runs on a worker thread, whose
    calls the saver hands to its loop, which stays free meanwhile: blocking the loop (the
    private loop thread of `saver_call`) deadlocks on a lock one of the loop's own
    coroutines holds, e.g. an ``alist`` the caller broke out of, which only the loop can
    close. Other savers: called here."""
    if _bound_here(saver):
        return await asyncio.to_thread(fn, *args, **kw)
    return fn(*args, **kw)


def saver_call(saver: Any, method: str, *args: Any) -> Any:
    """``saver.<method>(*args)``. The official async savers refuse their synchronous twins
    on the thread of the event loop they were made on (the driver's core is synchronous,
    so an async run calls from there): their async twin then runs on a private loop
    thread while this one waits, as the sync twin would have on theirs."""
    loop = getattr(saver, "loop", None)
    if loop is not None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            return _run_elsewhere(getattr(saver, "a" + method)(*args))
    return getattr(saver, method)(*args)


async def _collect(items: Any) -> list[Any]:
    return [item async for item in items]


def saver_list(saver: Any, config: Any, **kw: Any) -> Iterator[Any]:
    loop = getattr(saver, "loop", None)
    if loop is not None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            return iter(_run_elsewhere(_collect(saver.alist(config, **kw))))
    return iter(saver.list(config, **kw))
