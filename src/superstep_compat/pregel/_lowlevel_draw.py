"""`get_graph()` of a low-level `Pregel`: LangGraph's dry run (`graph._draw.DryRun`) over
the graph's own channels (and `drawing_of`, which picks it or a builder's drawing).

LangGraph draws a low-level graph as it draws any: it writes an empty input (``{}``) to the
input channel (none when the input channels are a list), then runs step after step with
each triggered node's writers given ``None`` as the node's output (the node itself never
runs): a ``ChannelWriteEntry`` of the output writes None (skipped when ``skip_none``), one of
a fixed value writes it, a mapper is applied to what it is given. An edge is drawn wherever
a node's write triggered another node; a node whose one input channel has no value is not
run. The channels fold the writes with their own ``update`` (so a reducer sees None), on
copies: the graph's channels are not touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from superstep_compat.channels.base import BaseChannel
from superstep_compat.errors import InvalidUpdateError
from superstep_compat.graph._draw import (
    DryChannel,
    DryRun,
    LangGraphDrawing,
    _Writer,
    assemble,
    draw_graph,
)

if TYPE_CHECKING:
    from superstep_compat.pregel._lowlevel import LowLevelDefinition

__all__ = ["draw_lowlevel", "drawing_of"]

_TASKS = "__pregel_tasks"
_NO_STEP_TEXT = (
    "cannot access local variable 'deferred_nodes' where it is not associated with a value"
)


class _Copy:
    """A copy of one of the graph's channels, as the dry run uses it."""

    def __init__(self, spec: BaseChannel[Any, Any]) -> None:
        self.channel = spec.copy()

    def available(self) -> bool:
        return self.channel.is_available()

    def update(self, values: Sequence[Any]) -> bool:
        return self.channel.update(values)

    def consume(self) -> bool:
        return self.channel.consume()

    def finish(self) -> bool:
        return self.channel.finish()


class _LowLevelRun(DryRun):
    def __init__(self, definition: LowLevelDefinition) -> None:
        from superstep_compat.pregel._lowlevel import PASSTHROUGH

        channels: dict[str, DryChannel] = {
            name: _Copy(spec) for name, spec in definition.channels.items()
        }
        writers: dict[str, _Writer] = {}
        for name, node in definition.nodes.items():
            writes: list[tuple[str, Any]] = []
            for entry in node.writers:
                if entry.channel == _TASKS:  # LangGraph's writer refuses it, drawing too
                    raise InvalidUpdateError("Cannot write to the reserved channel TASKS")
                value = None if entry.value is PASSTHROUGH else entry.value
                if entry.mapper is not None:
                    value = entry.mapper(value)
                if not (entry.skip_none and value is None):
                    writes.append((entry.channel, value))
            writers[name] = _Writer(always=writes)
        super().__init__(
            channels, {name: list(n.triggers) for name, n in definition.nodes.items()}, writers
        )
        self.reading = {name: node.channels for name, node in definition.nodes.items()}

    def reads(self, name: str) -> bool:
        # one input channel without a value: LangGraph prepares no task for the node
        read = self.reading[name]
        return not isinstance(read, str) or self.channels[read].available()


def draw_lowlevel(
    definition: LowLevelDefinition,
    *,
    interrupt_before: Sequence[str] | str = (),
    interrupt_after: Sequence[str] | str = (),
) -> LangGraphDrawing:
    """The drawable graph of a low-level `Pregel` (its nodes in their order, then START
    with an edge to each node the input triggered, the edges found, END after the last
    nodes), as LangGraph draws it. Raises `InvalidUpdateError` for a node that writes
    ``__pregel_tasks``, LangGraph's `UnboundLocalError` when the input triggers no node,
    and what a writer's mapper or a channel raises on the dry run's values, as LangGraph
    does."""
    inputs = definition.input_channels
    found = _LowLevelRun(definition).run([(inputs, {})] if isinstance(inputs, str) else [])
    if not found[0]:
        # LangGraph 1.2's drawing reads a name its first step sets: an input that triggers
        # no node (a list of input channels writes nothing) fails with Python's own error
        raise UnboundLocalError(_NO_STEP_TEXT)
    nodes = [(name, node.bound, node.metadata, False) for name, node in definition.nodes.items()]
    return assemble(
        found,
        nodes,
        interrupt_before=interrupt_before,
        interrupt_after=interrupt_after,
        start_node=False,
    )


def drawing_of(graph: Any) -> LangGraphDrawing:
    """The drawing of compiled ``graph`` (a `Pregel`), subgraphs not expanded: a low-level
    graph's (`draw_lowlevel`), else its builder's (`graph._draw.draw_graph`)."""
    before = sorted(graph.interrupt_before_nodes)
    after = sorted(graph.interrupt_after_nodes)
    if graph.lowlevel is not None:
        return draw_lowlevel(graph.lowlevel, interrupt_before=before, interrupt_after=after)
    b = graph.builder
    return draw_graph(
        b.nodes,
        b.edges,
        b.waiting_edges,
        b.branches,
        interrupt_before=before,
        interrupt_after=after,
    )
