"""One core for a sync/async pair: logic written once as a generator, driven either way.

Code that must exist both as a plain function and as a coroutine function (a host's attempt
loop, a task's body runner) differs only where it blocks: ``time.sleep`` or ``await
clock.asleep``, a call or an awaited call. Written once as a generator (a `Twin`), it yields
each blocking operation as a `Block` carrying both spellings and receives the operation's
result back (or its exception, thrown in at the ``yield``); `drive` performs the blocks by
calling the plain spelling, `adrive` by awaiting the asynchronous one. Everything between
two blocks runs in the driver's thread (or on its event loop) in the driver's context, so a
context variable the core sets is seen by the operations it yields.

A core that hands out a stream of values (a `TwinIter`) yields `Emit` for each one besides
its blocks: `drive_iter` makes it a plain generator, `adrive_iter` an async one. An error
thrown into the consumer's generator at a value (a ``with`` body's, or the ``GeneratorExit``
of ``close``/``aclose``) is thrown into the core there, so one core can also hold a resource
as a context manager does (``contextmanager(drive_iter)``), releasing it with blocks.

A pair of public methods is then one core and one line: `twins` (or `iter_twins`) makes
the two spellings of a core method, with the core's signature, named after it
(``get_state, aget_state = twins(_get_state)``).
`in_thread`/`in_thread_iter` make the async spelling of a plain method that runs it in a
worker thread (for blocking I/O without an async client).

Imports nothing of Superstep: any layer may use it (the host, the llm layer, the façade).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Generator,
    Iterator,
)
from dataclasses import dataclass
from typing import Any, Concatenate, Final, Generic, NamedTuple, NoReturn, ParamSpec, TypeVar

__all__ = [
    "EXHAUSTED",
    "Block",
    "Emit",
    "Twin",
    "TwinIter",
    "adrive",
    "adrive_iter",
    "async_of",
    "async_only",
    "closing",
    "drive",
    "drive_iter",
    "entering",
    "in_thread",
    "in_thread_iter",
    "iter_of",
    "iter_twins",
    "leaving",
    "next_of",
    "picked",
    "plain_of",
    "sync_only",
    "twins",
]

R = TypeVar("R")
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
P = ParamSpec("P")


class Block(NamedTuple):
    """One blocking operation of a `Twin`: ``sync(*args)`` performs it in the calling thread,
    ``await aio(*args)`` on the running loop. Its value is sent back into the core at the
    ``yield``; an exception it raises is thrown in there. A named tuple: one is made per
    operation, on hot paths."""

    sync: Callable[..., Any]
    aio: Callable[..., Awaitable[Any]]
    args: tuple[Any, ...] = ()


def sync_only(call: Callable[..., Any], *args: Any) -> Block:
    """A block for a core only `drive` runs (the caller picked the thread side already)."""
    return Block(call, _other_driver, args)


def async_only(call: Callable[..., Awaitable[Any]], *args: Any) -> Block:
    """A block for a core only `adrive` runs."""
    return Block(_other_driver, call, args)


def _other_driver(*args: Any) -> NoReturn:
    raise TypeError("a one-sided twin block was performed by the other driver")


Twin = Generator[Block, Any, R]
"""The shared core of a sync/async pair: yields `Block`s, returns the pair's result."""


def drive(core: Twin[R]) -> R:
    """Run ``core`` to its end in the calling thread, performing each block with its plain
    spelling; returns what ``core`` returns, raises what it raises."""
    try:  # `_resume`'s first send, inline: a core that never blocks costs no further call
        out: Any = core.send(None)
    except StopIteration as stop:
        result: R = stop.value
        return result
    ended = False
    while not ended:
        try:
            value, thrown = out.sync(*out.args), False
        except BaseException as error:  # the core decides (it may catch, retry, re-raise)
            value, thrown = error, True
        ended, out = _resume(core, value, thrown)
    result = out
    return result


async def adrive(core: Twin[R]) -> R:
    """`drive` on the running event loop: each block's asynchronous spelling is awaited (a
    cancellation of the caller is thrown into ``core`` like any error)."""
    ended, out = _resume(core, None, False)
    while not ended:
        try:
            value, thrown = await out.aio(*out.args), False
        except BaseException as error:
            value, thrown = error, True
        ended, out = _resume(core, value, thrown)
    result: R = out
    return result


