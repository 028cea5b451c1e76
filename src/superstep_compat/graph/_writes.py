"""How a node's return value becomes channel writes and control (gotos).

A dict writes its keys; a pydantic model its non-None fields; a dataclass all its fields; a
`Command` its ``update`` and ``goto``; a list containing Commands each item in order;
``None`` nothing. Keys that are not channels are dropped (LangGraph logs and ignores them).
Anything else raises LangGraph's `InvalidUpdateError` ("Expected dict, got ...").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from superstep_compat._internal._constants import ROOT_KEY
from superstep_compat.errors import (
    ErrorCode,
    InvalidUpdateError,
    ParentCommand,
    create_error_message,
)
from superstep_compat.types import Command, Send, _object_fields, update_as_tuples

__all__ = ["NodeWrites", "invalid_return_error", "node_writes"]


@dataclass
class NodeWrites:
    """Writes and control of one node return. ``dropped`` lists keys written that are not
    channels (to log: "wrote to unknown channel <key>, ignoring it")."""

    writes: list[tuple[str, Any]] = field(default_factory=list)
    goto: list[str | Send] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def invalid_return_error(value: Any) -> InvalidUpdateError:
    """LangGraph's error for a node return value that is not a dict (or model)."""
    return InvalidUpdateError(
        create_error_message(
            message=f"Expected dict, got {value}",
            error_code=ErrorCode.INVALID_GRAPH_NODE_RETURN_VALUE,
        )
    )


def _goto_list(goto: Any) -> list[str | Send]:
    if isinstance(goto, (Send, str)):
        return [goto]
    return list(goto)


def is_root_state(channels: Collection[str]) -> bool:
    """Whether ``channels`` are a root state's: the one channel ``__root__`` (a state with
    ``__root__`` beside other keys is a dict state, as in LangGraph)."""
    return len(channels) == 1 and ROOT_KEY in channels


def _pairs(value: Any, channels: Collection[str]) -> list[tuple[str, Any]]:
    if is_root_state(channels):
        return [(ROOT_KEY, value)]
    if isinstance(value, dict):
        return list(value.items())
    fields = _object_fields(value)
    if fields is not None and not isinstance(value, type):
        return fields
    raise invalid_return_error(value)


def node_writes(value: Any, channels: Collection[str]) -> NodeWrites:
    """Map a node's return ``value`` to writes on ``channels`` (the graph's channel keys).

    Raises `ParentCommand` for ``Command(graph=Command.PARENT)``, as LangGraph does, so the
    graph that contains the subgraph applies it.
    """
    out = NodeWrites()
    if value is None:
        return out
    # the usual return: a dict (`is_root_state` inline: this runs per task)
    if type(value) is dict and not (len(channels) == 1 and ROOT_KEY in channels):
        writes, dropped = out.writes, out.dropped
        for key, val in value.items():
            if key in channels:
                writes.append((key, val))
            else:
                dropped.append(key)
        return out
    items: Sequence[Any]
    if isinstance(value, Command):
        items = [value]
    elif isinstance(value, (list, tuple)) and any(isinstance(v, Command) for v in value):
        items = value
    else:
        items = [value]
    for item in items:
        if isinstance(item, Command):
            if item.graph == Command.PARENT:
                raise ParentCommand(item)
            pairs = update_as_tuples(item.update)
            out.goto.extend(_goto_list(item.goto))
        elif item is None:
            continue
        else:
            pairs = _pairs(item, channels)
        for key, val in pairs:
            if key in channels:
                out.writes.append((key, val))
            else:
                out.dropped.append(key)
    return out


def is_dataclass_instance(value: Any) -> bool:
    """Whether ``value`` is a dataclass instance (not the class)."""
    return dataclasses.is_dataclass(value) and not isinstance(value, type)
