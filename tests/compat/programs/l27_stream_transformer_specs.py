"""``langgraph.pregel.main._normalize_stream_transformer_factories``, the check a v3 event
stream applies to its transformer specs, used directly as LangGraph's tests use it: a
transformer class or a ``factory(scope)`` callable (a partial too) builds a transformer for a
scope; a pre-built instance or a non-callable is a TypeError naming what was given."""

from functools import partial
from typing import Any

from langgraph.pregel.main import _normalize_stream_transformer_factories
from langgraph.stream.transformers import ValuesTransformer


class Scoped(ValuesTransformer):
    def __init__(self, scope: tuple[str, ...] = (), label: str = "plain") -> None:
        super().__init__(scope)
        self.scope = scope
        self.label = label


def _error(specs: Any) -> list[str]:
    try:
        _normalize_stream_transformer_factories(specs)
    except TypeError as exc:
        return ["TypeError", str(exc)]
    return ["accepted"]


def run() -> dict[str, Any]:
    factories = _normalize_stream_transformer_factories(
        [Scoped, partial(Scoped, label="configured"), lambda scope: Scoped(scope, "lambda")]
    )
    built = [f(("child",)) for f in factories]
    return {
        "built": [[type(b).__name__, list(b.scope), b.label] for b in built],
        "none": _normalize_stream_transformer_factories(None),
        "instance": _error([Scoped()]),
        "not_callable": _error([42]),
    }
