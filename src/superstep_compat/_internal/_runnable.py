"""`RunnableCallable` (`langgraph._internal._runnable`): a function (and its async twin) as a
langchain `Runnable` that injects what the function's signature asks for, as LangGraph's does.
langchain's `create_agent`, langgraph-supervisor, langmem and trustcall build their nodes and
tools with it.

Injection (keyword parameters, matched by name and annotation as in LangGraph):
``config`` (annotated `RunnableConfig` or not at all), ``writer`` (`StreamWriter`), ``store``
(`BaseStore`; ``BaseStore | None`` defaults to None), ``previous``, ``runtime`` (any
annotation) and ``error`` (`NodeError`, default None). Values come from the run's `Runtime`:
the one in ``config["configurable"]["__pregel_runtime"]`` when a caller put it there, else
the running graph node's. A required one that cannot be found is a ValueError naming the key
and the callable. Values passed explicitly as keyword arguments win.
"""

from __future__ import annotations

import asyncio
import inspect
import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Optional, TypeAlias, cast

from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import set_config_context

from superstep_compat._internal._config import (
    ensure_config,
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
    patch_config,
)
from superstep_compat._internal._constants import CONF, CONFIG_KEY_NODE_ERROR, CONFIG_KEY_RUNTIME
from superstep_compat._internal._typing import MISSING

__all__ = ["RunnableCallable", "RunnableLike", "is_async_callable", "is_async_generator"]

RunnableLike: TypeAlias = Runnable[Any, Any] | Callable[..., Any]
"""What a node or a sequence step may be: a langchain `Runnable` or a function (sync or
async) taking the input and, optionally, injected keyword arguments."""

_ANY = object()  # "any annotation" in the table below
_REQUIRED = inspect.Parameter.empty
_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def is_async_callable(func: Any) -> bool:
    """Whether calling ``func`` gives a coroutine: an ``async def`` (or a partial of one),
    or an object (or class) whose ``__call__`` is one. ``__wrapped__`` is not followed."""
    call = getattr(func, "__call__", None)  # noqa: B004 (its own kind is asked, not callable())
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(call)


def is_async_generator(func: Any) -> bool:
    """Whether calling ``func`` gives an async iterator: an ``async def`` with ``yield``
    (or a partial of one), or an object (or class) whose ``__call__`` is one."""
    call = getattr(func, "__call__", None)  # noqa: B004 (its own kind is asked, not callable())
    return inspect.isasyncgenfunction(func) or inspect.isasyncgenfunction(call)


def _injectable() -> tuple[tuple[str, tuple[Any, ...], str, Any], ...]:
    """(parameter, accepted annotations, `Runtime` attribute, default) for each injectable
    keyword; a parameter may appear twice with different annotations and defaults."""
    from superstep_compat.errors import NodeError
    from superstep_compat.store.base import BaseStore
    from superstep_compat.types import StreamWriter

    config_types = (
        RunnableConfig,
        "RunnableConfig",
        Optional[RunnableConfig],  # noqa: UP045 (the spelling users write)
        "Optional[RunnableConfig]",
        _REQUIRED,
    )
    optional_store = (Optional[BaseStore], "Optional[BaseStore]")  # noqa: UP045
    return (
        ("config", config_types, "", _REQUIRED),
        ("writer", (StreamWriter, "StreamWriter", _REQUIRED), "stream_writer", _no_writer),
        ("store", (BaseStore, "BaseStore", _REQUIRED), "store", _REQUIRED),
        ("store", optional_store, "store", None),
        ("previous", (_ANY,), "previous", _REQUIRED),
        ("runtime", (_ANY,), "", _REQUIRED),
        ("error", (NodeError, "NodeError"), "", None),
    )


def _no_writer(_chunk: Any) -> None:
    return None


def _accepted(func: Callable[..., Any]) -> dict[str, tuple[str, Any]]:
    params = inspect.signature(func).parameters
    accepted: dict[str, tuple[str, Any]] = {}
    for name, accepts, attribute, default in _injectable():
        p = params.get(name)
        if p is None or p.kind not in _KINDS:
            continue
        if accepts != (_ANY,) and p.annotation not in accepts:
            if name == "config" and p.annotation is not _REQUIRED:
                warnings.warn(
                    "The 'config' parameter should be typed as 'RunnableConfig' or "
                    f"'RunnableConfig | None', not '{p.annotation}'. ",
                    UserWarning,
                    stacklevel=4,
                )
            continue
        accepted[name] = (attribute, default)
    return accepted


def _runtime_of(config: RunnableConfig) -> Any:
    runtime = config.get(CONF, {}).get(CONFIG_KEY_RUNTIME)
    if runtime is not None:
        return runtime
    from superstep_compat.runtime import get_runtime

    try:
        return get_runtime()
    except RuntimeError:  # not inside a graph run
        return None


