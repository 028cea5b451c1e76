"""Merging run configs the way LangGraph merges a graph's bound config (``with_config``)
with the config of a call.

Later configs win key by key, except: ``tags`` concatenate, ``configurable`` and
``metadata`` merge one level deep, ``callbacks`` combine. Empty values never override.
The result always has a ``configurable`` dict.
Langchain's own `merge_configs` differs (it sorts and de-duplicates tags), so the façade
keeps its own. Must never import the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.runnables.config import merge_configs as _lc_merge_configs

__all__ = ["merge_configs"]


def _merge_callbacks(base: Any, new: Any) -> Any:
    # Lists and callback managers combine in langchain's way; only the callbacks key is
    # delegated, so its tag handling never applies.
    merged = _lc_merge_configs({"callbacks": base}, {"callbacks": new})
    return merged.get("callbacks")


def merge_configs(*configs: Mapping[str, Any] | None) -> dict[str, Any]:
    """One config from ``configs`` (``None`` entries skipped), later ones winning."""
    out: dict[str, Any] = {}
    for config in configs:
        if not config:
            continue
        for key, value in config.items():
            if not value:
                continue
            current = out.get(key)
            if key == "tags" and current:
                out[key] = [*current, *value]
            elif key in ("configurable", "metadata") and current:
                out[key] = {**current, **value}
            elif key in ("configurable", "metadata"):
                out[key] = dict(value)
            elif key == "callbacks" and current is not None:
                out[key] = _merge_callbacks(current, value)
            else:
                out[key] = value
    out.setdefault("configurable", {})
    return out
