"""Merging run configs the way LangGraph merges a graph's bound config (``with_config``)
with the config of a call.

Later configs win key by key, except: ``tags`` concatenate, ``configurable`` and
``metadata`` merge one level deep (in metadata ``lc_versions``, where LangChain packages
each add their version, one level deeper: `merge_metadata`), ``callbacks`` combine. Empty
values never override.
The result always has a ``configurable`` dict.
Langchain's own `merge_configs` differs (it sorts and de-duplicates tags), so the façade
keeps its own. Must never import the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.runnables.config import merge_configs as _lc_merge_configs

__all__ = ["merge_configs", "merge_metadata"]

_VERSIONS = "lc_versions"


def _copied(value: Any) -> Any:
    return dict(value) if isinstance(value, Mapping) else value


def merge_metadata(base: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> dict[str, Any]:
    """``new`` over ``base`` (None: empty), later keys winning, as LangGraph merges run
    metadata: ``lc_versions`` mappings on both sides merge (package -> version, later
    wins); every mapping value is copied one level, so the result never shares a dict the
    caller may change with either input (deeper values stay shared)."""
    merged = {key: _copied(value) for key, value in (base or {}).items()}
    for key, value in (new or {}).items():
        current = merged.get(key)
        if key == _VERSIONS and isinstance(current, Mapping) and isinstance(value, Mapping):
            merged[key] = {**current, **value}
        else:
            merged[key] = _copied(value)
    return merged


def _merge_callbacks(base: Any, new: Any) -> Any:
    """``new`` callbacks added to ``base`` (each a list of handlers, a callback manager or
    None), in langchain's way: two lists concatenate; a manager on either side gives a
    manager holding both sides' handlers; None when both are None. (Only the callbacks key
    is handed to langchain's merge, so its tag handling never applies.)"""
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
            elif key == "metadata":
                out[key] = merge_metadata(current, value)
            elif key == "configurable" and current:
                out[key] = {**current, **value}
            elif key == "configurable":
                out[key] = dict(value)
            elif key == "callbacks" and current is not None:
                out[key] = _merge_callbacks(current, value)
            else:
                out[key] = value
    out.setdefault("configurable", {})
    return out