class RunnableCallable(Runnable[Any, Any]):
    """``func`` (and ``afunc``, its async twin) as a `Runnable`.

    ``RunnableCallable(func, afunc=None, *, name=None, tags=None, trace=True, recurse=True,
    explode_args=False, **kwargs)``: ``kwargs`` are passed to every call; with ``trace`` the
    call is a child chain run of the caller's callbacks (named ``config["run_name"]`` or
    ``name``, default the function's name), and the function runs with that run's config as
    the ambient one; with ``recurse`` a `Runnable` returned by the function is invoked with
    the same input and config; with ``explode_args`` the input is ``(args, kwargs)``.
    ``ainvoke`` without ``afunc`` calls ``invoke`` (on the caller's thread, as LangGraph).
    ValueError when neither function is given; TypeError from ``invoke`` without ``func``.
    """

    def __init__(
        self,
        func: Callable[..., Any] | None,
        afunc: Callable[..., Awaitable[Any]] | None = None,
        *,
        name: str | None = None,
        tags: Sequence[str] | None = None,
        trace: bool = True,
        recurse: bool = True,
        explode_args: bool = False,
        **kwargs: Any,
    ) -> None:
        if func is None and afunc is None:
            raise ValueError("At least one of func or afunc must be provided.")
        if name is None:
            own = getattr(func or afunc, "__name__", None)
            name = own if own != "<lambda>" else None
        self.name = name
        self.func = func
        self.afunc = afunc
        self.tags = tags
        self.kwargs = kwargs
        self.trace = trace
        self.recurse = recurse
        self.explode_args = explode_args
        self.func_accepts: dict[str, tuple[str, Any]] = _accepted(
            cast(Callable[..., Any], func or afunc)
        )

    def __repr__(self) -> str:
        shown = {
            k: v
            for k, v in self.__dict__.items()
            if k not in {"name", "func", "afunc", "config", "kwargs", "trace"}
        }
        return f"{self.get_name()}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

    def _call_args(
        self, input: Any, config: RunnableConfig, kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if self.explode_args:
            args, extra = input
            kwargs = {**self.kwargs, **extra, **kwargs}
        else:
            args = (input,)
            kwargs = {**self.kwargs, **kwargs}
        runtime: Any = MISSING
        for kw, (attribute, default) in self.func_accepts.items():
            if kw in kwargs:
                continue
            value: Any = MISSING
            if kw == "config":
                value = config
            elif kw == "error":
                value = config.get(CONF, {}).get(CONFIG_KEY_NODE_ERROR, MISSING)
            else:
                if runtime is MISSING:
                    runtime = _runtime_of(config)
                if runtime is not None:
                    value = runtime if kw == "runtime" else getattr(runtime, attribute, MISSING)
            if value is MISSING:
                if default is _REQUIRED:
                    key = attribute or kw
                    raise ValueError(f"Missing required config key '{key}' for '{self.name}'.")
                value = default
            kwargs[kw] = value
        return tuple(args), kwargs

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Call ``func`` with the input and its injected keywords (see the class)."""
        if self.func is None:
            raise TypeError(
                f'No synchronous function provided to "{self.name}".'
                "\nEither initialize with a synchronous function or invoke"
                " via the async API (ainvoke, astream, etc.)"
            )
        config = ensure_config() if config is None else config
        args, call_kwargs = self._call_args(input, config, kwargs)
        if not self.trace:
            result = self.func(*args, **call_kwargs)
        else:
            manager = get_callback_manager_for_config(config, self.tags)
            run = manager.on_chain_start(
                None,
                input,
                name=config.get("run_name") or self.get_name(),
                run_id=cast(dict[str, Any], config).pop("run_id", None),
            )
            try:
                child = patch_config(config, callbacks=run.get_child())
                with set_config_context(child) as context:
                    result = context.run(self.func, *args, **call_kwargs)
            except BaseException as e:
                run.on_chain_error(e)
                raise
            run.on_chain_end(result)
        if self.recurse and isinstance(result, Runnable):
            return result.invoke(input, config)
        return result

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Await ``afunc`` (see the class); without ``afunc``, `invoke`."""
        if self.afunc is None:
            return self.invoke(input, config, **kwargs)
        config = ensure_config() if config is None else config
        args, call_kwargs = self._call_args(input, config, kwargs)
        if not self.trace:
            result = await self.afunc(*args, **call_kwargs)
        else:
            manager = get_async_callback_manager_for_config(config, self.tags)
            run = await manager.on_chain_start(
                None,
                input,
                name=config.get("run_name") or self.name,
                run_id=cast(dict[str, Any], config).pop("run_id", None),
            )
            try:
                child = patch_config(config, callbacks=run.get_child())
                with set_config_context(child) as context:
                    coro = cast(Any, self.afunc(*args, **call_kwargs))
                    result = await asyncio.create_task(coro, context=context)
            except BaseException as e:
                await run.on_chain_error(e)
                raise
            await run.on_chain_end(result)
        if self.recurse and isinstance(result, Runnable):
            return await result.ainvoke(input, config)
        return result
