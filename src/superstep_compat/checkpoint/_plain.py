"""State as LangGraph's serializer gives it back: a tuple is a list after a checkpoint round
trip (msgpack has arrays only). The encoding savers get this from the codec
(`Codec.with_tuples_as_lists`); `InMemorySaver`, which keeps records as objects, from
`lists_for_tuples`."""

from __future__ import annotations

from typing import Any

__all__ = ["lists_for_tuples"]


def lists_for_tuples(value: Any) -> Any:
    """``value`` with every tuple (inside lists, tuples and dict values) as a list; the same
    object when it holds no tuple. Dict keys, sets and other objects are left as they are."""
    t = type(value)
    if t is tuple:
        return [lists_for_tuples(v) for v in value]
    if t is list:
        out: list[Any] | None = None
        for i, item in enumerate(value):
            new = lists_for_tuples(item)
            if new is not item and out is None:
                out = list(value[:i])
            if out is not None:
                out.append(new)
        return value if out is None else out
    if t is dict:
        changed: dict[Any, Any] | None = None
        for key, item in value.items():
            new = lists_for_tuples(item)
            if new is not item:
                if changed is None:
                    changed = dict(value)
                changed[key] = new
        return value if changed is None else changed
    return value
