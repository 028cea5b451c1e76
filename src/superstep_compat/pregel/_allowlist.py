"""Which classes a compiled graph's checkpointer may revive under strict msgpack
deserialisation (``LANGGRAPH_STRICT_MSGPACK=true``), and the checkpointer that applies them.

LangGraph (1.2) collects them when a graph is compiled: the state, input, output and context
schemas, each node's and each conditional edge's input schema and the channels' value and
update types for a `StateGraph`; the function's input, return and saved types and the context
schema for an `@entrypoint`. Every saver the graph runs on (its own, or the parent's that a
subgraph inherits) is then ``with_allowlist(...)`` of them. With the flag off both are no-ops.
"""

from __future__ import annotations

import typing
from typing import Any

from superstep_compat._internal import _serde

__all__ = ["allowlisted", "graph_allowlist"]


def graph_allowlist(
    builder: Any, *, entrypoint_types: tuple[Any, ...] = ()
) -> set[tuple[str, ...]] | None:
    """The allowlist of a graph compiled from ``builder`` (a `StateGraph`, or the builder of
    an entrypoint or a low-level `Pregel`, whose schemas are passed as ``entrypoint_types``);
    None when strict deserialisation is off."""
    if not _serde.STRICT_MSGPACK_ENABLED:
        return None
    schemas: list[Any] = [*entrypoint_types]
    for attr in ("state_schema", "input_schema", "output_schema", "context_schema"):
        schemas.append(getattr(builder, attr, None))
    for node in getattr(builder, "nodes", {}).values():
        schemas.append(getattr(node, "input_schema", None))
    for branches in getattr(builder, "branches", {}).values():
        schemas.extend(getattr(branch, "input_schema", None) for branch in branches.values())
    channels = getattr(builder, "channels", None)
    return _serde.build_serde_allowlist(
        schemas=schemas, channels=channels if isinstance(channels, dict) else None
    )


def returned_types(annotation: Any, final: Any) -> tuple[Any, ...]:
    """The value and saved types an entrypoint's return ``annotation`` names: both arguments
    of ``final[value, save]`` (``final`` being `entrypoint.final`), else the annotation."""
    if typing.get_origin(annotation) is final:
        return typing.get_args(annotation)
    return (annotation,)


def allowlisted(graph: Any, saver: Any) -> Any:
    """``saver`` with ``graph``'s allowlist applied (itself when strict deserialisation is
    off or the graph has none). The clone is kept, one per graph and saver, so a run's saver
    (and its serializer) is the same object from one run to the next."""
    allowlist = getattr(graph, "_serde_allowlist", None)
    if allowlist is None or not saver or saver is True:
        return saver
    cached = getattr(graph, "_allowlisted_saver", None)
    if cached is not None and cached[0] is saver:
        return cached[1]
    applied = _serde.apply_checkpointer_allowlist(saver, allowlist)
    graph._allowlisted_saver = (saver, applied)
    return applied
