"""Run-config helpers under LangGraph's private names (`langgraph._internal._config`), used
by libraries built on LangGraph (langgraph-supervisor, the LangGraph server).

`ensure_config` fills a config with every key LangGraph's runs expect; `patch_config` and
`patch_configurable` return patched copies; `merge_configs` is the façade's merge (later
configs win key by key; tags concatenate; configurable and metadata merge one level deep).
Must never import the engine.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar, cast

from langchain_core.callbacks import AsyncCallbackManager, CallbackManager, Callbacks
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import CONFIG_KEYS, COPIABLE_KEYS, var_child_runnable_config

from superstep_compat._internal._constants import CONF
from superstep_compat._internal._merge import _merge_callbacks, merge_metadata
from superstep_compat._internal._merge import merge_configs as _merge_configs

__all__ = [
    "DEFAULT_RECURSION_LIMIT",
    "DefaultRecursionLimit",
    "_is_not_empty",
    "_merge_callbacks",
    "ensure_config",
    "get_async_callback_manager_for_config",
    "get_callback_manager_for_config",
    "merge_configs",
    "patch_config",
    "patch_configurable",
    "recast_checkpoint_ns",
]


class DefaultRecursionLimit(int):
    """A recursion limit nobody gave: the default filled in. LangGraph marks it with a type
    of its own so that a task's config (`RunBase`) leaves it out, as LangGraph's
    ``merge_configs`` does, while one the caller set (langchain's 25 from ``batch``
    included) is kept."""

    __slots__ = ()


DEFAULT_RECURSION_LIMIT = DefaultRecursionLimit(10007)
"""The step budget `ensure_config` fills in (LangGraph's default, not langchain's 25); the
graph's runs read ``LANGGRAPH_DEFAULT_RECURSION_LIMIT`` themselves."""

# A config that names its own checkpoint (a thread, a namespace, a checkpoint) addresses its
# own lineage: it must not inherit the ambient run's configurable (a graph invoked inside a
# node would otherwise save under its caller's namespace).
_CHECKPOINT_COORDINATES = ("thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint_map")
# Configurable entries copied into metadata so tracers can group runs by them.
_TRACED_CONFIGURABLE = (
    "thread_id",
    "checkpoint_id",
    "checkpoint_ns",
    "task_id",
    "run_id",
    "assistant_id",
    "graph_id",
)


_Manager = TypeVar("_Manager", CallbackManager, AsyncCallbackManager)

# Configurable entries never copied into a tracer's metadata: private ones ("__..."), values
# that are not plain scalars, and keys that look like credentials.
_SECRET_PARTS = ("key", "token", "secret", "password", "auth")


def _tracing_metadata(config: Mapping[str, Any]) -> dict[str, Any] | None:
    """The configurable entries LangSmith tracers record as metadata (see `_SECRET_PARTS`);
    None when there are none."""
    picked = {
        key: value
        for key, value in (config.get(CONF) or {}).items()
        if not key.startswith("__")
        and isinstance(value, (str, int, float, bool))
        and not any(part in key.casefold() for part in _SECRET_PARTS)
    }
    return picked or None


def _manager_for(
    kind: type[_Manager], config: Mapping[str, Any], tags: Sequence[str] | None
) -> _Manager:
    given: Sequence[str] | None = config.get("tags")
    all_tags = None if given is None and tags is None else [*(given or ()), *(tags or ())]
    callbacks = config.get("callbacks")
    if callbacks and isinstance(callbacks, kind):
        # LangGraph adds the config's tags and metadata to the manager it was given
        if all_tags:
            callbacks.add_tags(list(all_tags))
        if metadata := config.get("metadata"):
            callbacks.add_metadata(dict(metadata))
        return callbacks
    return kind.configure(
        inheritable_callbacks=callbacks,
        inheritable_tags=all_tags,
        inheritable_metadata=config.get("metadata"),
        langsmith_inheritable_metadata=_tracing_metadata(config),
    )


def get_callback_manager_for_config(
    config: RunnableConfig, tags: Sequence[str] | None = None
) -> CallbackManager:
    """The callback manager of a run with ``config``, as LangGraph makes it: the config's
    own manager (given the config's tags, ``tags`` after them, and its metadata), else a
    new one with the config's callbacks, tags (then ``tags``) and metadata, whose LangSmith
    tracers also record the configurable's plain, non-private, non-credential entries."""
    return _manager_for(CallbackManager, config, tags)


def get_async_callback_manager_for_config(
    config: RunnableConfig, tags: Sequence[str] | None = None
) -> AsyncCallbackManager:
    """`get_callback_manager_for_config` for async runs (an `AsyncCallbackManager`)."""
    return _manager_for(AsyncCallbackManager, config, tags)