def _resume(core: Generator[Any, Any, Any], value: Any, thrown: bool) -> tuple[bool, Any]:
    """Send ``value`` into ``core`` (throw it, when ``thrown``): ``(False, the next block)``
    or ``(True, what the core returned)``. A StopIteration the core lets out comes back as
    itself, not as the RuntimeError a generator turns it into (the pair's plain spelling
    raised it as is)."""
    try:
        return False, core.throw(value) if thrown else core.send(value)
    except StopIteration as stop:
        return True, stop.value
    except RuntimeError as error:
        escaped = error.__cause__
        if not thrown or escaped is None or escaped is not value:
            raise
    raise escaped


# --- streams: a core that emits values ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Emit(Generic[T_co]):
    """One value a `TwinIter` hands its consumer; what the consumer's generator is sent (or
    thrown) there comes back into the core at the ``yield``."""

    value: T_co


TwinIter = Generator[Block | Emit[T], Any, None]
"""The shared core of a plain/async generator pair: yields `Block`s and `Emit`s."""

EXHAUSTED: Final = object()
"""What a `next_of` block gives back once its iterator has no more items."""


def _next(items: Iterator[Any]) -> Any:
    return next(items, EXHAUSTED)


async def _anext(items: AsyncIterator[Any]) -> Any:
    return await anext(items, EXHAUSTED)


def next_of(items: Iterator[Any] | AsyncIterator[Any]) -> Block:
    """The next item of the lane's iterator (a plain one for `drive`, an async one for
    `adrive`), or `EXHAUSTED`."""
    return Block(_next, _anext, (items,))


def drive_iter(core: TwinIter[T]) -> Generator[T, Any, None]:
    """``core`` as a plain generator: its blocks performed in the consumer's thread, its
    emitted values yielded; what the consumer throws in (or its ``close``) goes to the core."""
    ended, out = _resume(core, None, False)
    while not ended:
        try:
            if type(out) is Emit:
                value = yield out.value
            else:
                value = out.sync(*out.args)
            thrown = False
        except BaseException as error:  # the core decides, as in `drive`
            value, thrown = error, True
        ended, out = _resume(core, value, thrown)


async def adrive_iter(core: TwinIter[T]) -> AsyncGenerator[T, Any]:
    """`drive_iter` as an async generator: each block's asynchronous spelling is awaited
    (during ``aclose`` too: a core's clean-up blocks run on the loop)."""
    ended, out = _resume(core, None, False)
    while not ended:
        try:
            if type(out) is Emit:
                value = yield out.value
            else:
                value = await out.aio(*out.args)
            thrown = False
        except BaseException as error:
            value, thrown = error, True
        ended, out = _resume(core, value, thrown)


async def _aiter(items: Any) -> AsyncIterator[Any]:
    return aiter(items)


def iter_of(items: Any) -> Block:
    """An iterator over the lane's iterable (``iter`` or ``aiter``), for `next_of`."""
    return Block(iter, _aiter, (items,))


def _close(items: Any) -> None:
    close = getattr(items, "close", None)
    if close is not None:
        close()


async def _aclose(items: Any) -> None:
    aclose = getattr(items, "aclose", None)
    if aclose is not None:
        await aclose()


def closing(items: Any) -> Block:
    """Closing the lane's generator (``close`` or ``aclose``; nothing for an iterator
    without): a core's ``finally`` for an iterator it read from, which would otherwise
    stay open as long as a stored traceback keeps the core's frame."""
    return Block(_close, _aclose, (items,))


async def _made(call: Callable[..., Any], *args: Any) -> Any:
    return call(*args)


def picked(sync: Callable[..., Any], aio: Callable[..., Any], *args: Any) -> Block:
    """The lane's own one of two calls, made at once on either lane (nothing awaited): for a
    value that differs by lane, as a plain and an async context manager do."""
    return Block(sync, functools.partial(_made, aio), args)


def _enter(manager: Any) -> Any:
    return manager.__enter__()


async def _aenter(manager: Any) -> Any:
    return await manager.__aenter__()


def _exit(manager: Any, *exc: Any) -> Any:
    return manager.__exit__(*exc)


async def _aexit(manager: Any, *exc: Any) -> Any:
    return await manager.__aexit__(*exc)


def entering(manager: Any) -> Block:
    """Entering the lane's context manager (``__enter__`` or ``__aenter__``)."""
    return Block(_enter, _aenter, (manager,))


