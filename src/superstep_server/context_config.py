"""An assistant's (a run's) ``context`` and its ``config.configurable``, kept as the reference
keeps them: one or the other may be given, not both (400, the reference's words); an
assistant given one has the other set to the same mapping, so a graph reading either sees
it. ``context`` is LangGraph's newer name for what ``configurable`` carried.

A run's context is built as the reference builds it: the request's ``context``, else a copy of
its ``config.configurable``; over the assistant's context (`run_context`); then only the
keys the graph's context schema declares, when it declares some (`fitted_context`), so that
``configurable`` keys such as a ``thread_id`` never reach a context dataclass."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from superstep_server.errors import ApiError

__all__ = [
    "BOTH",
    "fitted_context",
    "mirrored",
    "mirrored_patch",
    "refuse_both",
    "requested_context",
    "run_context",
]

BOTH = (
    "Cannot specify both configurable and context. Prefer setting context alone. Context was "
    "introduced in LangGraph 0.6.0 and is the long term planned replacement for configurable."
)


def refuse_both(config: Mapping[str, Any] | None, context: Mapping[str, Any] | None) -> None:
    """Raise `ApiError` 400 when both ``config.configurable`` and ``context`` are non-empty."""
    if (config or {}).get("configurable") and context:
        raise ApiError(400, BOTH)


def mirrored(
    config: Mapping[str, Any] | None, context: Mapping[str, Any] | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(config, context)`` with the one given copied into the other (`refuse_both` first):
    ``{"configurable": {"k": 1}}, {}`` -> ``{"configurable": {"k": 1}}, {"k": 1}``."""
    refuse_both(config, context)
    config_out = dict(config or {})
    configurable = config_out.get("configurable")
    if configurable:
        return config_out, dict(configurable)
    if context:
        config_out["configurable"] = dict(context)
    return config_out, dict(context or {})


def mirrored_patch(
    config: Mapping[str, Any] | None, context: Mapping[str, Any] | None
) -> dict[str, Any]:
    """What a patch giving ``config`` and/or ``context`` changes of the two (`refuse_both`
    first): a ``configurable`` sets the context too, a context sets ``configurable`` too; what
    it leaves out is not in the answer (the assistant keeps it)."""
    refuse_both(config, context)
    configurable = (config or {}).get("configurable")
    if configurable:
        return {"config": dict(config or {}), "context": dict(configurable)}
    if context:
        return {"config": {**(config or {}), "configurable": dict(context)}, "context": context}
    return {}


def requested_context(
    config: Mapping[str, Any] | None, context: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A run request's context: its ``context``, else a copy of ``config.configurable``
    (the keys the caller gave, before the server adds its own)."""
    if context:
        return dict(context)
    return dict((config or {}).get("configurable") or {})


def run_context(
    assistant_context: Mapping[str, Any] | None, requested: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The context a run's graph gets: the assistant's, the request's keys over it."""
    return {**(assistant_context or {}), **(requested or {})}


def fitted_context(graph: Any, context: dict[str, Any]) -> dict[str, Any]:
    """``context`` with only the keys ``graph``'s context schema lists in its JSON schema's
    ``properties`` (all of them when the graph has no schema, or one without properties,
    or one that cannot be described)."""
    describe = getattr(graph, "get_context_jsonschema", None)
    if not context or not callable(describe):
        return context
    try:
        schema = describe()
    except Exception:  # a schema the JSON schema cannot describe: the graph coerces it
        return context
    properties = (schema or {}).get("properties") if isinstance(schema, dict) else None
    if not properties:
        return context
    return {key: value for key, value in context.items() if key in properties}
