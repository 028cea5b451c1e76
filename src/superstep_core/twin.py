"""One core for a sync/async pair: logic written once as a generator, driven either way.

Code that must exist both as a plain function and as a coroutine function (a host's attempt
loop, a task's body runner) differs only where it blocks: ``time.sleep`` or ``await
clock.asleep``, a call or an awaited call. Written once as a generator (a `Twin`), it yields
each blocking operation as a `Block` carrying both spellings and receives the operation's
result back (or its exception, thrown in at the ``yield``); `drive` performs the blocks by
calling the plain spelling, `adrive` by awaiting the asynchronous one. Everything between
two blocks runs in the driver's thread (or on its event loop) in the driver's context, so a
context variable the core sets is seen by the operations it yields.

Imports nothing of Superstep: any layer may use it (the host, the llm layer, the façade).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any, NamedTuple, NoReturn, TypeVar

__all__ = ["Block", "Twin", "adrive", "async_only", "drive", "sync_only"]

R = TypeVar("R")


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
    ended, out = _resume(core, None, False)
    while not ended:
        try:
            value, thrown = out.sync(*out.args), False
        except BaseException as error:  # the core decides (it may catch, retry, re-raise)
            value, thrown = error, True
        ended, out = _resume(core, value, thrown)
    result: R = out
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


def _resume(core: Twin[Any], value: Any, thrown: bool) -> tuple[bool, Any]:
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
