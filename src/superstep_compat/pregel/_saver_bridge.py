"""The façade's policy for calling a `BaseCheckpointSaver` from its synchronous driver core,
whatever the saver: which half of the protocol a call takes, and on which thread or loop. The
mechanism (a missing half stood in for by the other, a saver's loop, the private loop thread)
is the engine's, `superstep_core.host.saver_io`, which the durable host uses too.

The official async savers (``AsyncSqliteSaver``, ``AsyncPostgresSaver``) are bound to the
event loop they were made on (their ``loop``): an `asyncio.Lock` guards their connection, and
such a lock must only ever be used from that loop (released from another loop's thread, it
wakes its waiter without waking the waiter's loop, which then sleeps forever). So a saver with
a ``loop`` runs its coroutines there and nowhere else: off that loop's thread through its own
synchronous methods (they hand the coroutine to the loop and wait), and never blocking on it
from that loop's thread. An async run on that loop therefore never calls it in place from its
synchronous core: the run reads its thread off the loop (`bound_here` tells it to) and writes
through the host's background writes, which call the saver from their own thread; a `@task`
call consults the pending writes the run read (`TaskJournal.attach`).

A synchronous run, or a graph's synchronous state method, on the thread of the saver's loop
calls its synchronous methods, which refuse with the saver's own error (LangGraph's
behaviour: `sync_caller`). A saver with no ``loop`` that changes only its async methods runs
them on the private loop thread when an async run's core calls it in place. An async-only
saver, whose synchronous methods raise `NotImplementedError` (the plain-Redis community
saver's ``AsyncRedisSaver``), is bound to the loop of the async run that uses it
(`bound_here`, `superstep_core.host.saver_io.adopt_loop`), and called as an official async
saver is on its own loop: LangGraph's async runs await its coroutines on the caller's loop,
where its client binds and the caller goes on using it. LangGraph's synchronous runs get
its error, as ours do (`sync_caller`)."""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from superstep_core.host.saver_io import (
    adopt_loop,
    async_only,
    call_plain,
    found_async_only,
    home_loop,
    list_plain,
    private_loop,
    saver_loop,
    wait_on,
)

__all__ = [
    "bound_here",
    "off_loop_iter_twin",
    "off_loop_twin",
    "off_saver_loop",
    "saver_call",
    "saver_list",
    "sync_caller",
    "sync_entry",
    "sync_here",
    "twin_off_loop",
]

_R = TypeVar("_R")
_T = TypeVar("_T")
_P = ParamSpec("_P")


class _SaverUser(Protocol):
    def saver_for(self, config: Mapping[str, Any]) -> Any: ...


_G = TypeVar("_G", bound=_SaverUser)

_sync_caller: ContextVar[bool] = ContextVar("superstep_sync_saver_caller", default=False)


@contextmanager
def sync_caller() -> Iterator[None]:
    """Within: the saver calls made here are a synchronous caller's (a sync run, a sync
    state method), which call the saver's synchronous methods even on the thread of its
    event loop, where the official async savers refuse them with their own error, as
    LangGraph's synchronous calls do there (blocking that loop on the saver would hang)."""
    token = _sync_caller.set(True)
    try:
        yield
    finally:
        _sync_caller.reset(token)


