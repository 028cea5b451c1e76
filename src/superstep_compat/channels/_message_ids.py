"""Stable ids for the messages written to a `DeltaChannel` (LangGraph 1.2's
``ensure_message_ids``, applied by the channel to each step's writes before its reducer).

A delta reducer need not make up ids (LangGraph's ``_messages_delta_reducer`` and
deepagents' own do not), so without this a message written without one stays without one
and nothing can replace or remove it by id. As in LangGraph: under a reducer marked with
`mark_message_reducer` every message-like (a message, a message dict, a string, a
``(role, content)`` pair; alone, in a list or in an `Overwrite`) becomes a message with an
id; under any other reducer only message objects get ids (set on the object) and a message
dict gets an ``"id"`` key (a new dict), in a list converted to a message, so that a dict that
cannot be one raises here. An empty id counts as missing only for converted values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any
from uuid import uuid4

from langchain_core.messages import BaseMessage, convert_to_messages

from superstep_compat.channels.base import MISSING
from superstep_compat.channels.binop import _overwrite_value

__all__ = ["mark_message_reducer", "with_message_ids"]

_MESSAGE_ROLES = frozenset({"user", "human", "assistant", "ai", "tool", "system", "function"})
_MESSAGE_TYPES = frozenset({"human", "ai", "tool", "system", "function", "remove"})
_MARK = "__superstep_message_reducer__"


def mark_message_reducer(reducer: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``reducer`` as one that coerces every message-like (the full id treatment)."""
    setattr(reducer, _MARK, True)
    return reducer


def with_message_ids(reducer: Callable[..., Any], writes: Sequence[Any]) -> list[Any]:
    """``writes`` (one step's values for one channel) with ids given to their messages."""
    full = getattr(reducer, _MARK, False)
    return [_full(value) if full else _objects(value) for value in writes]


def _is_message_dict(item: Any) -> bool:
    return isinstance(item, dict) and (
        item.get("role") in _MESSAGE_ROLES or item.get("type") in _MESSAGE_TYPES
    )


def _stamp(item: Any) -> None:
    if isinstance(item, BaseMessage) and item.id is None:
        item.id = str(uuid4())


def _message(item: Any, *, strict: bool = False) -> Any:
    if isinstance(item, BaseMessage):
        _stamp(item)
        return item
    try:
        (message,) = convert_to_messages([item])
    except Exception:
        if strict:
            raise
        return item  # left for the reducer to reject, as before
    if not message.id:
        message.id = str(uuid4())
    return message


def _mapped(items: list[Any] | tuple[Any, ...], fn: Callable[[Any], Any]) -> Any:
    out = [fn(item) for item in items]
    if all(new is old for new, old in zip(out, items, strict=True)):
        return items
    return out if isinstance(items, list) else tuple(out)


def _full(value: Any) -> Any:
    inner = _overwrite_value(value)
    if inner is MISSING:
        if isinstance(value, list):
            return _mapped(value, lambda item: _message(item, strict=_is_message_dict(item)))
        return _message(value)
    if isinstance(inner, (list, tuple)):
        items = _mapped(inner, _message)
        if items is not inner:
            from superstep_compat.types import Overwrite

            return Overwrite(items)
    return value


def _list_item(item: Any) -> Any:
    if _is_message_dict(item):
        return _message(item, strict=True)
    _stamp(item)
    return item


def _objects(value: Any) -> Any:
    inner = _overwrite_value(value)
    if inner is not MISSING:
        if isinstance(inner, (list, tuple)):
            for item in inner:
                _stamp(item)
        return value
    if isinstance(value, list):
        return _mapped(value, _list_item)
    if _is_message_dict(value) and not value.get("id"):
        return {**value, "id": str(uuid4())}
    _stamp(value)
    return value
