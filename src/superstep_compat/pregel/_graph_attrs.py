"""LangGraph's plain attributes of a compiled graph that the façade's runs do not read, kept
so programs (and libraries) reading them see LangGraph's values: ``retry_policy``,
``cache_policy``, ``stream_eager`` and ``trigger_to_nodes``; and its breakpoint attributes
as given (`breakpoints` is the form runs read).

Source followed: LangGraph 1.2's ``Pregel.__init__``/``validate`` (``langgraph.pregel.main``),
``StateGraph.compile`` and ``entrypoint.__call__``, probed for values and types."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from superstep_compat._internal._constants import START
from superstep_compat.types import RetryPolicy

__all__ = [
    "breakpoints",
    "graph_attributes",
    "lowlevel_triggers",
    "retry_tuple",
    "state_graph_triggers",
    "trigger_index",
]


def retry_tuple(policy: Any) -> Any:
    """A graph's ``retry_policy`` as LangGraph keeps it: one `RetryPolicy` as a 1-tuple, a
    sequence as given, nothing as ``()``."""
    if isinstance(policy, RetryPolicy):
        return (policy,)
    return policy or ()


def graph_attributes(
    lowlevel: bool, options: Mapping[str, Any], before: Any, after: Any
) -> tuple[Any, Any, Any, Any, bool]:
    """``(interrupt_before_nodes, interrupt_after_nodes, retry_policy, cache_policy,
    stream_eager)`` of a compiled graph: the breakpoints as given (none: a StateGraph's
    ``[]``, a low-level Pregel's ``()``); the graph-wide policies and eager streaming of a
    low-level Pregel's ``options`` (a StateGraph has none: its nodes carry their policies)."""
    none: Any = () if lowlevel else []
    return (
        before or none,
        after or none,
        retry_tuple(options.get("retry_policy")),
        options.get("cache_policy"),
        bool(options.get("stream_eager", False)),
    )


def lowlevel_triggers(nodes: Mapping[str, Any]) -> dict[str, list[str]]:
    """LangGraph's ``trigger_to_nodes`` of a low-level Pregel: each channel a node
    subscribes to, with the nodes it triggers in node order."""
    out: dict[str, list[str]] = {}
    for name, node in nodes.items():
        for trigger in node.triggers:
            out.setdefault(trigger, []).append(name)
    return out


def breakpoints(value: Any) -> frozenset[str]:
    """The node names of a graph's ``interrupt_before_nodes``/``interrupt_after_nodes`` (a
    list, a tuple, ``"*"`` or None) as the set a run checks; ``"*"`` stays ``{"*"}``."""
    if value is None:
        return frozenset()
    if value == "*":
        return frozenset({"*"})
    return frozenset(value)


def state_graph_triggers(nodes: Sequence[str], channels: Mapping[str, Any]) -> dict[str, list[str]]:
    """LangGraph's ``trigger_to_nodes`` of a compiled `StateGraph`: START is triggered by
    its own channel, every other node by its ``branch:to:<node>`` channel and then by the
    ``join:<a>+<b>:<node>`` channels of the edges waiting for it, keyed in node order."""
    out: dict[str, list[str]] = {START: [START]}
    joins = [c for c in channels if c.startswith("join:")]
    for name in nodes:
        if name == START:
            continue
        out[f"branch:to:{name}"] = [name]
        for join in joins:
            if join.rsplit(":", 1)[1] == name:
                out[join] = [name]
    return out


def trigger_index(
    lowlevel: Any, nodes: Sequence[str], channels: Mapping[str, Any]
) -> dict[str, list[str]]:
    """LangGraph's ``trigger_to_nodes`` of a compiled graph: a low-level Pregel's (its
    definition ``lowlevel``) from its nodes' triggers, else a StateGraph's from ``nodes``
    and its LangGraph ``channels``."""
    if lowlevel is not None:
        return lowlevel_triggers(lowlevel.nodes)
    return state_graph_triggers(nodes, channels)
