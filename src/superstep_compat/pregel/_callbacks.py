"""The graph and its tasks as langchain-core callback runs, nested as LangGraph nests them:
the graph run (``stream``/``invoke`` and their async twins), one child run per task named
after its node (tags ``graph:step:N``), under it one run per conditional-edge router (tags
``seq:step:K``, K the router's place among the node's writers) and the runs of whatever the
node calls (tag ``seq:step:1``). `astream_events`, tracers (LangSmith, Langfuse) and token
streaming of chat models inside nodes see the graph like any Runnable.

Only done when the config carries callbacks: the common path pays one dict lookup per task.
Imports langchain-core only; never the engine.
"""

from __future__ import annotations

import copy
import inspect
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import aclosing
from typing import Any, TypeVar

from langchain_core.callbacks import (
    BaseCallbackHandler,
    BaseCallbackManager,
    CallbackManager,
    CallbackManagerForChainRun,
)
from langchain_core.runnables.config import patch_config, var_child_runnable_config
from langchain_core.tracers import BaseTracer
from langchain_core.tracers._streaming import _StreamingCallbackHandler
from langchain_core.tracers.context import _tracing_v2_is_enabled

from superstep_compat._internal._config import (
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
)

_Manager = TypeVar("_Manager", bound=BaseCallbackManager)
_log = logging.getLogger(__name__)

__all__ = ["TaskRun", "atraced", "atraced_call", "traced", "traced_call", "traces"]


def traces(config: Mapping[str, Any]) -> bool:
    """Whether a graph run with ``config`` opens a callback run: when it has callbacks, or
    when LangSmith tracing is on (``LANGSMITH_TRACING``, ``tracing_context(enabled=True)``,
    inside a traced run), where LangChain's callback manager brings its tracer itself."""
    return bool(config.get("callbacks")) or bool(_tracing_v2_is_enabled())


def traced(
    name: str,
    config: dict[str, Any],
    input: Any,
    chunks: Callable[[dict[str, Any]], Iterator[Any]],
    final: Callable[[], Any] | None = None,
) -> Iterator[Any]:
    """Yield ``chunks(child_config)`` inside a callback run named ``name``; the run ends
    with ``final()`` (the graph's state values, as LangGraph reports), else the last chunk."""
    if not traces(config):
        yield from chunks(config)
        return
    config = _with_thread(config)
    manager = _marked(get_callback_manager_for_config(config))  # type: ignore[arg-type]
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
    run.on_chain_end(last if final is None else final())


async def atraced(
    name: str,
    config: dict[str, Any],
    input: Any,
    chunks: Callable[[dict[str, Any]], AsyncGenerator[Any, None]],
    final: Callable[[], Any] | None = None,
) -> AsyncGenerator[Any, None]:
    """`traced` for ``astream``."""
    if not traces(config):
        # closed as soon as this stream is (a consumer stopping early cancels the run's
        # running tasks then, not whenever the loop finalises the generator)
        async with aclosing(chunks(config)) as plain:
            async for chunk in plain:
                yield chunk
        return
    config = _with_thread(config)
    manager = _marked(get_async_callback_manager_for_config(config))  # type: ignore[arg-type]
    run = await manager.on_chain_start(
        None, input, name=config.get("run_name") or name, run_id=config.pop("run_id", None)
    )
    child = dict(patch_config(config, callbacks=run.get_child()))  # type: ignore[arg-type]
    source = chunks(child)
    stream: AsyncIterator[Any] = source
    for handler in run.handlers:
        if isinstance(handler, _StreamingCallbackHandler):
            stream = handler.tap_output_aiter(run.run_id, stream)
    last = None
    try:
        async with aclosing(source):  # see above
            async for chunk in stream:
                last = chunk
                yield chunk
    except BaseException as e:
        await run.on_chain_error(e)
        raise
    await run.on_chain_end(last if final is None else final())


def traced_call(
    name: str,
    config: dict[str, Any],
    input: Any,
    call: Callable[[dict[str, Any]], Any],
    final: Callable[[], Any] | None = None,
) -> Any:
    """``call(child_config)`` inside a callback run named ``name`` (``invoke``'s graph run),
    ending with ``final()`` when given, else with the result."""
    if not traces(config):
        return call(config)
    config = _with_thread(config)
    manager = _marked(get_callback_manager_for_config(config))  # type: ignore[arg-type]
    run = manager.on_chain_start(
        None, input, name=config.get("run_name") or name, run_id=config.pop("run_id", None)
    )
    try:
        result = call(dict(patch_config(config, callbacks=run.get_child())))  # type: ignore[arg-type]
    except BaseException as e:
        run.on_chain_error(e)
        raise
    run.on_chain_end(result if final is None else final())
    return result


async def atraced_call(
    name: str,
    config: dict[str, Any],
    input: Any,
    call: Callable[[dict[str, Any]], Awaitable[Any]],
    final: Callable[[], Any] | None = None,
) -> Any:
    """`traced_call` for ``ainvoke``."""
    if not traces(config):
        return await call(config)
    config = _with_thread(config)
    manager = _marked(get_async_callback_manager_for_config(config))  # type: ignore[arg-type]
    run = await manager.on_chain_start(
        None, input, name=config.get("run_name") or name, run_id=config.pop("run_id", None)
    )
    try:
        result = await call(dict(patch_config(config, callbacks=run.get_child())))  # type: ignore[arg-type]
    except BaseException as e:
        await run.on_chain_error(e)
        raise
    await run.on_chain_end(result if final is None else final())
    return result


