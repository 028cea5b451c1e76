"""How LangGraph merges run configs and makes callback managers
(``langgraph._internal._config``): metadata's ``lc_versions`` merges one level deeper (other
mapping values are replaced, and copied so inputs never change); ``_merge_callbacks``
combines lists and managers; ``get_callback_manager_for_config`` (and its async twin) adds
the config's tags, then the given ones, and metadata, and gives LangSmith tracers the
configurable's plain, non-private, non-credential entries."""

from unittest.mock import MagicMock

from langchain_core.callbacks import AsyncCallbackManager, BaseCallbackHandler, CallbackManager
from langchain_core.tracers import LangChainTracer
from langgraph._internal._config import (
    _merge_callbacks,
    ensure_config,
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
    merge_configs,
)


class Named(BaseCallbackHandler):
    def __init__(self, name: str) -> None:
        self.name = name


def _names(callbacks: object) -> object:
    if callbacks is None:
        return None
    if isinstance(callbacks, list):
        return ["list", *(h.name for h in callbacks)]
    return [type(callbacks).__name__, *sorted(h.name for h in callbacks.handlers)]  # type: ignore[attr-defined]


def _merges(merge: object) -> object:
    a_versions = {"langgraph": "1.2", "nested": {"a": 1}}
    a = {"metadata": {"lc_versions": a_versions, "mode": {"x": 1}, "keep": "a"}}
    b = {"metadata": {"lc_versions": {"langchain": "1.1", "nested": {"b": 2}}, "mode": {"y": 2}}}
    c = {"metadata": {"lc_versions": {}}}
    merged = merge(a, b, c)  # type: ignore[operator]
    versions = dict(merged["metadata"]["lc_versions"])
    merged["metadata"]["lc_versions"]["langgraph"] = "changed"
    single = merge({"metadata": {"lc_versions": a_versions}})  # type: ignore[operator]
    replaced = merge(a, {"metadata": {"lc_versions": "plain"}})  # type: ignore[operator]
    return {
        "lc_versions": versions,
        "metadata": {k: v for k, v in merged["metadata"].items() if k != "lc_versions"},
        "inputs_unchanged": a_versions == {"langgraph": "1.2", "nested": {"a": 1}},
        "single_copied": single["metadata"]["lc_versions"] is not a_versions,
        "replaced": replaced["metadata"]["lc_versions"],
    }


def run() -> dict:
    tracer = LangChainTracer(client=MagicMock())
    config = ensure_config(
        {
            "configurable": {
                "thread_id": "t",
                "model": "m",
                "n": 3,
                "__private": "p",
                "api_key": "k",
                "auth_user": "u",
                "nested": {"no": 1},
            },
            "metadata": {"thread_id": "from-metadata", "extra": 1},
            "tags": ["a"],
            "callbacks": [tracer],
        }
    )
    manager = get_callback_manager_for_config(config, tags=["b"])
    tracers = [h for h in manager.handlers if isinstance(h, LangChainTracer)]
    given = CallbackManager(handlers=[Named("x")])
    reused = get_callback_manager_for_config(
        {"callbacks": given, "tags": ["t"], "metadata": {"m": 1}}
    )
    fresh = get_async_callback_manager_for_config({"callbacks": None, "tags": ["a"]}, tags=["b"])
    return {
        "merge_configs": _merges(merge_configs),
        "ensure_config": _merges(ensure_config),
        "merge_callbacks": [
            _names(_merge_callbacks(None, None)),
            _names(_merge_callbacks(None, [Named("a")])),
            _names(_merge_callbacks([Named("a")], [Named("b")])),
            _names(_merge_callbacks([Named("a")], CallbackManager(handlers=[Named("b")]))),
            _names(_merge_callbacks(CallbackManager(handlers=[Named("a")]), [Named("b")])),
        ],
        "tags": manager.inheritable_tags,
        "metadata": manager.metadata,
        "tracing_metadata": [t.tracing_metadata for t in tracers],
        "reused": [reused is given, given.inheritable_tags, given.metadata],
        "fresh_async": [isinstance(fresh, AsyncCallbackManager), fresh.inheritable_tags],
    }
