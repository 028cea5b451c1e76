"""The trace: one record per superstep, and its human-readable projection.

The trace is part of an execution's deterministic identity: the same ordered inputs give the
same trace (ids included), which is what replay checks.

Must never import: the host, persistence, llm, compat.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["TraceRecord", "format_trace"]


@dataclass(slots=True)
class TraceRecord:
    """What happened in one superstep, in canonical order.

    ``delivered``: (activation id, event type name); ``dispositions``: (activation id,
    disposition name); ``written``: channels committed; ``activated``: ids created for the
    next superstep; ``effects``: effect ids requested; ``dropped``: stale events and why;
    ``failure``: set when the superstep did not commit.
    """

    step: int
    delivered: list[tuple[str, str]] = field(default_factory=list)
    dispositions: list[tuple[str, str]] = field(default_factory=list)
    written: tuple[str, ...] = ()
    activated: list[str] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)
    timers: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    failure: str = ""

    def as_tuple(self) -> tuple[object, ...]:
        """A plain, comparable form (used by replay to check a match)."""
        return (
            self.step,
            tuple(self.delivered),
            tuple(self.dispositions),
            self.written,
            tuple(self.activated),
            tuple(self.effects),
            tuple(self.timers),
            tuple(self.dropped),
            self.failure,
        )


def format_trace(records: Iterable[TraceRecord]) -> str:
    """Render records as indented text, one block per superstep::

    superstep 1
      parse:2 <- Activated -> RemainActive
      effects: run-1/parse:2/e0
      wrote: docs
      next: validate:3, index:4
    """
    lines: list[str] = []
    for r in records:
        lines.append(f"superstep {r.step}" + (f"  FAILED: {r.failure}" if r.failure else ""))
        outcome = dict(r.dispositions)
        for aid, event in r.delivered:
            lines.append(f"  {aid} <- {event}" + (f" -> {outcome[aid]}" if aid in outcome else ""))
        if r.effects:
            lines.append(f"  effects: {', '.join(r.effects)}")
        if r.timers:
            lines.append(f"  timers: {', '.join(r.timers)}")
        if r.written:
            lines.append(f"  wrote: {', '.join(r.written)}")
        if r.activated:
            lines.append(f"  next: {', '.join(r.activated)}")
        for d in r.dropped:
            lines.append(f"  dropped: {d}")
    return "\n".join(lines)