def _with_thread(config: dict[str, Any]) -> dict[str, Any]:
    """LangGraph puts the thread id in the graph run's metadata."""
    thread = (config.get("configurable") or {}).get("thread_id")
    metadata = config.get("metadata") or {}
    if thread is None or "thread_id" in metadata:
        return config
    return {**config, "metadata": {**metadata, "thread_id": thread}}


class TaskRun:
    """The callback run of one task: a child of the graph run, tagged ``graph:step:N``.

    Always driven through the synchronous callback manager (a task's start, routers and end
    run synchronously even under asyncio); langchain-core hands async handlers their events
    in order all the same.
    """

    __slots__ = ("config", "policy", "run")

    def __init__(
        self, run: CallbackManagerForChainRun, config: dict[str, Any], policy: Any = None
    ) -> None:
        self.run = run
        self.config = config
        self.policy = policy

    @classmethod
    def start(
        cls, config: dict[str, Any], name: str, input: Any, step: int, policy: Any = None
    ) -> tuple[TaskRun, dict[str, Any]]:
        """Open the run of task ``name`` (``config`` is the task's config, its callbacks the
        graph run's children); returns it and the config the node is called with.
        ``policy``: the node's `TracePolicy` (what tracers record of its input and output;
        other handlers see them as they are)."""
        callbacks = config["callbacks"]
        if isinstance(callbacks, BaseCallbackManager):
            callbacks = callbacks.copy()
        else:
            callbacks = get_callback_manager_for_config({"callbacks": callbacks})
        # Added before the config's own tags are merged, so it comes first (as in LangGraph).
        callbacks.add_tags([f"graph:step:{step}"], inherit=False)
        manager = get_callback_manager_for_config({**config, "callbacks": callbacks})  # type: ignore[typeddict-item]
        recorded = _recorded(input, getattr(policy, "process_inputs", None))
        if recorded is input:
            run = manager.on_chain_start(None, input, name=name)
        else:
            others, tracers = _by_tracing(manager)
            run = others.on_chain_start(None, input, name=name)
            tracers.on_chain_start(None, recorded, name=name, run_id=run.run_id)
            run.handlers = manager.handlers  # the run's end and children reach every one
        task = cls(run, config, policy)
        return task, task.child_config(1)

    def child_config(self, position: int) -> dict[str, Any]:
        """The config of the node's ``position``-th writer (1: the node's own action)."""
        return {**self.config, "callbacks": self.run.get_child(f"seq:step:{position}")}

    def route(self, position: int, path: Any, state: Any, call: Callable[[Any, Any], Any]) -> Any:
        """Run router ``path`` on ``state`` (``call(path, state)`` calls it) as a child run; a
        Runnable router is its own run, given the child config."""
        config = self.child_config(position)
        if hasattr(path, "invoke") and not inspect.isfunction(path):
            return path.invoke(state, config)
        manager = get_callback_manager_for_config(config)  # type: ignore[arg-type]
        run = manager.on_chain_start(None, state, name=_router_name(path))
        child: Any = {**config, "callbacks": run.get_child()}
        token = var_child_runnable_config.set(child)
        try:
            result = call(path, state)
        except BaseException as e:
            run.on_chain_error(e)
            raise
        finally:
            var_child_runnable_config.reset(token)
        run.on_chain_end(result)
        return result

    def stream(self, output: Any) -> None:
        """Stream the node's return value to `astream_events` (its ``on_chain_stream``)."""
        for handler in self.run.handlers:
            if isinstance(handler, _StreamingCallbackHandler):
                for _ in handler.tap_output_iter(self.run.run_id, iter((output,))):
                    pass

    def end(self, output: Any, *, streamed: bool = False) -> None:
        """Close the run with the node's return value (streamed first to `astream_events`,
        unless `stream` did already)."""
        if not streamed:
            self.stream(output)
        recorded = _recorded(output, getattr(self.policy, "process_outputs", None))
        if recorded is output:
            self.run.on_chain_end(output)
            return
        others, tracers = _by_tracing(self.run)
        tracers.on_chain_end(recorded)
        others.on_chain_end(output)

    def error(self, error: BaseException) -> None:
        """Close the run with what the node raised (an interrupt too, as in LangGraph)."""
        self.run.on_chain_error(error)


_H = TypeVar("_H", CallbackManager, CallbackManagerForChainRun)


def _recorded(value: Any, transform: Callable[[Any], Any] | None) -> Any:
    """What tracers record of ``value`` under a trace policy's processor (``value`` itself
    without one, or when the processor raises: tracing never changes the run)."""
    if transform is None:
        return value
    try:
        return transform(value)
    except Exception:
        _log.exception("a trace policy's processor raised; recording the value as it is")
        return value


def _by_tracing(manager: _H) -> tuple[_H, _H]:
    """``manager`` split in two copies: the one of its handlers that are not tracers, and
    the one of its tracers (a trace policy shapes only what tracers record; the handler
    behind ``astream_events`` and ``astream_log`` feeds the caller's stream, not a trace)."""
    tracers: list[BaseCallbackHandler] = [
        h
        for h in manager.handlers
        if isinstance(h, BaseTracer) and not isinstance(h, _StreamingCallbackHandler)
    ]
    others = [h for h in manager.handlers if h not in tracers]
    a, b = copy.copy(manager), copy.copy(manager)
    a.handlers, b.handlers = others, tracers
    return a, b


def _marked(manager: _Manager) -> _Manager:
    """A graph run's callback manager, marked (for its runs and theirs) as LangGraph's."""
    if "ls_integration" not in manager.metadata:
        manager.add_metadata({"ls_integration": "langgraph"})
    return manager


def _router_name(path: Any) -> str:
    name = getattr(path, "__name__", None)
    if not isinstance(name, str) or name == "<lambda>":
        return "RunnableCallable"  # LangGraph's name for a router without one
    return name
