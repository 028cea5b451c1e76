"""`langgraph.config`: `get_config`, `get_store`, `get_stream_writer` inside a running node."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import var_child_runnable_config

__all__ = ["get_config", "get_store", "get_stream_writer"]

_OUTSIDE = "Called get_config outside of a runnable context"


def get_config() -> RunnableConfig:
    """The config of the running node; RuntimeError outside a run."""
    config = var_child_runnable_config.get()
    if config is None:
        raise RuntimeError(_OUTSIDE)
    return config


def get_store() -> Any:
    """The store given to ``compile(store=...)`` (or the entrypoint)."""
    from superstep_compat.runtime import get_runtime

    return get_runtime().store


def get_stream_writer() -> Callable[[Any], None]:
    """A writer for ``stream_mode="custom"``; does nothing when that mode is off."""
    from superstep_compat.runtime import get_runtime

    writer: Callable[[Any], None] = get_runtime().stream_writer
    return writer
