"""`RunValues`: a run's view of its graph's state, one collaborator of `GraphRun`: the values
committed last, the state channels read from them (built on first use), whether the run
showed the state yet, and what its ``values`` chunks and task results show (through the
run's output keys, a root state's bare value, a low-level graph's stream channels).

Never imports the run, the host or the engine's persistence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from superstep_compat._internal._constants import RETURN, ROOT_KEY
from superstep_compat.pregel._output_keys import OutputKeys, read_keys, shows

__all__ = ["RunValues"]


class RunValues:
    """The state of a run of ``graph`` (a compiled `Pregel`) as it shows it; ``keys``: the
    channels its chunks show (`_output_keys`; None: every state channel)."""

    __slots__ = ("_committed", "_last", "_stream_keys", "graph", "keys", "shown")

    def __init__(self, graph: Any, keys: OutputKeys | None) -> None:
        self.graph = graph
        self.keys = keys
        self.shown = False
        """Whether the run showed the state at least once (a ``values`` chunk, streamed or
        not): LangGraph's ``invoke`` returns None for a run that never did."""
        self._committed: Mapping[str, Any] | None = None
        self._last: dict[str, Any] | None = None
        self._stream_keys: frozenset[str] | None = None

    def commit(self, values: Mapping[str, Any]) -> None:
        """``values`` (every channel's) are the run's state now: an engine's committed dict
        (a new one per commit: holding it copies nothing)."""
        self._committed = values
        self._last = None

    def start_from(self, values: Mapping[str, Any]) -> None:
        """The state channels of the checkpoint a continuing run starts from."""
        self._last = dict(values)

    def keep(self, values: Mapping[str, Any]) -> None:
        """A run that committed no step and started from nothing answers with ``values``."""
        if self._committed is None and self._last is None:
            self._committed = values

    @property
    def last(self) -> dict[str, Any] | None:
        """The state channels after the last committed step (None before any), built on
        first use: a run that neither checkpoints nor streams values never builds them."""
        if self._last is None and self._committed is not None:
            keys = self.graph.state_channels
            committed = self._committed
            self._last = {k: committed[k] for k in keys if k in committed}
        return self._last

    def of(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Every state channel of ``values`` with a value (the ``values`` stream and
        snapshots show them all; only ``invoke``'s result is narrowed to the output
        schema)."""
        return {k: values[k] for k in self.graph.state_channels if k in values}

    @property
    def is_root(self) -> bool:
        """Whether the state is one value (a schema without fields: ``__root__``)."""
        return bool(self.graph.state_channels == (ROOT_KEY,))

    def shows(self, written: Sequence[str]) -> bool:
        """Whether a step that wrote the channels ``written`` shows a ``values`` chunk (a
        low-level graph's: when it wrote a stream channel)."""
        if self.keys is not None:
            return shows(self.keys, written)
        lowlevel = self.graph.lowlevel
        return lowlevel is None or lowlevel.shows(written)

    @property
    def chunk(self) -> Any:
        """What the ``values`` stream shows: the state channels, a root state's bare value
        (or what the run's output keys show of them)."""
        values = self.last
        if self.keys is not None:
            return read_keys(values or {}, self.keys)
        if self.graph.lowlevel is not None:
            return self.graph.lowlevel.values_of(values or {})
        return values.get(ROOT_KEY) if self.is_root and values is not None else values

    def stream_keys(self) -> frozenset[str]:
        """The channels whose writes a task's result in the ``tasks`` stream shows."""
        keys = self._stream_keys
        if keys is None:
            keys = self._stream_keys = frozenset((*self.graph.state_channels, RETURN))
        return keys