def sync_entry(method: Callable[_P, _R]) -> Callable[_P, _R]:
    """``method`` (a graph's synchronous state method) called as a synchronous caller
    (`sync_caller`), an iterator it returns iterated as one too. Its async twin
    (`off_loop_twin`) calls the undecorated method."""

    @functools.wraps(method)
    def entry(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with sync_caller():
            result = method(*args, **kwargs)
        if isinstance(result, Iterator):
            return _iterated_as_sync(result)  # type: ignore[return-value]
        return result

    entry._sync_body = method  # type: ignore[attr-defined]
    return entry


def _iterated_as_sync(items: Iterator[_T]) -> Iterator[_T]:
    while True:
        with sync_caller():
            try:
                item = next(items)
            except StopIteration:
                return
        yield item


def _body(method: Callable[..., Any]) -> Callable[..., Any]:
    return getattr(method, "_sync_body", method)  # type: ignore[no-any-return]


def bound_here(saver: Any) -> bool:
    """Whether ``saver`` is an async saver bound to the event loop running on this thread:
    it must not be called in place here (see the module docstring). An async-only saver
    with no ``loop`` of its own is bound to the loop of the async run asking (`adopt_loop`):
    LangGraph awaits its coroutines on the caller's loop, where its client may have bound."""
    running = asyncio._get_running_loop()
    if running is None:
        return False
    if getattr(saver, "loop", None) is None:
        if saver is None or _sync_caller.get() or not async_only(saver):
            return False
        adopt_loop(saver, running)
    return saver_loop(saver) is running


async def off_saver_loop(saver: Any, fn: Callable[..., _R], *args: Any, **kw: Any) -> _R:
    """``fn(*args, **kw)`` (synchronous work that calls ``saver``), awaited from an async
    twin. For an async saver made on the running loop it runs on a worker thread, whose
    calls the saver hands to its loop, which stays free meanwhile: blocking the loop (the
    private loop thread of `saver_call`) deadlocks on a lock one of the loop's own
    coroutines holds, e.g. an ``alist`` the caller broke out of, which only the loop can
    close. Other savers: called here."""
    if bound_here(saver):
        return await asyncio.to_thread(fn, *args, **kw)
    return fn(*args, **kw)


def off_loop_twin(
    method: Callable[Concatenate[_G, _P], _R],
) -> Callable[Concatenate[_G, _P], Coroutine[Any, Any, _R]]:
    """The async twin of a graph's synchronous state method whose first parameter is
    ``config``: the same call, awaited through `off_saver_loop` with the saver the config
    selects (`saver_for`). Named ``a<name>``; its signature shows the method's."""

    body = _body(method)

    async def twin(self: _G, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        saver = self.saver_for(_config_of(method, args, kwargs))
        return await off_saver_loop(saver, body, self, *args, **kwargs)

    _name(twin, method)
    return twin


def off_loop_iter_twin(
    method: Callable[Concatenate[_G, _P], Iterable[_T]],
) -> Callable[Concatenate[_G, _P], AsyncIterator[_T]]:
    """`off_loop_twin` for a method that returns an iterator: the async twin iterates it
    (read whole off the loop first when the saver is an async one bound to a loop)."""

    body = _body(method)

    async def twin(self: _G, /, *args: _P.args, **kwargs: _P.kwargs) -> AsyncIterator[_T]:
        items = iter(body(self, *args, **kwargs))
        saver = self.saver_for(_config_of(method, args, kwargs))
        if saver is not None and saver_loop(saver) is not None:
            items = iter(await off_saver_loop(saver, list, items))
        for item in items:
            yield item

    _name(twin, method)
    _show_async_iterator(twin, method)
    return twin


def _config_of(method: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Any:
    if "config" in kwargs:
        return kwargs["config"]
    if not args:
        raise TypeError(f"a{method.__name__}() missing 1 required positional argument: 'config'")
    return args[0]


def _show_async_iterator(twin: Any, method: Callable[..., Any]) -> None:
    """The twin's signature: the method's, returning ``AsyncIterator[...]``."""
    shown = inspect.signature(method)
    returns = shown.return_annotation
    if isinstance(returns, str) and returns.startswith("Iterator["):
        twin.__signature__ = shown.replace(return_annotation=f"Async{returns}")


def _name(twin: Any, method: Callable[..., Any]) -> None:
    twin.__name__ = f"a{method.__name__}"
    twin.__qualname__ = f"{method.__qualname__.rpartition('.')[0]}.a{method.__name__}".lstrip(".")
    twin.__module__ = method.__module__
    twin.__doc__ = f"`{method.__name__}` on asyncio (the saver's calls off its event loop)."
    twin.__wrapped__ = method  # its signature is the method's


def saver_call(saver: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    """``saver.<method>(*args)``, through the core's mechanism (`call_plain`) with the
    façade's policy. The official async savers refuse their synchronous twins on the thread
    of the event loop they were made on (the driver's core is synchronous, so an async run
    calls from there): their async twin then runs on the private loop thread while this one
    waits, as the sync twin would have on theirs. So does the async twin of a saver class
    that defines it below its sync twin (a subclass that changes only ``aput``): an async run
    of LangGraph calls the async twins. An async-only saver's twins stand in for its
    synchronous methods, except for a synchronous caller (`sync_caller`), which gets the
    saver's own `NotImplementedError`, as LangGraph's synchronous runs do."""
    if _async_twin(saver, method):
        return wait_on(private_loop(), getattr(saver, "a" + method)(*args, **kwargs), saver)
    return call_plain(saver, method, args, kwargs, stand_in=not _sync_caller.get())


def twin_off_loop(saver: Any, method: str, *args: Any) -> Any:
    """``saver.a<method>(*args)`` awaited from a thread that runs no event loop, for a call
    `saver_call` would make through the async twin on the run's loop thread but that must
    not block that loop: on the saver's own loop (`home_loop`), which the run keeps free
    meanwhile (it awaits these calls, never blocks on them), so that the saver's
    coroutines never run on two loops."""
    return wait_on(home_loop(saver), getattr(saver, "a" + method)(*args), saver)


def sync_here(saver: Any, *methods: str) -> bool:
    """Whether `saver_call` calls ``saver``'s synchronous ``methods`` themselves on this
    thread (not their async twins): then any other thread may call them as well."""
    return not any(_async_twin(saver, method) for method in methods)


_OWN_ASYNC: dict[tuple[type, str], bool] = {}


def _async_twin(saver: Any, method: str) -> bool:
    """Whether an async run (called on an event loop thread) should use ``a<method>``."""
    # None off a loop: asked on each put (every step), where catching the RuntimeError
    # `get_running_loop` raises cost more than the put's own bookkeeping
    running = asyncio._get_running_loop()
    if running is None or _sync_caller.get():
        return False
    loop = saver_loop(saver)
    if loop is not None:
        return running is loop
    if found_async_only(saver):
        return True
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


def saver_list(saver: Any, config: Any, **kw: Any) -> Iterator[Any]:
    """``saver.list(config, **kw)``, or its async twin as `saver_call` chooses it."""
    if _async_twin(saver, "list"):
        return iter(wait_on(private_loop(), _collect(saver.alist(config, **kw)), saver))
    return list_plain(saver, (config,), kw, stand_in=not _sync_caller.get())


async def _collect(items: Any) -> list[Any]:
    return [item async for item in items]
