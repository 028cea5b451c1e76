"""Reaching a LangGraph `BaseCheckpointSaver` through whichever half of the protocol it
implements: the one mechanism both the engine's durable host and the LangGraph façade call a
saver with (the façade adds only its policy of which half a call of its takes,
`superstep_compat.pregel._saver_bridge`).

The protocol has a synchronous and an asynchronous spelling of every call (``put``/``aput``,
``put_writes``/``aput_writes``, ``get_tuple``/``aget_tuple``, ``list``/``alist``, ...), and
`BaseCheckpointSaver`'s own versions of both raise `NotImplementedError`, so a saver may
implement one half only:

- async-only savers (the plain-Redis community saver's ``AsyncRedisSaver``, a class that
  refuses its synchronous methods with `NotImplementedError`): a plain call (`call_plain`,
  `list_plain`) awaits their async twin on the saver's own event loop (its ``loop``, as the
  official async savers keep it; for one without, the loop of the async run that last
  used it, `adopt_loop`) or else on the private loop thread (`home_loop`), and waits for
  it. On the thread that runs that loop the wait would never end: `SaverLoopError`.
- sync-only savers (LangGraph's ``SqliteSaver``, whose async methods raise
  `NotImplementedError`): the async lane runs the synchronous method in a worker thread.
- the official async savers (``AsyncSqliteSaver``, ``AsyncPostgresSaver``) implement both:
  their synchronous methods hand the call to their loop from another thread, and refuse it
  on that loop's own thread with their own error; the async lane awaits them there.

A half counts as missing only when calling it raised `NotImplementedError` and the saver's
class defines the other half below `BaseCheckpointSaver` (so a saver that implements
neither still raises its own error), and the other half then answers. A class found missing
its synchronous half once is async-only from then on (`found_async_only`: every synchronous
call it defines an async twin for goes to that twin at once, with no failed call first); a
missing async half is kept per class and method. `saver_call` packs both lanes of one call
as a twin block (`superstep_core.twin`) for the durable host's cores.

Must never import: the llm layer, compat.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
import weakref
from collections.abc import Coroutine, Iterator, Mapping
from typing import Any, Final

from langgraph.checkpoint.base import BaseCheckpointSaver

from superstep_core.twin import Block

__all__ = [
    "METHODS",
    "SaverLoopError",
    "adopt_loop",
    "async_only",
    "call_plain",
    "found_async_only",
    "home_loop",
    "list_plain",
    "private_loop",
    "saver_call",
    "saver_loop",
    "wait_on",
]

METHODS: Final = frozenset({"put", "put_writes", "get_tuple", "list"})
"""The protocol calls the durable host makes with `saver_call` (``list`` comes back as a
list, not an iterator)."""


class SaverLoopError(RuntimeError):
    """A plain (synchronous) call that would have to wait, on the thread of an event loop, for
    a coroutine of a saver bound to that very loop: it could only block the loop for good.
    Use the async methods there (the durable runner's ``astart``, ``arecover``, ...)."""


def saver_call(saver: BaseCheckpointSaver[Any], method: str, *args: Any) -> Block:
    """The block that makes protocol call ``method`` (one of `METHODS`) with ``args`` on
    ``saver``: plainly through its synchronous method (or its async twin, see the module
    docstring), awaited through its async method (or the synchronous one in a thread)."""
    return Block(_plain, _awaited, (saver, method, args))


def _plain(saver: BaseCheckpointSaver[Any], method: str, args: tuple[Any, ...]) -> Any:
    if method == "list":
        return list(list_plain(saver, args))
    return call_plain(saver, method, args)


_ASYNC_ONLY: set[type] = set()
"""Saver classes whose synchronous spelling of a call raised `NotImplementedError` while the
async one answered."""
_NO_ASYNC: set[tuple[type, str]] = set()
"""(saver class, method) whose async spelling raised `NotImplementedError`."""


def _defines(cls: type, name: str) -> bool:
    """Whether ``cls`` has a method ``name`` of its own, not `BaseCheckpointSaver`'s stub."""
    return getattr(cls, name, None) is not getattr(BaseCheckpointSaver, name, None)


def found_async_only(saver: Any) -> bool:
    """Whether ``saver``'s class was found to implement only the async half (see the module
    docstring): its synchronous calls are made through their async twins."""
    return type(saver) in _ASYNC_ONLY


_SYNC_ANSWERS: set[type] = set()
"""Saver classes with async twins of their own whose synchronous ``get_tuple`` did not refuse
at once (`async_only`)."""


def async_only(saver: Any) -> bool:
    """Whether ``saver``'s class implements only the async half, known before any of its
    calls is made: found so already, or its synchronous ``get_tuple`` refuses an empty config
    with `NotImplementedError`. An async-only saver refuses before reading its arguments;
    any other reads the thread id from the config first and fails there (``KeyError``),
    before touching its storage. Asked once per class (a class with no async twin of its
    own is not asked: it is not async-only). Asked through the class, so that a spy set on
    the instance (a test counting its reads) does not see the question."""
    cls = type(saver)
    if cls in _ASYNC_ONLY:
        return True
    if cls in _SYNC_ANSWERS or not _defines(cls, "aget_tuple"):
        return False
    try:
        cls.get_tuple(saver, {})
    except NotImplementedError:
        _ASYNC_ONLY.add(cls)
        return True
    except Exception:  # the empty config's own failure: the half is there
        pass
    _SYNC_ANSWERS.add(cls)
    return False


def _stands_in(cls: type, method: str) -> bool:
    return cls in _ASYNC_ONLY and _defines(cls, "a" + method)


def call_plain(
    saver: Any,
    method: str,
    args: tuple[Any, ...] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    stand_in: bool = True,
) -> Any:
    """``saver.<method>(*args, **kwargs)`` made synchronously: the synchronous method, or,
    for a saver found to implement only the async half (``stand_in``; see the module
    docstring), the async twin awaited on `home_loop` while this thread waits. Without
    ``stand_in`` the synchronous method is called whatever it raises (a caller that must see
    the saver's own refusal, as LangGraph's synchronous API does)."""
    kw = kwargs or {}
    if not stand_in:
        return getattr(saver, method)(*args, **kw)
    cls = type(saver)
    if _stands_in(cls, method):
        return wait_on(home_loop(saver), getattr(saver, "a" + method)(*args, **kw), saver)
    try:
        return getattr(saver, method)(*args, **kw)
    except NotImplementedError as error:
        if not _defines(cls, "a" + method):
            raise
        refused = error
    # the half is missing only if the other one answers (a NotImplementedError from deeper
    # down, a serde's say, comes back from it too: then the lane's own error is raised)
    try:
        result = wait_on(home_loop(saver), getattr(saver, "a" + method)(*args, **kw), saver)
    except NotImplementedError:
        raise refused from None
    _ASYNC_ONLY.add(cls)
    return result


def list_plain(
    saver: Any,
    args: tuple[Any, ...] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    stand_in: bool = True,
) -> Iterator[Any]:
    """`call_plain` for ``list``: the synchronous method's items as it yields them (read
    lazily past the first, which is read here: a ``list`` may be a generator that raises
    `NotImplementedError` only when first read), or the async twin's, read whole."""
    kw = kwargs or {}
    cls = type(saver)
    if stand_in and _stands_in(cls, "list"):
        return iter(wait_on(home_loop(saver), _collect(saver, args, kw), saver))
    try:
        items = iter(saver.list(*args, **kw))
        first = next(items, _NONE)
    except NotImplementedError as error:
        if not stand_in or not _defines(cls, "alist"):
            raise
        refused = error
    else:
        return items if first is _NONE else itertools.chain((first,), items)
    try:
        result = wait_on(home_loop(saver), _collect(saver, args, kw), saver)
    except NotImplementedError:
        raise refused from None
    _ASYNC_ONLY.add(cls)
    return iter(result)


_NONE: Final = object()


async def _awaited(saver: BaseCheckpointSaver[Any], method: str, args: tuple[Any, ...]) -> Any:
    key = (type(saver), method)
    if key in _NO_ASYNC:
        return await _in_thread(saver, method, args)
    try:
        if method == "list":
            return await _collect(saver, args, {})
        return await getattr(saver, "a" + method)(*args)
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


async def _collect(saver: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> list[Any]:
    """``alist``'s items, read to its end."""
    return [item async for item in saver.alist(*args, **kwargs)]


_private: asyncio.AbstractEventLoop | None = None
_private_lock = threading.Lock()


def private_loop() -> asyncio.AbstractEventLoop:
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


_adopted: weakref.WeakKeyDictionary[Any, asyncio.AbstractEventLoop] = weakref.WeakKeyDictionary()
"""Savers with no ``loop`` of their own -> the loop of the async run that last used them."""


def adopt_loop(saver: Any, loop: asyncio.AbstractEventLoop) -> None:
    """``saver`` (one with no ``loop`` of its own) is used by an async run on ``loop``: its
    coroutines run there from now on (`saver_loop`), as LangGraph's async runs await them
    on the caller's loop. A client that binds to the loop it first connects on (redis's
    asyncio client) then stays usable by the caller on that loop, between and after runs;
    run anywhere else, the caller's next use of it fails. A saver that cannot be held by a
    weak reference keeps the private loop thread."""
    with contextlib.suppress(TypeError):
        _adopted[saver] = loop


def saver_loop(saver: Any) -> asyncio.AbstractEventLoop | None:
    """The event loop ``saver`` is bound to: its ``loop``, as the official async savers keep
    it, else the loop adopted for it (`adopt_loop`) while that loop runs (one stopped would
    never run a coroutine handed to it); None if neither."""
    loop = getattr(saver, "loop", None)
    if isinstance(loop, asyncio.AbstractEventLoop):
        return loop
    try:
        adopted = _adopted.get(saver)
    except TypeError:
        return None
    return adopted if adopted is not None and adopted.is_running() else None


def home_loop(saver: Any) -> asyncio.AbstractEventLoop:
    """Where ``saver``'s coroutines run for a caller that waits for them: the event loop the
    saver is bound to (`saver_loop`), else `private_loop`, so that one saver's coroutines
    never run on two loops at once."""
    return saver_loop(saver) or private_loop()


def wait_on(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], saver: Any) -> Any:
    """Run ``coro`` (a call of ``saver``'s) on ``loop``, another thread's, and wait for its
    result; `SaverLoopError` (``coro`` closed unrun) on ``loop``'s own thread."""
    if asyncio._get_running_loop() is loop:
        coro.close()
        raise SaverLoopError(
            f"{type(saver).__name__}'s call must run on the event loop of this thread, which "
            f"a synchronous call here would block for good: use the async methods there "
            f"(the durable runner's astart, arecover, ...; a graph's ainvoke, aget_state, ...)"
        )
    return asyncio.run_coroutine_threadsafe(coro, loop).result()