def leaving(manager: Any, *exc: Any) -> Block:
    """Leaving the lane's context manager with ``exc`` (``(type, value, traceback)`` or
    three ``None``); its value says whether it suppressed the error."""
    return Block(_exit, _aexit, (manager, *exc))


# --- the two spellings of a core method --------------------------------------------------------


def _named(
    spelling: Callable[..., Any], core: Callable[..., Any], prefix: str, name: str | None = None
) -> Any:
    """``spelling`` wrapped as ``core`` (signature, docstring), named ``name`` (by default
    the core's name without its leading underscore), ``prefix`` in front."""
    functools.update_wrapper(spelling, core)
    # the core's return annotation (a generator) is not the spelling's: leave it out
    spelling.__signature__ = inspect.signature(core).replace(  # type: ignore[attr-defined]
        return_annotation=inspect.Signature.empty
    )
    spelling.__annotations__ = {k: v for k, v in core.__annotations__.items() if k != "return"}
    name = core.__name__.lstrip("_") if name is None else name
    bare = name.lstrip("_")  # a private pair keeps its underscores: ``_stream``, ``_astream``
    name = name[: len(name) - len(bare)] + prefix + bare
    spelling.__name__ = name
    spelling.__qualname__ = core.__qualname__.rsplit(".", 1)[0] + "." + name
    return spelling


def twins(
    core: Callable[Concatenate[Any, P], Twin[R]], name: str | None = None
) -> tuple[Callable[Concatenate[Any, P], R], Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]]:
    """The plain method (`drive`) and the coroutine method (`adrive`) of a core method.
    (A pair, unpacked in the class body: an assignment to one name would take the base
    class's signature of that name as its type.)"""

    def plain(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return drive(core(self, *args, **kwargs))

    async def aio(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await adrive(core(self, *args, **kwargs))

    return _named(plain, core, "", name), _named(aio, core, "a", name)


def iter_twins(
    core: Callable[Concatenate[Any, P], TwinIter[T]], name: str | None = None
) -> tuple[
    Callable[Concatenate[Any, P], Iterator[T]], Callable[Concatenate[Any, P], AsyncIterator[T]]
]:
    """The generator method (`drive_iter`) and the async generator method (`adrive_iter`) of
    a streaming core method: generator functions, so nothing of the core runs before the
    first item is asked for."""

    def plain(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
        yield from drive_iter(core(self, *args, **kwargs))

    async def aio(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> AsyncIterator[T]:
        stream = adrive_iter(core(self, *args, **kwargs))
        try:
            async for item in stream:
                yield item
        finally:
            await stream.aclose()  # the core's clean-up when the consumer stops early

    return _named(plain, core, "", name), _named(aio, core, "a", name)


def plain_of(core: Callable[Concatenate[Any, P], Twin[R]]) -> Callable[Concatenate[Any, P], R]:
    """The plain method (`drive`) of a core method, named as the core without its
    underscore: for a class of one lane (its twin class takes `async_of` of the same core,
    as a `Host` and an `AsyncHost` pair up)."""

    def plain(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return drive(core(self, *args, **kwargs))

    return _named(plain, core, "")  # type: ignore[no-any-return]


def async_of(
    core: Callable[Concatenate[Any, P], Twin[R]],
) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]:
    """The coroutine method (`adrive`) of a core method, named as `plain_of` names it (the
    async lane's class spells it the same way)."""

    async def aio(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await adrive(core(self, *args, **kwargs))

    return _named(aio, core, "")  # type: ignore[no-any-return]


def in_thread(
    method: Callable[Concatenate[Any, P], R],
) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]:
    """The coroutine method that runs ``method`` in a worker thread (looked up on the
    instance by name, so a subclass's override runs)."""
    name = method.__name__

    async def aio(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(functools.partial(getattr(self, name), *args, **kwargs))

    return _named(aio, method, "a")  # type: ignore[no-any-return]


def in_thread_iter(
    method: Callable[Concatenate[Any, P], Iterator[T]],
) -> Callable[Concatenate[Any, P], AsyncIterator[T]]:
    """The async generator method that reads all of ``method``'s items in a worker thread,
    then yields them."""
    name = method.__name__

    async def aio(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> AsyncIterator[T]:
        read = functools.partial(getattr(self, name), *args, **kwargs)
        for item in await asyncio.to_thread(lambda: list(read())):
            yield item

    return _named(aio, method, "a")  # type: ignore[no-any-return]
