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
    return asyncio._get_running_loop() is loop


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
    thread while this one waits, as the sync twin would have on theirs. So does the async
    twin of a saver class that defines it below its sync twin (a subclass that changes
    only ``aput``): an async run of LangGraph calls the async twins."""
    if _async_twin(saver, method):
        return _run_elsewhere(getattr(saver, "a" + method)(*args))
    return getattr(saver, method)(*args)


_OWN_ASYNC: dict[tuple[type, str], bool] = {}


def _async_twin(saver: Any, method: str) -> bool:
    """Whether an async run (called on an event loop thread) should use ``a<method>``."""
    # None off a loop: asked on each put (every step), where catching the RuntimeError
    # `get_running_loop` raises cost more than the put's own bookkeeping
    running = asyncio._get_running_loop()
    if running is None:
        return False
    loop = getattr(saver, "loop", None)
    if loop is not None:
        return running is loop
    cls = type(saver)
    key = (cls, method)
    known = _OWN_ASYNC.get(key)
    if known is None:
        known = _OWN_ASYNC[key] = _defined_below(cls, "a" + method, method)
    return known


def _defined_below(cls: type, name: str, other: str) -> bool:
    """Whether ``cls``'s MRO defines ``name`` in a class that comes before the one that
    defines ``other``."""
    for klass in cls.__mro__:
        if other in vars(klass):
            return False
        if name in vars(klass):
            return True
    return False


async def _collect(items: Any) -> list[Any]:
    return [item async for item in items]


def saver_list(saver: Any, config: Any, **kw: Any) -> Iterator[Any]:
    """``saver.list(config, **kw)``, or its async twin as `saver_call` chooses it."""
    if _async_twin(saver, "list"):
        return iter(_run_elsewhere(_collect(saver.alist(config, **kw))))
    return iter(saver.list(config, **kw))
