"""The graph as a langchain-core callback run: ``on_chain_start`` / stream / end around a
``stream``/``astream`` call, so `astream_events`, tracers and token streaming of chat models
inside nodes (whose callbacks descend from this run) see the graph like any Runnable.

Only done when the config carries callbacks: the common path pays nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from langchain_core.runnables.config import (
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
    patch_config,
)
from langchain_core.tracers._streaming import _StreamingCallbackHandler

__all__ = ["atraced", "traced"]


def traced(
    name: str, config: dict[str, Any], input: Any, chunks: Callable[[dict[str, Any]], Iterator[Any]]
) -> Iterator[Any]:
    """Yield ``chunks(child_config)`` inside a callback run named ``name``."""
    if not config.get("callbacks"):
        yield from chunks(config)
        return
    manager = get_callback_manager_for_config(config)  # type: ignore[arg-type]
    run = manager.on_chain_start(
        None, input, name=config.get("run_name") or name, run_id=config.pop("run_id", None)
    )
    child = dict(patch_config(config, callbacks=run.get_child()))  # type: ignore[arg-type]
    stream: Iterator[Any] = chunks(child)
    for handler in run.handlers:
        if isinstance(handler, _StreamingCallbackHandler):
            stream = handler.tap_output_iter(run.run_id, stream)
    last = None
    try:
        for chunk in stream:
            last = chunk
            yield chunk
    except BaseException as e:
        run.on_chain_error(e)
        raise
    run.on_chain_end(last)


async def atraced(
    name: str,
    config: dict[str, Any],
    input: Any,
    chunks: Callable[[dict[str, Any]], AsyncIterator[Any]],
) -> AsyncIterator[Any]:
    """`traced` for ``astream``."""
    if not config.get("callbacks"):
        async for chunk in chunks(config):
            yield chunk
        return
    manager = get_async_callback_manager_for_config(config)  # type: ignore[arg-type]
    run = await manager.on_chain_start(
        None, input, name=config.get("run_name") or name, run_id=config.pop("run_id", None)
    )
    child = dict(patch_config(config, callbacks=run.get_child()))  # type: ignore[arg-type]
    stream: AsyncIterator[Any] = chunks(child)
    for handler in run.handlers:
        if isinstance(handler, _StreamingCallbackHandler):
            stream = handler.tap_output_aiter(run.run_id, stream)
    last = None
    try:
        async for chunk in stream:
            last = chunk
            yield chunk
    except BaseException as e:
        await run.on_chain_error(e)
        raise
    await run.on_chain_end(last)
