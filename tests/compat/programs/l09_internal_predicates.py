"""LangGraph's private predicates that libraries import: ``_is_not_empty`` (None and empty
lists, tuples and dicts are empty; ``""``, ``0`` and empty sets are not) and
``is_async_callable`` / ``is_async_generator`` (an async def or async generator, wrapped
ones, and objects or classes whose ``__call__`` is one; not partials, not builtins)."""

import functools

from langgraph._internal._config import _is_not_empty
from langgraph._internal._runnable import is_async_callable, is_async_generator


async def coro() -> None:
    return None


async def agen():  # type: ignore[no-untyped-def]
    yield


def plain() -> None:
    return None


class AsyncCall:
    async def __call__(self) -> None:
        return None


class GenCall:
    async def __call__(self):  # type: ignore[no-untyped-def]
        yield


def run() -> dict:
    candidates = {
        "coro": coro,
        "wrapped_coro": functools.wraps(coro)(lambda: None),
        "agen": agen,
        "plain": plain,
        "async_call_class": AsyncCall,
        "async_call_object": AsyncCall(),
        "gen_call_object": GenCall(),
        "partial_coro": functools.partial(coro),
        "builtin": len,
    }
    values = [None, [], (), {}, "", 0, set(), [0], {"a": 1}, False]
    return {
        "is_not_empty": [_is_not_empty(v) for v in values],
        "is_async_callable": {k: is_async_callable(v) for k, v in candidates.items()},
        "is_async_generator": {k: is_async_generator(v) for k, v in candidates.items()},
    }
