"""The channels a document compiles to: one per state field, combining by the field's reducer,
and the run's own bookkeeping channels.

A node's write reaches a field as a `Contribution` and is combined by the reducer:
``replace`` (one writer per superstep; two raise `ChannelConflictError`), ``append`` (the value
becomes the list's next item), ``merge`` (a shallow merge of objects) and ``add`` (numbers).
A plain value written from outside any node (the run's input at superstep 0, a person's edit)
sets the field as it is: input ``{"answers": ["a"]}`` gives ``["a"]``, not ``[["a"]]``.
Contributions never leave the process (checkpoints hold committed values), so they need no
codec.

Must never import the host, the llm layer or compat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from superstep_core.channel import MISSING, Channel, Write
from superstep_core.errors import ChannelConflictError

__all__ = [
    "EVENTS",
    "INPUT",
    "RETRIES",
    "VISITS",
    "Contribution",
    "FieldChannel",
    "StepLog",
    "Visits",
]

INPUT = "__input__"
"""The run's input object, as given (``{{input.x}}`` reads it)."""
VISITS = "__visits__"
"""node id -> how many times it has started in this run (its iteration)."""
EVENTS = "__events__"
"""The run events the nodes of the last superstep reported (cleared a superstep later)."""
RETRIES = "__retries__"
"""node id -> how many times a person asked to retry its failed call (an audited edit)."""


@dataclass(frozen=True, slots=True)
class Contribution:
    """A node's write to a field, combined by the field's reducer."""

    value: Any


@dataclass(frozen=True)
class FieldChannel(Channel):
    """A state field with its ``reducer`` (``replace``, ``append``, ``merge``, ``add``)."""

    reducer: str = "replace"

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        contributed = [(w, v) for w, v in writes if isinstance(v, Contribution)]
        if self.reducer == "replace" and len(contributed) > 1:
            raise ChannelConflictError(channel, [w for w, _ in contributed])
        value = current
        for _, item in writes:
            if not isinstance(item, Contribution):
                value = item
            elif self.reducer == "append":
                value = [*(value if isinstance(value, list) else ()), item.value]
            elif self.reducer == "merge":
                value = {**(value if isinstance(value, dict) else {}), **item.value}
            elif self.reducer == "add":
                value = (0 if value is MISSING or value is None else value) + item.value
            else:
                value = item.value
        return value

    def describe(self) -> str:
        return f"FieldChannel({self.reducer})"


@dataclass(frozen=True)
class Visits(Channel):
    """Counts per node: each write is a node id (`VISITS`, `RETRIES`)."""

    def initial(self) -> Any:
        return {}

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        counts = dict(current)
        for _, node in writes:
            counts[node] = counts.get(node, 0) + 1
        return counts


@dataclass(frozen=True)
class StepLog(Channel):
    """Every item written in one superstep, in writer order; empty again a superstep later
    (an ephemeral channel: the run layer reads it after each commit)."""

    ephemeral: bool = True

    def combine(self, channel: str, current: Any, writes: Sequence[Write]) -> Any:
        return [item for _, item in writes]