def _is_not_empty(value: Any) -> bool:
    """Whether ``value`` counts as given (LangGraph's rule): a list, tuple or dict when it
    has items; anything else (``""`` and ``0`` too) when it is not None."""
    if isinstance(value, (list, tuple, dict)):
        return bool(value)
    return value is not None


def _given(value: Any) -> bool:
    return value is not None and value != "" and value != [] and value != {}


def merge_configs(*configs: RunnableConfig | None) -> RunnableConfig:
    """One config from ``configs``, later ones winning (see the module docstring)."""
    return cast(RunnableConfig, _merge_configs(*configs))


def patch_configurable(config: RunnableConfig | None, patch: dict[str, Any]) -> RunnableConfig:
    """A copy of ``config`` whose ``configurable`` also holds ``patch`` (``patch`` wins)."""
    if config is None:
        return {CONF: patch}
    return cast(RunnableConfig, {**config, CONF: {**config.get(CONF, {}), **patch}})


def patch_config(
    config: RunnableConfig | None,
    *,
    callbacks: Callbacks = None,
    recursion_limit: int | None = None,
    max_concurrency: int | None = None,
    run_name: str | None = None,
    configurable: dict[str, Any] | None = None,
) -> RunnableConfig:
    """A copy of ``config`` with the given keys replaced (``None``: kept). New callbacks
    drop ``run_name`` and ``run_id``, which named the run of the old callbacks."""
    patched = cast(dict[str, Any], dict(config) if config is not None else {})
    if callbacks is not None:
        patched["callbacks"] = callbacks
        patched.pop("run_name", None)
        patched.pop("run_id", None)
    if recursion_limit is not None:
        patched["recursion_limit"] = recursion_limit
    if max_concurrency is not None:
        patched["max_concurrency"] = max_concurrency
    if run_name is not None:
        patched["run_name"] = run_name
    if configurable is not None:
        patched[CONF] = {**patched.get(CONF, {}), **configurable}
    return cast(RunnableConfig, patched)


def recast_checkpoint_ns(ns: str) -> str:
    """A checkpoint namespace without its task ids: ``"a:1|b:2"`` -> ``"a|b"``."""
    return "|".join(part.split(":")[0] for part in ns.split("|"))


def ensure_config(*configs: RunnableConfig | None) -> RunnableConfig:
    """A config with every key (``tags``, ``metadata``, ``callbacks``, ``recursion_limit``,
    ``configurable``): the ambient run's config, then ``configs`` merged over it.

    As LangGraph: ``configurable`` merges shallowly across configs, but an explicit config
    naming a checkpoint coordinate drops the ambient one; ``metadata`` merges as
    `merge_metadata` does (``lc_versions`` one level deeper); tags concatenate (ambient tags are
    not repeated); keys that are not config keys go into ``configurable``; the thread, checkpoint,
    task, run, assistant and graph ids are copied into ``metadata`` unless already there.
    """
    out: dict[str, Any] = {
        "tags": [],
        "metadata": ChainMap(),  # as LangGraph: a ChainMap until a config brings metadata
        "callbacks": None,
        "recursion_limit": DEFAULT_RECURSION_LIMIT,
        CONF: {},
    }
    inherited_tags: set[str] = set()
    ambient = var_child_runnable_config.get()
    if ambient:
        for key, value in cast(dict[str, Any], ambient).items():
            if _given(value):
                out[key] = value.copy() if key in COPIABLE_KEYS else value
        inherited_tags.update(out["tags"])
    if out[CONF] and any(
        _given((c or {}).get(CONF, {}).get(k)) for c in configs for k in _CHECKPOINT_COORDINATES
    ):
        out[CONF] = {}
    for config in configs:
        if config is None:
            continue
        for key, value in cast(dict[str, Any], config).items():
            if not _given(value):
                continue
            if key not in CONFIG_KEYS:
                out[CONF][key] = value
            elif key == CONF:
                out[CONF] = {**out[CONF], **value}
            elif key == "metadata":
                out["metadata"] = merge_metadata(out["metadata"], value)
            elif key == "tags":
                out["tags"] = [*out["tags"], *(t for t in value if t not in inherited_tags)]
            elif key == "callbacks" and out["callbacks"] is not None:
                out["callbacks"] = _merge_configs({"callbacks": out["callbacks"]}, config)[
                    "callbacks"
                ]
            else:
                out[key] = value
    metadata = out["metadata"]
    for key in _TRACED_CONFIGURABLE:
        value = out[CONF].get(key)
        if value and key not in metadata:
            metadata[key] = value
    return cast(RunnableConfig, out)
