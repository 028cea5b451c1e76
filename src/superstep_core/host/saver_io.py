"""The calls a durable execution makes on a LangGraph `BaseCheckpointSaver`, as twin blocks
(`superstep_core.twin`): one core drives them either way, and each lane reaches the saver
through whichever of the protocol's two spellings it implements.

The protocol has a synchronous and an asynchronous spelling of every call (``put``/``aput``,
``put_writes``/``aput_writes``, ``get_tuple``/``aget_tuple``, ``list``/``alist``), and
`BaseCheckpointSaver`'s own versions of both raise `NotImplementedError`, so a saver may
implement one half only:

- async-only savers (the plain-Redis community saver's ``AsyncRedisSaver``, a class that
  refuses its synchronous methods with `NotImplementedError`): the plain lane awaits their
  async twin on the saver's own event loop (its ``loop``, as the official async savers
  keep it) or else on a private loop thread, and waits for it. On the thread that runs the
  saver's loop that wait would never end: `SaverLoopError` names the async runner instead.
- sync-only savers (LangGraph's ``SqliteSaver``, whose async methods raise
  `NotImplementedError`): the async lane runs the synchronous method in a worker thread.
- the official async savers (``AsyncSqliteSaver``, ``AsyncPostgresSaver``) implement both:
  their synchronous methods hand the call to their loop from another thread, and refuse it
  on that loop's own thread with their own error; the async lane awaits them there.

A half counts as missing only when calling it raised `NotImplementedError` and the saver's
class defines the other half below `BaseCheckpointSaver` (so a saver that implements
neither still raises its own error); the finding is kept per class and method.

Must never import: the llm layer, compat.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, Final

from langgraph.checkpoint.base import BaseCheckpointSaver

from superstep_core.twin import Block

__all__ = ["METHODS", "SaverLoopError", "saver_call"]

METHODS: Final = frozenset({"put", "put_writes", "get_tuple", "list"})
"""The protocol calls `saver_call` makes (``list`` comes back as a list, not an iterator)."""


class SaverLoopError(RuntimeError):
    """A plain (synchronous) call of a saver that implements only its async methods, made on
    the thread of the event loop the saver is bound to: it could only block that loop for
    good. Use the durable runner's async methods (``astart``, ``arecover``, ...) there."""


def saver_call(saver: BaseCheckpointSaver[Any], method: str, *args: Any) -> Block:
    """The block that makes protocol call ``method`` (one of `METHODS`) with ``args`` on
    ``saver``: plainly through its synchronous method (or its async twin, see the module
    docstring), awaited through its async method (or the synchronous one in a thread)."""
    return Block(_plain, _awaited, (saver, method, args))


_NO_SYNC: set[tuple[type, str]] = set()
"""(saver class, method) whose synchronous spelling raised `NotImplementedError`."""
_NO_ASYNC: set[tuple[type, str]] = set()
"""(saver class, method) whose async spelling raised `NotImplementedError`."""


def _defines(cls: type, name: str) -> bool:
    """Whether ``cls`` has a method ``name`` of its own, not `BaseCheckpointSaver`'s stub."""
    return getattr(cls, name, None) is not getattr(BaseCheckpointSaver, name, None)


def _plain(saver: BaseCheckpointSaver[Any], method: str, args: tuple[Any, ...]) -> Any:
    key = (type(saver), method)
    if key in _NO_SYNC:
        return _on_saver_loop(saver, lambda: _collected(saver, method, args))
    try:
        found = getattr(saver, method)(*args)
        # a ``list`` may be a generator that raises only when first read
        return list(found) if method == "list" else found
    except NotImplementedError as error:
        if not _defines(key[0], "a" + method):
            raise
        refused = error
    # the half is missing only if the other one answers (a NotImplementedError from deeper
    # down, a serde's say, comes back from it too: then the lane's own error is raised)
    try:
        result = _on_saver_loop(saver, lambda: _collected(saver, method, args))
    except NotImplementedError:
        raise refused from None
    _NO_SYNC.add(key)
    return result


async def _awaited(saver: BaseCheckpointSaver[Any], method: str, args: tuple[Any, ...]) -> Any:
    key = (type(saver), method)
    if key in _NO_ASYNC:
        return await _in_thread(saver, method, args)
    try:
        return await _collected(saver, method, args)
    except NotImplementedError as error:
        if not _defines(key[0], method):
            raise
        refused = error
    try:
        result = await _in_thread(saver, method, args)
    except NotImplementedError:
        raise refused from None
    _NO_ASYNC.add(key)
    return result


async def _in_thread(saver: BaseCheckpointSaver[Any], method: str, args: tuple[Any, ...]) -> Any:
    """The sync spelling's result, from a worker thread (``list`` read to its end there)."""
    call = getattr(saver, method)
    if method == "list":
        return await asyncio.to_thread(lambda: list(call(*args)))
    return await asyncio.to_thread(call, *args)


async def _collected(saver: BaseCheckpointSaver[Any], method: str, args: tuple[Any, ...]) -> Any:
    """The async spelling's result (``alist`` read to its end)."""
    if method == "list":
        return [item async for item in saver.alist(*args)]
    return await getattr(saver, "a" + method)(*args)


_private: asyncio.AbstractEventLoop | None = None
_private_lock = threading.Lock()


def _private_loop() -> asyncio.AbstractEventLoop:
    """The loop thread that runs the async methods of savers bound to no loop (started on
    first use; one for the process, so a saver's async client always sees the same loop)."""
    global _private
    with _private_lock:
        if _private is None:
            loop = asyncio.new_event_loop()
            threading.Thread(
                target=loop.run_forever, name="superstep-saver-loop", daemon=True
            ).start()
            _private = loop
        return _private


def _on_saver_loop(
    saver: BaseCheckpointSaver[Any], make: Callable[[], Coroutine[Any, Any, Any]]
) -> Any:
    """Run the coroutine ``make`` builds on ``saver``'s loop (the private one when it keeps
    none) and wait for its result; `SaverLoopError` on that loop's own thread."""
    loop = getattr(saver, "loop", None)
    if not isinstance(loop, asyncio.AbstractEventLoop):
        loop = _private_loop()
    if asyncio._get_running_loop() is loop:
        raise SaverLoopError(
            f"{type(saver).__name__} implements only the async checkpoint methods and is bound "
            f"to the event loop running on this thread: a synchronous call would block that "
            f"loop for good; use the durable runner's async methods (astart, arecover, ...)"
        )
    return asyncio.run_coroutine_threadsafe(make(), loop).result()
