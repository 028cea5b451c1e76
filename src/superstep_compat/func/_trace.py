"""Callback runs of `@task` calls, as LangGraph traces them.

A task call made while callbacks are configured (its caller's config, the ambient
``var_child_runnable_config``) is a chain run of its own, named after the task, a child of
the caller's run (the entrypoint's function: tagged ``seq:step:1``), with the task's
arguments by parameter name as inputs and LangGraph's push-task metadata
(``langgraph_node`` the task, ``langgraph_triggers`` ``("__pregel_push",)``, its path). Code
inside the task runs with the run's child config as the ambient one, so a model it calls
is traced under the task.

Imports langchain-core only.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Mapping
from contextvars import Token
from typing import Any

from langchain_core.callbacks.manager import CallbackManagerForChainRun
from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tracers._streaming import _StreamingCallbackHandler

from superstep_compat._internal._config import get_callback_manager_for_config

__all__ = ["TaskCallRun"]

PUSH = "__pregel_push"


def _inputs(func: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Any:
    try:
        return dict(inspect.signature(func).bind(*args, **kwargs).arguments)
    except (TypeError, ValueError):  # the call itself will say what is wrong
        return {"args": args, "kwargs": dict(kwargs)}


class TaskCallRun:
    """The callback run of one task call (`open` returns None without callbacks)."""

    __slots__ = ("_run", "_token")

    def __init__(self, run: CallbackManagerForChainRun, token: Token[Any]) -> None:
        self._run = run
        self._token = token

    @classmethod
    def open(
        cls,
        name: str,
        func: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: Mapping[str, Any],
        *,
        index: int,
        ns: Callable[[], str],
    ) -> TaskCallRun | None:
        """Start the run of call number ``index`` of the caller, the call's namespace (``ns()``:
        ``<caller's>|<task>:<call's task id>``, LangGraph's push task's) in its
        metadata; sets the ambient config (in the caller's context copy the call runs in) to
        the run's child config."""
        config = var_child_runnable_config.get()
        if not config or not config.get("callbacks"):
            return None
        caller = dict(config.get("metadata") or {})
        call_ns = ns()  # a task id's hash: made only for a traced call
        node = caller.get("langgraph_node")
        path = (PUSH, tuple(caller.get("langgraph_path") or (node,)), index, True)
        metadata = {
            **caller,
            "langgraph_node": name,
            "langgraph_triggers": (PUSH,),
            "langgraph_path": path,
            "langgraph_checkpoint_ns": call_ns,
            # what langchain-core would copy from the caller's configurable otherwise
            "checkpoint_ns": call_ns,
        }
        manager = get_callback_manager_for_config({**config, "metadata": metadata})
        for handler in manager.handlers:
            # the caller's ``messages`` handler streams the call's models as its own
            adopt = getattr(handler, "adopt_namespace", None)
            if adopt is not None:
                adopt(caller.get("langgraph_checkpoint_ns"), call_ns)
        run = manager.on_chain_start(None, _inputs(func, args, kwargs), name=name)
        child = {**config, "metadata": metadata, "callbacks": run.get_child()}
        return cls(run, var_child_runnable_config.set(child))  # type: ignore[arg-type]

    def end(self, output: Any) -> None:
        """End the run with the task's result (streamed first to `astream_events`)."""
        self._restore()
        for handler in self._run.handlers:
            if isinstance(handler, _StreamingCallbackHandler):
                for _ in handler.tap_output_iter(self._run.run_id, iter((output,))):
                    pass
        self._run.on_chain_end(output)

    def error(self, error: BaseException) -> None:
        self._restore()
        self._run.on_chain_error(error)

    def _restore(self) -> None:
        # ended in another context: that context is gone anyway
        with contextlib.suppress(ValueError):
            var_child_runnable_config.reset(self._token)
