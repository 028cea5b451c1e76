"""Run events: what a document run reports, in order, to whoever watches it.

Every event has a ``type`` (`EVENT_TYPES`), the ``run_id``, the ``node_id`` and ``iteration``
it concerns (``None`` for run-level events), a ``timestamp`` supplied by the host (ISO 8601,
UTC, from the runner's wall clock), a per-run sequence number ``seq`` (of this process) and a
``payload``:

- ``run_started``: ``{"document", "version", "content_hash", "input", "resumed"}``
- ``node_started``: ``{"type", "label"}`` (a human node adds ``prompt``, ``fields``, ``timeout``)
- ``node_token``: ``{"text"}``, a streamed piece of a model reply
- ``node_finished``: ``{"output_field", "value", "reused"}``; ``reused`` is true when the
  result came from the effect ledger of an earlier process rather than a new call
- ``run_waiting``: ``{"node", "prompt", "fields", "timeout"}``, a human node that asks
- ``run_paused``: ``{"step", "reason"}`` (``step``, ``cancelled``, ``timeout``)
- ``error``: ``{"error_type", "message", "retrying"}``
- ``run_finished``: ``{"status", "values", "step"}``

Must never import the host or compat.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

import orjson

__all__ = ["EVENT_TYPES", "EventSink", "JsonLines", "RunEvent"]

EVENT_TYPES = (
    "run_started",
    "node_started",
    "node_token",
    "node_finished",
    "run_waiting",
    "run_paused",
    "error",
    "run_finished",
)


@dataclass(frozen=True, slots=True)
class RunEvent:
    """One run event (see the module docstring)."""

    type: str
    run_id: str
    node_id: str | None
    iteration: int | None
    timestamp: str
    seq: int
    payload: Mapping[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """The event as a JSON object (the shape ``--events`` prints, one per line)."""
        return {
            "type": self.type,
            "run_id": self.run_id,
            "node_id": self.node_id,
            "iteration": self.iteration,
            "timestamp": self.timestamp,
            "seq": self.seq,
            "payload": dict(self.payload),
        }


EventSink = Callable[[RunEvent], None]
"""Receives every event of a run, in order (from the thread that runs the host's effects for
``node_token``: a sink must be thread-safe or hand events on)."""


def _default(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump()
    if isinstance(obj, tuple | set | frozenset):
        return list(obj)
    return str(obj)


class JsonLines:
    """An `EventSink` writing each event as one JSON line to ``out`` (flushed per line)."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def __call__(self, event: RunEvent) -> None:
        line = orjson.dumps(event.as_json(), default=_default, option=orjson.OPT_NON_STR_KEYS)
        self.out.write(line.decode() + "\n")
        self.out.flush()
