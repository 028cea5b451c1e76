"""A compiled graph's ``channels`` as LangGraph shows them.

LangGraph's `Pregel.channels` maps every channel its loop reads and writes: the state keys,
the managed values (their manager classes), and the channels it drives the graph with. The
façade drives the graph with the engine's edges, joins and spawns instead, so those channels
exist only in this mapping, built once at compile time for programs that read the attribute
(libraries list it to find a graph's keys, tests compare it). The façade never reads it
back; its own state channels are ``spec.channels``.

The keys and their order, as LangGraph 1.2 builds them:

- a `StateGraph`: its state channels, its managed values, ``__start__`` (an
  ``EphemeralValue`` of the input schema), ``__pregel_tasks`` (a ``Topic`` of `Send`,
  not accumulating), then per node ``branch:to:<node>`` (an ``EphemeralValue(Any,
  guard=False)``, a ``LastValueAfterFinish(Any)`` for a deferred node), then per waiting edge
  ``join:<a>+<b>:<node>`` (a ``NamedBarrierValue`` of ``str`` over its sources; the
  after-finish one for a deferred node);
- a low-level `Pregel`: the channels it was given, plus ``__pregel_tasks``;
- an ``@entrypoint``: ``__start__``, ``__end__``, ``__previous__`` and ``__pregel_tasks``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from superstep_compat._internal._constants import END, PREVIOUS, START, TASKS
from superstep_compat.channels.base import BaseChannel
from superstep_compat.channels.ephemeral_value import EphemeralValue
from superstep_compat.channels.last_value import LastValue, LastValueAfterFinish
from superstep_compat.channels.named_barrier_value import (
    NamedBarrierValue,
    NamedBarrierValueAfterFinish,
)
from superstep_compat.channels.topic import Topic
from superstep_compat.graph._spec import GraphSpec
from superstep_compat.types import Send

__all__ = ["entrypoint_channels", "lowlevel_channels", "state_graph_channels"]


def _tasks() -> Topic:
    return Topic(Send, accumulate=False)


def state_graph_channels(spec: GraphSpec) -> dict[str, Any]:
    """A compiled `StateGraph`'s channels (see the module docstring for keys and order)."""
    channels: dict[str, Any] = {
        **spec.channels,
        **spec.managed,
        START: EphemeralValue(spec.input_schema),
        TASKS: _tasks(),
    }
    for name, node in spec.nodes.items():
        channels[f"branch:to:{name}"] = (
            LastValueAfterFinish(Any) if node.defer else EphemeralValue(Any, guard=False)
        )
    # LangGraph iterates its set of waiting edges; sorted here, so the order is stable
    for sources, target in sorted(spec.waiting_edges):
        if target == END:
            continue
        barrier = (
            NamedBarrierValueAfterFinish
            if target in spec.nodes and spec.nodes[target].defer
            else NamedBarrierValue
        )
        channels[f"join:{'+'.join(sources)}:{target}"] = barrier(str, set(sources))
    return channels


def lowlevel_channels(given: Mapping[str, BaseChannel[Any, Any]]) -> dict[str, Any]:
    """A low-level `Pregel`'s channels: those given, and LangGraph's ``__pregel_tasks``."""
    return {**given, TASKS: _tasks()}


def entrypoint_channels(input_type: Any, value_type: Any, save_type: Any) -> dict[str, Any]:
    """An ``@entrypoint``'s channels: its input (typed as the function's first parameter),
    its return value and the value the next call on the thread receives as ``previous``
    (typed as its return annotation, or the two of ``entrypoint.final[value, save]``), and
    LangGraph's ``__pregel_tasks``."""
    return {
        START: EphemeralValue(input_type),
        END: LastValue(value_type, END),
        PREVIOUS: LastValue(save_type, PREVIOUS),
        TASKS: _tasks(),
    }
