"""`langgraph.utils.config`: the old import path of the config helpers (LangGraph keeps it
for backwards compatibility; langmem still imports from it)."""

from superstep_compat._internal._config import ensure_config, patch_configurable
from superstep_compat.config import get_config, get_store

__all__ = ["ensure_config", "get_config", "get_store", "patch_configurable"]
