"""The base of the prebuilt nodes: a langchain-core `Runnable` that finds the run it is in.

A graph node that is a `Runnable` is called as ``invoke(input, config)``; the prebuilt nodes
also need the run's `Runtime` (store, context, stream writer). They find it through the
façade's public ``superstep_compat.runtime.get_runtime()``, or under LangGraph's config key
for it. Outside a run that is an error, as it is in LangGraph.

Must never import: the engine (`superstep_core`) or the compiler.
"""

from __future__ import annotations

import importlib
from abc import abstractmethod
from typing import Any, ClassVar

from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import (
    ensure_config,
    run_in_executor,
    var_child_runnable_config,
)

from superstep_compat._internal._runnable import RunnableCallable

__all__ = ["PrebuiltNode", "RunRuntime", "find_runtime"]

_RUNTIME_CONFIG_KEY = "__pregel_runtime"
"""Where LangGraph's executor puts the `Runtime` in ``config["configurable"]``."""


class RunRuntime:
    """The parts of the run's `Runtime` the prebuilt nodes read, with safe defaults when the
    runtime object lacks one."""

    __slots__ = ("context", "execution_info", "raw", "server_info", "store", "stream_writer")

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.context: Any = getattr(raw, "context", None)
        self.store: Any = getattr(raw, "store", None)
        writer = getattr(raw, "stream_writer", None)
        self.stream_writer: Any = writer if callable(writer) else _no_writer
        self.execution_info: Any = getattr(raw, "execution_info", None)
        self.server_info: Any = getattr(raw, "server_info", None)


def _no_writer(_chunk: Any) -> None:
    return None


def find_runtime(config: RunnableConfig) -> Any | None:
    """The `Runtime` of the run ``config`` belongs to, or None outside a run."""
    runtime = config.get("configurable", {}).get(_RUNTIME_CONFIG_KEY)
    if runtime is not None:
        return runtime
    try:
        module = importlib.import_module("superstep_compat.runtime")
    except ImportError:
        return None
    get_runtime = getattr(module, "get_runtime", None)
    if get_runtime is None:
        return None
    try:
        return get_runtime()
    except (RuntimeError, LookupError, KeyError):
        return None


class PrebuiltNode(Runnable[Any, Any]):
    """A node that runs ``_call(input, config, runtime)`` (or ``_acall``) inside a run.

    With ``trace`` each call is a child chain run named ``name`` (LangGraph's prebuilt
    nodes that are traced `RunnableCallable`s: ``call_model``, ``generate_structured_response``
    show as a ``seq:step:1`` run under their task's); the work is given the caller's config
    (what it calls is a sibling of that run, as in LangGraph), the run's config is ambient."""

    _reads_config: ClassVar[bool] = False
    """Whether the node only reads its config and hands copies of it on (`ToolNode`: one
    `get_config_list` copy per tool call), so the run's own config needs no copy first."""

    def __init__(self, name: str, tags: list[str] | None = None, *, trace: bool = False) -> None:
        self.name = name
        self.tags = tags
        self._traced = RunnableCallable(self._run, self._arun, name=name) if trace else None

    def _run(self, input: Any, config: RunnableConfig, *, rt: RunRuntime) -> Any:
        return self._call(input, config, rt)

    async def _arun(self, input: Any, config: RunnableConfig, *, rt: RunRuntime) -> Any:
        return await self._acall(input, config, rt)

    @property
    def func(self) -> Any:
        """The node's sync call, ``func(input, config)`` (LangGraph's prebuilt nodes are
        `RunnableCallable`s whose ``func`` is their function)."""
        return self.invoke

    @property
    def afunc(self) -> Any:
        """The node's async call, ``afunc(input, config)``."""
        return self.ainvoke

    def _prepare(self, config: RunnableConfig | None) -> tuple[RunnableConfig, RunRuntime]:
        traced = self._traced is not None
        # A task's own config (the one the run made current for the node) is complete
        # already: `ensure_config` of it is an equal copy, and a node that only reads it
        # spares that copy (every tool round's). Anything else is completed as before.
        if (
            config is None
            or not self._reads_config
            or traced
            or config is not var_child_runnable_config.get()
        ):
            config = ensure_config(config)
        if self.tags and traced:
            # (an untraced node's tags are its own attribute only, as LangGraph's untraced
            # `RunnableCallable`s keep them: a ToolNode's tools never see them)
            config["tags"] = [*config.get("tags", []), *self.tags]
        raw = find_runtime(config)
        if raw is None:
            raise ValueError(f"Missing required config key 'N/A' for '{self.name}'.")
        return config, RunRuntime(raw)

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Run the node on ``input``; only valid inside a graph run."""
        config, runtime = self._prepare(config)
        if self._traced is not None:
            return self._traced.invoke(input, config, rt=runtime)
        return self._call(input, config, runtime)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Async `invoke`."""
        config, runtime = self._prepare(config)
        if self._traced is not None:
            return await self._traced.ainvoke(input, config, rt=runtime)
        return await self._acall(input, config, runtime)

    @abstractmethod
    def _call(self, input: Any, config: RunnableConfig, runtime: RunRuntime) -> Any:
        """The node's work."""

    async def _acall(self, input: Any, config: RunnableConfig, runtime: RunRuntime) -> Any:
        return await run_in_executor(config, self._call, input, config, runtime)

    def __repr__(self) -> str:
        return f"{type(self).__name__}<{self.name}>"
