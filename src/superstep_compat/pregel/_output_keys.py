"""The channels a run's ``values`` and ``updates`` chunks show (LangGraph's ``output_keys``):
a call's own (``stream(..., output_keys=...)``), else an ``invoke``'s graph output channels
(so a subgraph run inside a node, invoked, streams only its output schema's keys), else
every state channel.

One key (a ``str``) shows bare values; a sequence shows dicts of those keys with a value. A
step shows a ``values`` chunk only when it wrote one of the keys; a task's ``updates`` chunk
holds only its writes to them (None when it wrote none).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["OutputKeys", "output_keys", "read_keys", "shows", "update_of"]

OutputKeys = str | tuple[str, ...]


def output_keys(keys: str | Sequence[str], channels: Sequence[str]) -> OutputKeys:
    """``keys`` checked against the graph's ``channels`` (a list becomes a tuple).

    Raises ValueError (LangGraph's message) naming the first key that is no channel."""
    names = (keys,) if isinstance(keys, str) else tuple(keys)
    for name in names:
        if name not in channels:
            raise ValueError(f"Key {name} not in channels")
    return keys if isinstance(keys, str) else names


def shows(keys: OutputKeys, written: Sequence[str] | frozenset[str]) -> bool:
    """Whether a step that wrote the channels ``written`` shows a ``values`` chunk."""
    if isinstance(keys, str):
        return keys in written
    return any(k in keys for k in written)


def read_keys(values: Mapping[str, Any], keys: OutputKeys) -> Any:
    """What ``keys`` show of the state ``values``: one channel's value (None when empty), or
    a dict of those with a value."""
    if isinstance(keys, str):
        return values.get(keys)
    return {k: values[k] for k in keys if k in values}


def update_of(keys: OutputKeys, writes: Sequence[tuple[str, Any]]) -> Any:
    """A task's ``updates`` chunk value: what it wrote to the one key (a list when it wrote
    it several times), or a dict of its writes to the keys (a list of one-key dicts when it
    wrote one of them twice); None when it wrote none of them."""
    found: list[Any]
    if isinstance(keys, str):
        found = [value for key, value in writes if key == keys]
    else:
        shown = [(key, value) for key, value in writes if key in keys]
        if len({key for key, _ in shown}) < len(shown):
            found = [{key: value} for key, value in shown]
        else:
            found = [dict(shown)] if shown else []
    if not found:
        return None
    return found[0] if len(found) == 1 else found
